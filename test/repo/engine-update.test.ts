/**
 * `npm run engine:update`: replaces the engine's files of a fork with a newer engine's, from a directory or a git
 * ref, and leaves the fork's own files alone. Run here on a small fake fork in a temporary directory.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const script = resolve(import.meta.dirname, "../../src/mcp/update-engine.mjs");

/** Every directory a test made: removed at the end. */
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "engine-update-test-"));
  made.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const version = (v: string) => `export const ENGINE_VERSION = "${v}";\n`;

/** A fork on engine 1.0.0 with its own tools, tests and settings, committed. */
function fork(): string {
  const dir = tree({
    "src/mcp/version.ts": version("1.0.0"),
    "src/mcp/retired.ts": "export const old = 1;\n",
    "src/tools.ts": "export const tools = ['mine'];\n",
    "test/engine/old.test.ts": "// engine test of 1.0.0\n",
    "test/app/mine.test.ts": "// the fork's own test\n",
    "wrangler.toml": 'name = "my-fork"\n',
  });
  return committed(dir);
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd });

function committed(dir: string): string {
  git(dir, "init", "-q");
  git(dir, "add", ".");
  git(dir, "commit", "-qm", "snapshot");
  return dir;
}

const newerEngine = () =>
  tree({
    "src/mcp/version.ts": version("1.1.0"),
    "src/mcp/added.ts": "export const added = 1;\n",
    "src/tools.ts": "export const tools = ['upstream example'];\n",
    "test/engine/new.test.ts": "// engine test of 1.1.0\n",
    "test/app/upstream.test.ts": "// the template's example test\n",
  });

const run = (cwd: string, ...args: string[]) => spawnSync("node", [script, ...args], { cwd, encoding: "utf8" });
/** The same, with a temporary directory of its own, to see what the script leaves in it. */
const runWithTmp = (cwd: string, tmp: string, ...args: string[]) =>
  spawnSync("node", [script, ...args], { cwd, encoding: "utf8", env: { ...process.env, TMPDIR: tmp } });

function expectUpdated(dir: string) {
  expect(readFileSync(join(dir, "src/mcp/version.ts"), "utf8")).toBe(version("1.1.0"));
  expect(existsSync(join(dir, "src/mcp/added.ts"))).toBe(true);
  expect(existsSync(join(dir, "src/mcp/retired.ts"))).toBe(false);
  expect(existsSync(join(dir, "test/engine/new.test.ts"))).toBe(true);
  expect(existsSync(join(dir, "test/engine/old.test.ts"))).toBe(false);
  // The fork's own files are untouched, and the template's example files are not brought in.
  expect(readFileSync(join(dir, "src/tools.ts"), "utf8")).toBe("export const tools = ['mine'];\n");
  expect(existsSync(join(dir, "test/app/mine.test.ts"))).toBe(true);
  expect(existsSync(join(dir, "test/app/upstream.test.ts"))).toBe(false);
  expect(readFileSync(join(dir, "wrangler.toml"), "utf8")).toBe('name = "my-fork"\n');
}

describe("npm run engine:update", () => {
  it("replaces the engine's files from a directory and leaves the fork's files alone", () => {
    const dir = fork();
    const result = run(dir, newerEngine(), "--no-check");
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain("engine 1.0.0 -> 1.1.0");
    expectUpdated(dir);
  });

  it("takes the newer engine from a git ref of the fork's repository, and leaves no unpacked copy behind", () => {
    const dir = fork();
    git(dir, "fetch", "-q", committed(newerEngine()), "HEAD:refs/remotes/upstream/main");
    const tmp = tree({});
    const result = runWithTmp(dir, tmp, "upstream/main", "--no-check");
    expect(result.status, result.stderr).toBe(0);
    expectUpdated(dir);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it("refuses a git ref that holds no engine, and leaves nothing behind", () => {
    const dir = fork();
    const tmp = tree({});
    const result = runWithTmp(dir, tmp, "no-such-ref", "--no-check");
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("neither a directory nor a git ref that holds src/mcp");
    expect(readdirSync(tmp)).toEqual([]);
  });

  it("refuses to overwrite uncommitted changes to the engine's files", () => {
    const dir = fork();
    writeFileSync(join(dir, "src/mcp/retired.ts"), "export const old = 2; // a local patch\n");
    const result = run(dir, newerEngine(), "--no-check");
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("uncommitted changes");
    expect(readFileSync(join(dir, "src/mcp/version.ts"), "utf8")).toBe(version("1.0.0"));
  });

  it("refuses a source that holds no engine", () => {
    const dir = fork();
    const result = run(dir, tree({ "README.md": "nothing here\n" }), "--no-check");
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("holds no engine");
  });
});
