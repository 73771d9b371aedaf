/**
 * Nothing hides in a test run: a file that never ran fails the run by name (test/every-file-ran.ts, the first of the
 * reporters in vitest.config.ts). Checked on a copy of this repository (its files as git sees them in the working
 * tree, its installed packages linked in) whose app project cannot start: a rate-limit override without the
 * `namespace_id` the Workers pool requires. Only the app's project runs there, the cheapest run that shows it.
 * Nor does an error-level line a test printed without capturing it (test/no-stray-errors.ts): checked on a second
 * copy, with a test that prints one, in its repo project alone.
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyOfRepository } from "./copy";

const root = resolve(import.meta.dirname, "../..");
/** The copy's vitest run starts a project's pool and builds the assets: generous, for a busy machine. */
const RUN_TIMEOUT_MS = 5 * 60_000;
/** Making the copy, then its run. */
const SETUP_TIMEOUT_MS = RUN_TIMEOUT_MS + 2 * 60_000;

/**
 * The copy's run as `npm test` starts it (its node_modules/.bin first on PATH: the assets' build runs the engine's
 * mcp-build-skills), with no parent test run's variables, no request.cf download, no metrics.
 */
function childEnv(cwd: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST") && name !== "NODE_OPTIONS"));
  const path = [join(cwd, "node_modules/.bin"), process.env.PATH].filter(Boolean).join(delimiter);
  return { ...env, PATH: path, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" };
}

/** `vitest run` in `cwd` with `args`: its exit status and its output (stdout and stderr, colours removed). */
function vitestRun(cwd: string, args: string[]): Promise<{ status: number; output: string }> {
  const vitest = join(cwd, "node_modules/vitest/vitest.mjs");
  return new Promise((settle) => {
    execFile(
      process.execPath,
      [vitest, "run", ...args],
      { cwd, env: childEnv(cwd), encoding: "utf8", timeout: RUN_TIMEOUT_MS, maxBuffer: 64 << 20 },
      (error, stdout, stderr) =>
        settle({
          status: error ? (typeof error.code === "number" ? error.code : 1) : 0,
          output: stripVTControlCharacters(`${stdout}\n${stderr}`),
        }),
    );
  });
}

const appTestFiles = (dir: string) =>
  readdirSync(join(dir, "test/app"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".test.ts"))
    .map((file) => `test/app/${file}`)
    .sort();

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("a test run in which a project fails to start", { timeout: RUN_TIMEOUT_MS }, () => {
  let copy: string;
  let run: { status: number; output: string };

  beforeAll(async () => {
    copy = copyOfRepository("nothing-hides");
    const configPath = join(copy, "vitest.config.ts");
    const config = readFileSync(configPath, "utf8");
    const broken = config.replace(/(ratelimits: \{\s*\w+: \{ )namespace_id: "[^"]*", /, "$1");
    expect(broken, "vitest.config.ts has a rate-limit override with a namespace_id to remove").not.toBe(config);
    writeFileSync(configPath, broken);
    run = await vitestRun(copy, ["--no-cache", "--project", "app"]);
  }, SETUP_TIMEOUT_MS);

  afterAll(() => {
    if (copy) rmSync(copy, { recursive: true, force: true });
  });

  it("exits non-zero, with the pool's refusal of the configuration in its output", () => {
    expect(run.status, run.output).not.toBe(0);
    expect(run.output).toContain("namespace_id");
  });

  it("lists every file of that project as a failed file, by name, and counts them in the summary", () => {
    const files = appTestFiles(copy);
    expect(files.length).toBeGreaterThan(0);
    const unlisted = files.filter((file) => !new RegExp(`FAIL\\b.*\\bapp\\b.*\\s${escaped(file)}\\b`).test(run.output));
    expect(unlisted, run.output).toEqual([]);
    expect(run.output).toMatch(new RegExp(`Test Files\\s+${files.length} failed \\(${files.length}\\)`));
  });
});

/** Two tests for the copy's repo project: one prints an error line as a test may not, one captures its line. */
const STRAY_TESTS = `import { expect, it, vi } from "vitest";
it("prints an error line it does not capture", () => {
  console.error(JSON.stringify({ level: "error", message: "stray on purpose" }));
  expect(1).toBe(1);
});
it("captures the error line it causes", () => {
  const spy = vi.spyOn(console, "error").mockImplementation(() => {});
  console.error(JSON.stringify({ level: "error", message: "captured on purpose" }));
  expect(spy).toHaveBeenCalledOnce();
  spy.mockRestore();
});
`;

describe("a test run in which a test prints an error-level line it does not capture", { timeout: RUN_TIMEOUT_MS }, () => {
  let copy: string;
  let run: { status: number; output: string };

  beforeAll(async () => {
    copy = copyOfRepository("stray-errors");
    writeFileSync(join(copy, "test/repo/stray.test.ts"), STRAY_TESTS);
    run = await vitestRun(copy, ["--no-cache", "--project", "repo", "test/repo/stray.test.ts"]);
  }, SETUP_TIMEOUT_MS);

  afterAll(() => {
    if (copy) rmSync(copy, { recursive: true, force: true });
  });

  it("exits non-zero, its summary counting one error that names the test and the line (test/no-stray-errors.ts)", () => {
    expect(run.status, run.output).not.toBe(0);
    expect(run.output).toMatch(/Tests\s+2 passed/);
    expect(run.output).toMatch(/Errors\s+1 error/);
    expect(run.output).toContain("StrayErrorLine: test/repo/stray.test.ts > prints an error line it does not capture printed");
    expect(run.output).toContain('"message":"stray on purpose"');
  });

  it("holds nothing against a line the test captured", () => {
    expect(run.output).not.toContain("StrayErrorLine: test/repo/stray.test.ts > captures the error line it causes");
  });
});

const read = (file: string) => readFileSync(join(root, file), "utf8");

describe.runIf(existsSync(join(root, "engine/test/every-file-ran.ts")))("the engine's own test run", () => {
  it("fails a file that never ran with the same check: its copy of the reporter is the template's, unchanged", () => {
    expect(read("engine/test/every-file-ran.ts")).toBe(read("test/every-file-ran.ts"));
    expect(read("engine/vitest.config.ts")).toMatch(/reporters: \[new EveryFileRan\(\)/);
  });
});
