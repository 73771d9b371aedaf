/**
 * Taking a newer engine works as docs/development.md writes it: its one command, run in a fork whose `upstream`
 * remote has a release, replaces the package's folder with that release's (files it removed are removed, nothing
 * outside `engine/` changes, npm links the new version), and given a ref without an engine it fails with git's
 * message and changes nothing. On small git repositories of the test's own, in a temporary directory.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const docs = readFileSync("docs/development.md", "utf8").split("## Updating the engine")[1] ?? "";
/** The documented command: the line of the section's code block that fetches and restores (it reads REF). */
const UPDATE = /^git fetch upstream --tags && .*$/m.exec(docs)?.[0];

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=update-test", "-c", "user.email=update-test@example.com", ...args], { cwd, encoding: "utf8" });

function write(root: string, files: Record<string, string>) {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

const engineAt = (version: string) => JSON.stringify({ name: "mcp-workers-engine", version, type: "module" });
const APP = {
  "package.json": JSON.stringify({
    name: "fork",
    private: true,
    workspaces: ["engine"],
    dependencies: { "mcp-workers-engine": "file:engine" },
  }),
  "src/index.ts": "export default {};\n",
  ".gitignore": "node_modules/\n",
};

/** A template repository with release v2.0.0, and a fork of its v1.0.0 with an app file of its own. */
function forkOfTemplate() {
  const base = mkdtempSync(join(tmpdir(), "engine-update-"));
  dirs.push(base);
  const upstream = join(base, "template");
  mkdirSync(upstream);
  git(upstream, "init", "-q", "-b", "main");
  write(upstream, { ...APP, "engine/package.json": engineAt("1.0.0"), "engine/src/old.ts": "export const old = 1;\n" });
  git(upstream, "add", "-A");
  git(upstream, "commit", "-qm", "1.0.0");
  git(upstream, "tag", "v1.0.0");
  rmSync(join(upstream, "engine/src/old.ts"));
  write(upstream, { "engine/package.json": engineAt("2.0.0"), "engine/src/new.ts": "export const added = 2;\n" });
  git(upstream, "add", "-A");
  git(upstream, "commit", "-qm", "2.0.0");
  git(upstream, "tag", "v2.0.0");
  git(upstream, "rm", "-rq", "engine");
  git(upstream, "commit", "-qm", "a branch without the engine");
  git(upstream, "tag", "no-engine");

  const fork = join(base, "fork");
  git(base, "clone", "-q", "--branch", "v1.0.0", upstream, fork);
  git(fork, "switch", "-q", "-c", "main");
  git(fork, "remote", "rename", "origin", "upstream");
  write(fork, { "src/tools.ts": "export const mine = true;\n" });
  git(fork, "add", "-A");
  git(fork, "commit", "-qm", "the fork's own tool");
  return fork;
}

const update = (fork: string, ref: string) =>
  spawnSync("sh", ["-c", UPDATE!], {
    cwd: fork,
    encoding: "utf8",
    env: { ...process.env, REF: ref, npm_config_audit: "false", npm_config_fund: "false" },
  });

// Generous: each test makes git repositories and runs npm install, beside the rest of the suite.
describe("taking a newer engine, as docs/development.md says", { timeout: 60_000 }, () => {
  it("is one documented command", () => {
    expect(UPDATE).toContain('git restore --source="$REF" --staged --worktree -- engine');
    expect(UPDATE).toMatch(/&& npm install$/);
  });

  it("replaces engine/ with the release's files, removes what it removed, keeps the fork's own, and links the new version", () => {
    const fork = forkOfTemplate();
    const result = update(fork, "v2.0.0");
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(existsSync(join(fork, "engine/src/old.ts"))).toBe(false);
    expect(readFileSync(join(fork, "engine/src/new.ts"), "utf8")).toBe("export const added = 2;\n");
    expect(readFileSync(join(fork, "src/tools.ts"), "utf8")).toBe("export const mine = true;\n");
    expect(git(fork, "status", "--porcelain", "--", ":!package-lock.json").split("\n").filter(Boolean).sort()).toEqual([
      "A  engine/src/new.ts",
      "D  engine/src/old.ts",
      "M  engine/package.json",
    ]);
    expect(realpathSync(join(fork, "node_modules/mcp-workers-engine"))).toBe(realpathSync(join(fork, "engine")));
    expect(JSON.parse(readFileSync(join(fork, "node_modules/mcp-workers-engine/package.json"), "utf8")).version).toBe("2.0.0");
  });

  it("fails on a ref without an engine, or no such ref, saying which, and changes nothing", () => {
    const fork = forkOfTemplate();
    for (const [ref, says] of [
      ["no-engine", "path 'engine/package.json' exists on disk, but not in 'no-engine'"],
      ["v9.9.9", "invalid object name 'v9.9.9'"],
    ]) {
      const result = update(fork, ref!);
      expect(result.status, ref).not.toBe(0);
      expect(result.stderr, ref).toContain(says);
      expect(git(fork, "status", "--porcelain"), ref).toBe("");
      expect(JSON.parse(readFileSync(join(fork, "engine/package.json"), "utf8")).version, ref).toBe("1.0.0");
    }
  });
});
