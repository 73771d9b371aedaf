/**
 * Taking a newer engine works as docs/development.md writes it. The lines of its "Updating the engine" block run as
 * written (only the template's URL filled in) in a fork of a copy of this repository, after the copy, the template,
 * has moved on to a newer engine: they name refs the fork then has, replace engine/ with the template's (files it
 * removed are removed), leave everything else alone, the fork's own work in src/ (committed or not) included, and
 * run npm install on the new engine. A ref without an engine, or no such ref, fails with git's message and changes
 * nothing. The one stand-in is npm, which records how it was called and the engine it found: the fork has no packages
 * installed, and the test installs none.
 */
import { type SpawnSyncReturns, spawnSync } from "node:child_process";
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyOfRepository, git, root, TEMPLATE_BRANCH } from "./copy";

/** The block of the docs' section, as a developer copies it. */
const block = /```sh\n([\s\S]*?)```/.exec(
  readFileSync(join(root, "docs/development.md"), "utf8").split("\n## Updating the engine\n")[1]?.split("\n## ")[0] ?? "",
)?.[1];
const lines = (block ?? "").split("\n").filter((line) => line.trim() !== "");
/** What a fork fills in: where the template is. */
const TEMPLATE_URL = "<this template's git URL>";
const addRemote = lines.find((line) => line.startsWith("git remote add upstream "));
const update = lines.find((line) => line.includes("git restore "));

/** What the template's newer engine changed: a file it added, one it removed, and its version. */
const ADDED = "engine/src/added-by-the-newer-engine.ts";
const NEWER_VERSION = "99.0.0";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};

/**
 * A fork of the template as it is now: a clone, without the remote a clone adds (the docs add their own), with a
 * commit of its own in src/ and an uncommitted edit there too.
 */
function forkOf(template: string): string {
  const fork = join(tempDir("engine-update-fork-"), "fork");
  git(template, "clone", "-q", template, fork);
  git(fork, "remote", "remove", "origin");
  appendFileSync(join(fork, "src/tools.ts"), "// the fork's own tool\n");
  git(fork, "commit", "-qam", "the fork's own tool");
  appendFileSync(join(fork, "src/index.ts"), "// the fork's work in progress\n");
  return fork;
}

/**
 * The template moves on: a commit on its branch with a newer engine (a file added, one removed, a new version) and a
 * change of its own app, and a branch without an engine. Returns the engine file it removed.
 */
function releaseNewerEngine(template: string): string {
  const removed = git(template, "ls-files", "engine/docs").split("\n")[0]!;
  const pkg = JSON.parse(readFileSync(join(template, "engine/package.json"), "utf8"));
  writeFileSync(join(template, "engine/package.json"), `${JSON.stringify({ ...pkg, version: NEWER_VERSION }, null, 2)}\n`);
  writeFileSync(join(template, ADDED), "export const added = true;\n");
  rmSync(join(template, removed));
  appendFileSync(join(template, "src/tools.ts"), "// the template's own change of its app, which a fork does not take\n");
  git(template, "add", "-A");
  git(template, "commit", "-qm", "a newer engine");
  git(template, "switch", "-qc", "without-engine");
  git(template, "rm", "-rq", "engine");
  git(template, "commit", "-qm", "no engine");
  git(template, "switch", "-q", TEMPLATE_BRANCH);
  return removed;
}

/** An `npm` that records each call and the engine version it finds, first on PATH. */
function recordingNpm(): { bin: string; calls: string } {
  const dir = tempDir("engine-update-npm-");
  const bin = join(dir, "bin");
  mkdirSync(bin);
  const calls = join(dir, "calls");
  writeFileSync(calls, "");
  writeFileSync(
    join(bin, "npm"),
    `#!/bin/sh\necho "npm $* (engine $(node -p 'require("./engine/package.json").version'))" >> "${calls}"\n`,
  );
  chmodSync(join(bin, "npm"), 0o755);
  return { bin, calls };
}

/** Runs `script` in the fork as a shell runs the docs' lines, stopping at the first that fails; `env` adds variables. */
function runInFork(fork: string, script: string, env: Record<string, string> = {}): SpawnSyncReturns<string> & { npm: string[] } {
  const npm = recordingNpm();
  const result = spawnSync("sh", ["-ec", script], {
    cwd: fork,
    encoding: "utf8",
    env: { ...process.env, ...env, PATH: `${npm.bin}:${process.env.PATH}` },
  });
  return { ...result, npm: readFileSync(npm.calls, "utf8").split("\n").filter(Boolean) };
}

/** The docs' lines with the template's URL filled in (the one thing a fork writes into them). */
const withTemplate = (lines: string[], template: string) => lines.join("\n").replace(TEMPLATE_URL, `'${template}'`);
const outputOf = (result: SpawnSyncReturns<string>) => `${result.stdout}\n${result.stderr}`;

/**
 * The engine as a folder of this repository, the one these lines update. An app that installs the published package
 * instead (the engine's tarball check makes one) has no engine/ to update: there the section does not apply.
 */
const hasEngineFolder = existsSync(join(root, "engine/package.json"));

describe.skipIf(!hasEngineFolder)("taking a newer engine, as docs/development.md says", { timeout: 120_000 }, () => {
  let template: string;
  /** Forks made before the template's newer engine: one takes it, one tries refs that must be refused. */
  let forks: { updated: string; refused: string };
  /** The engine file the newer engine removed. */
  let removed: string;
  beforeAll(() => {
    template = copyOfRepository("engine-update-template");
    dirs.push(template);
    forks = { updated: forkOf(template), refused: forkOf(template) };
    removed = releaseNewerEngine(template);
  }, 120_000);

  it("is three lines: add the template as the remote upstream (once), choose a ref, then fetch, check, restore engine/ and npm install", () => {
    expect(lines).toHaveLength(3);
    expect(addRemote).toBe(lines[0]);
    expect(lines[0]!.split(TEMPLATE_URL)).toHaveLength(2);
    expect(lines[1]).toMatch(/^REF=\S+/);
    expect(update).toBe(lines[2]);
    expect(update).toContain('git restore --source="$REF" --staged --worktree -- engine');
    expect(update).toMatch(/&& npm install$/);
    // Nothing else for a fork to fill in: every other line runs as written.
    expect(lines.join("\n").replace(TEMPLATE_URL, "")).not.toMatch(/<[^>\n]+>/);
  });

  it("run as written, takes the template's engine, removes what it removed, keeps the fork's work in src/, and installs it", () => {
    const fork = forks.updated;
    const tools = readFileSync(join(fork, "src/tools.ts"), "utf8");
    const result = runInFork(fork, withTemplate(lines, template));
    expect(result.status, outputOf(result)).toBe(0);

    // engine/ is exactly the template's, in the working tree and staged, at the ref the docs chose.
    const ref = /^REF=(\S+)/.exec(lines[1]!)![1]!;
    for (const args of [
      ["diff", "--quiet", ref, "--", "engine"],
      ["diff", "--cached", "--quiet", ref, "--", "engine"],
    ]) {
      expect(spawnSync("git", args, { cwd: fork }).status, `git ${args.join(" ")}`).toBe(0);
    }
    expect(existsSync(join(fork, ADDED))).toBe(true);
    expect(existsSync(join(fork, removed))).toBe(false);
    expect(JSON.parse(readFileSync(join(fork, "engine/package.json"), "utf8")).version).toBe(NEWER_VERSION);

    // Outside engine/, the one change is the fork's own uncommitted work; its committed tool is as it was.
    const changes = git(fork, "status", "--porcelain").split("\n").filter(Boolean);
    expect(changes.filter((line) => !line.slice(3).startsWith("engine/"))).toEqual([" M src/index.ts"]);
    expect(readFileSync(join(fork, "src/index.ts"), "utf8")).toContain("// the fork's work in progress\n");
    expect(readFileSync(join(fork, "src/tools.ts"), "utf8")).toBe(tools);

    // npm install ran once, after the restore: it found the newer engine.
    expect(result.npm).toEqual([`npm install (engine ${NEWER_VERSION})`]);
  });

  it("fails on a ref without an engine, or no such ref, saying which, and changes nothing", () => {
    const fork = forks.refused;
    const added = runInFork(fork, withTemplate([addRemote!], template));
    expect(added.status, outputOf(added)).toBe(0);
    const status = git(fork, "status", "--porcelain");
    const version = JSON.parse(readFileSync(join(fork, "engine/package.json"), "utf8")).version;
    for (const [ref, says] of [
      ["upstream/without-engine", "path 'engine/package.json' exists on disk, but not in 'upstream/without-engine'"],
      ["upstream/no-such-branch", "invalid object name 'upstream/no-such-branch'"],
    ] as const) {
      // The docs' update line, with this ref chosen instead of theirs.
      const result = runInFork(fork, update!, { REF: ref });
      expect(result.status, ref).not.toBe(0);
      expect(result.stderr, ref).toContain(says);
      expect(result.npm, ref).toEqual([]);
      expect(git(fork, "status", "--porcelain"), ref).toBe(status);
      expect(JSON.parse(readFileSync(join(fork, "engine/package.json"), "utf8")).version, ref).toBe(version);
    }
  });
});
