/**
 * `npm run dev` reloads what you edit: a tool changed in src/tools.ts is in the running server's tools/list within
 * seconds, no restart. And it builds the assets once per start: the views' and skills' builds run as wrangler starts
 * and find nothing to do when wrangler runs them again (its watcher reruns the build once it is ready, and on every
 * change). Run on a copy of the app in a temporary directory (the repository's node_modules linked in), so the edit
 * never touches your files.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modernRequest } from "../wire";
import { type DevProcess, devScriptArguments, exited, root, spawnWranglerDev } from "./dev-server";

/** What `npm run dev` reads of the app: its code, views, skills and configuration. */
const APP = ["src", "views", "skills", "wrangler.toml", "package.json", "tsconfig.json"];

let copy: string;
let dev: DevProcess;
let url: string;

beforeAll(async () => {
  copy = mkdtempSync(join(tmpdir(), "mcp-hot-reload-"));
  for (const path of APP.filter((entry) => existsSync(join(root, entry)))) cpSync(join(root, path), join(copy, path), { recursive: true });
  symlinkSync(join(root, "node_modules"), join(copy, "node_modules"), "dir");
  dev = spawnWranglerDev(
    [
      ...devScriptArguments(),
      "--port",
      "0",
      "--inspector-port",
      "0",
      "--persist-to",
      join(copy, "state"),
      "--show-interactive-dev-session=false",
    ],
    copy,
  );
  url = new URL("/mcp", await dev.ready).href;
}, 60_000);

afterAll(async () => {
  if (dev) await exited(dev.child);
  if (copy) rmSync(copy, { recursive: true, force: true });
});

const toolDescriptions = async (): Promise<string[]> => {
  const answer = (await (await fetch(modernRequest(url, { id: 1, method: "tools/list" }))).json()) as {
    result: { tools: { description: string }[] };
  };
  return answer.result.tools.map((tool) => tool.description);
};

/** Each "<what>: built ..." or "<what>: ... is up to date" line the builds printed (through wrangler's [custom build]). */
const buildLines = (what: string) =>
  dev
    .output()
    .split("\n")
    .filter((line) => line.includes(`${what}: `));

describe("npm run dev on a copy of the app", () => {
  it("builds the assets once as it starts: a second build right after finds the views and skills up to date", async () => {
    // The watcher's first rerun follows the start by a moment.
    for (let waited = 0; waited < 5_000 && buildLines("skills").length < 2; waited += 100)
      await new Promise((done) => setTimeout(done, 100));
    for (const what of ["skills", ...(existsSync(join(copy, "views")) ? ["views"] : [])]) {
      const lines = buildLines(what);
      expect(
        lines.filter((line) => line.includes(": built ")),
        `${what}:\n${lines.join("\n")}`,
      ).toHaveLength(1);
      expect(lines.filter((line) => line.includes("is up to date")).length, `${what}:\n${lines.join("\n")}`).toBeGreaterThan(0);
    }
  });

  it("serves a tool edited in src/tools.ts within 5 s of the edit, without a restart", { timeout: 20_000 }, async () => {
    const marker = `Edited at ${Date.now()}.`;
    const tools = join(copy, "src/tools.ts");
    const source = readFileSync(tools, "utf8");
    const first = /description: "([^"]*)"/.exec(source)!;
    expect(await toolDescriptions()).toContain(first[1]);
    writeFileSync(tools, source.replace(first[0], `description: "${marker}"`));
    const edited = Date.now();
    let seen = false;
    while (!seen && Date.now() - edited < 5_000) {
      await new Promise((done) => setTimeout(done, 200));
      seen = await toolDescriptions().then(
        (descriptions) => descriptions.includes(marker),
        () => false,
      );
    }
    expect(seen, `tools/list did not show the edit within 5 s:\n${dev.output().slice(-2_000)}`).toBe(true);
  });
});
