/**
 * `npm run dev` reloads what you edit, no restart: a tool changed in src/tools.ts is in the running server's
 * tools/list, and a change to the engine's own source (engine/src/) is in its answers. It builds the assets once as
 * it starts (wrangler runs the `[build]` command before it is ready; its watcher then reruns it on a change only),
 * and a rebuild after an edit of code finds the views and skills up to date. Run on a copy of the app and of the
 * engine in a temporary directory (the repository's packages linked in, the engine's package pointing at the copy's),
 * so the edits never touch your files. Nothing here measures how long a reload takes: each test waits (bounded by
 * its timeout) until the edit is served.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modernRequest } from "../wire";
import { type DevProcess, devScriptArguments, exited, root, spawnWranglerDev } from "./dev-server";

/** What `npm run dev` reads of the app: its code, views, skills and configuration. */
const APP = ["src", "views", "skills", "wrangler.toml", "package.json", "tsconfig.json"];
/**
 * What it reads of the engine while the engine is a folder of this repository (a fork that installs the published
 * package has none, and nothing of it to edit): the package's source, through its package.json's exports.
 */
const ENGINE = ["engine/src", "engine/package.json"];
const ENGINE_PACKAGE = "mcp-workers-engine";
const engineFolder = existsSync(join(root, "engine/src"));

/** Reloads wait on wrangler's rebuild and workerd's restart: generous on a busy machine, and never a measurement. */
const RELOAD = { timeout: 60_000, interval: 200 };

let copy: string;
let dev: DevProcess;
let origin: string;

/**
 * The copy's node_modules: a link to each of the repository's packages, but the engine's, which is the copy's engine/
 * (as npm links a workspace) when there is one, so an edit there is what the copy's Worker runs.
 */
function linkPackages(): void {
  const modules = join(copy, "node_modules");
  mkdirSync(modules);
  for (const name of readdirSync(join(root, "node_modules"))) {
    const own = engineFolder && name === ENGINE_PACKAGE;
    symlinkSync(own ? "../engine" : join(root, "node_modules", name), join(modules, name));
  }
}

beforeAll(async () => {
  copy = mkdtempSync(join(tmpdir(), "mcp-hot-reload-"));
  for (const path of [...APP, ...ENGINE].filter((entry) => existsSync(join(root, entry))))
    cpSync(join(root, path), join(copy, path), { recursive: true });
  linkPackages();
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
  origin = await dev.ready;
}, 60_000);

afterAll(async () => {
  if (dev) await exited(dev.child);
  if (copy) rmSync(copy, { recursive: true, force: true });
});

const toolDescriptions = async (): Promise<string[]> => {
  const answer = (await (await fetch(modernRequest(new URL("/mcp", origin).href, { id: 1, method: "tools/list" }))).json()) as {
    result: { tools: { description: string }[] };
  };
  return answer.result.tools.map((tool) => tool.description);
};

/** The assets' builds, by the word their lines start with ("views: built ...", "skills: ... is up to date"). */
const kinds = () => ["skills", ...(existsSync(join(copy, "views")) ? ["views"] : [])];

/** Each line a build of `what` printed (through wrangler's [custom build]) in `output`. */
const buildLines = (output: string, what: string) => output.split("\n").filter((line) => line.includes(`${what}: `));

/** Replaces `text` in the copy's `file`, which must hold it (a moved line fails here, saying so, not as a timeout). */
function edit(file: string, text: string, replacement: string): void {
  const path = join(copy, file);
  const source = readFileSync(path, "utf8");
  expect(source, `${file} no longer holds ${text}: point the test at another line`).toContain(text);
  writeFileSync(path, source.replace(text, replacement));
}

describe("npm run dev on a copy of the app", () => {
  it("has built the views and skills once when it is ready", () => {
    for (const what of kinds()) {
      const lines = buildLines(dev.output(), what);
      expect(lines, `${what}:\n${lines.join("\n")}`).toEqual([expect.stringContaining(`${what}: built `)]);
    }
  });

  it("serves a tool edited in src/tools.ts without a restart; the rebuild finds the views and skills up to date", {
    timeout: 90_000,
  }, async () => {
    const printedBefore = dev.output().length;
    const source = readFileSync(join(copy, "src/tools.ts"), "utf8");
    const first = /description: "([^"]*)"/.exec(source)!;
    expect(await toolDescriptions()).toContain(first[1]);
    const marker = `Edited at ${Date.now()}.`;
    edit("src/tools.ts", first[0], `description: "${marker}"`);
    // While workerd restarts, a request may fail: it is asked again.
    const served = () =>
      toolDescriptions()
        .then((descriptions) => descriptions.includes(marker))
        .catch(() => false);
    await expect.poll(served, RELOAD).toBe(true);
    // The edit's rebuild ran the [build] command again: each build found its inputs unchanged.
    const since = () => dev.output().slice(printedBefore);
    for (const what of kinds()) {
      await expect.poll(() => buildLines(since(), what), RELOAD).toContainEqual(expect.stringContaining("is up to date"));
      expect(buildLines(since(), what), what).not.toContainEqual(expect.stringContaining(": built "));
    }
  });

  it.runIf(engineFolder)("serves an edit of the engine's source in engine/src/ without a restart", { timeout: 90_000 }, async () => {
    const health = async () => (await fetch(new URL("/health", origin))).text();
    expect(await health()).toBe('{"status":"ok"}');
    const marker = `edited-${Date.now()}`;
    edit("engine/src/worker/router.ts", 'Response.json({ status: "ok" })', `Response.json({ status: "ok", edit: "${marker}" })`);
    await expect.poll(() => health().catch(() => ""), RELOAD).toContain(marker);
  });
});
