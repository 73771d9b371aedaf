/**
 * The README's first step keeps `npm test` green: its "Add a tool" block, added to src/tools.ts as the README says
 * (appended to the array `tools()` returns), leaves every test that lists or calls tools passing. Run on a copy of
 * this repository, with the tests of the copy that read a tool list: the app's (through the test client) and the
 * end-to-end ones (real clients against wrangler dev).
 */
import { type SpawnSyncReturns, spawn } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blockUnder, copyOfRepository, root } from "./copy";

/** The copy's run starts wrangler and a browser beside the rest of the suite: generous, for a busy machine. */
const TIMEOUT_MS = 5 * 60_000;
/** Test files whose client reads the tool list (`listTools()`): whatever a fork adds, they must keep passing. */
const LISTS_TOOLS = /\.listTools\(/;

/** Inserts `block` (the README's `defineTool({...}),`) as the last element of the array `tools()` returns. */
function appendTool(source: string, block: string): string {
  const start = source.indexOf("export function tools(): Tool[] {");
  const end = source.indexOf("\n  ];\n}", start);
  if (start === -1 || end === -1) throw new Error("src/tools.ts has no `export function tools(): Tool[] { return [ ... ]; }`");
  const indented = block.replace(/^(?=.)/gm, "    ");
  return `${source.slice(0, end)}\n${indented.trimEnd()}${source.slice(end)}`;
}

function run(cwd: string, args: string[]): Promise<SpawnSyncReturns<string>> {
  return new Promise((settle) => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST") && name !== "NODE_OPTIONS"));
    const child = spawn("npx", args, { cwd, env: { ...env, CLOUDFLARE_CF_FETCH_ENABLED: "false" } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill("SIGTERM"), TIMEOUT_MS);
    child.on("exit", (status) => {
      clearTimeout(timer);
      settle({ status, stdout, stderr } as SpawnSyncReturns<string>);
    });
  });
}

describe("the README's count_words, added as the README says", { timeout: TIMEOUT_MS }, () => {
  let copy: string;
  // Generous: copying and committing the repository waits on the disk, beside the rest of the suite.
  beforeAll(() => {
    copy = copyOfRepository("readme-tool");
  }, TIMEOUT_MS);
  afterAll(() => {
    if (copy) rmSync(copy, { recursive: true, force: true });
  });

  it("keeps every test that lists or calls the app's tools passing", async () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const tools = join(copy, "src/tools.ts");
    // A fork that started from blank has the README's tool already (npm run blank leaves it): the step is done.
    if (!readFileSync(tools, "utf8").includes('name: "count_words"')) {
      writeFileSync(tools, appendTool(readFileSync(tools, "utf8"), blockUnder(readme, "Add a tool")));
    }
    expect(readFileSync(tools, "utf8")).toContain('name: "count_words"');
    const files = ["test/app", "test/e2e"].flatMap((dir) =>
      readdirSync(join(copy, dir))
        .filter((name) => name.endsWith(".test.ts") && LISTS_TOOLS.test(readFileSync(join(copy, dir, name), "utf8")))
        .map((name) => `${dir}/${name}`),
    );
    expect(files.length, "no test reads a tool list").toBeGreaterThan(0);
    const result = await run(copy, [
      "vitest",
      "run",
      "--no-cache",
      "--project",
      "app",
      "--project",
      "e2e",
      "test/app/declarations.test.ts",
      ...files,
    ]);
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    for (const file of files) expect(result.stdout).toContain(file);
  });
});
