#!/usr/bin/env node
/**
 * `npm run engine:update -- <git ref | path> [--no-check] [--force]`
 *
 * Brings a newer engine into a fork: replaces the engine's own files (ENGINE_PATHS: `src/mcp/` and the engine's
 * tests) with those of a git ref of this repository (for example `upstream/main` after `git fetch upstream`) or of
 * a directory holding a checkout of the template, then runs `npm run check` and `npm test`. The fork's own files
 * (src/*.ts, test/app/, test/e2e/, wrangler.toml, package.json, README.md, docs/) are never touched.
 *
 * Why it refuses to run over uncommitted changes in the engine's files: the replacement would erase them. Commit
 * them first (or pass --force), and review the update with `git diff` before committing it.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** What the engine owns. Everything else in the repository belongs to the fork. */
const ENGINE_PATHS = ["src/mcp", "test/engine", "test/helpers", "test/repo", "test/conformance"];

const root = process.cwd();
const args = process.argv.slice(2);
const source = args.find((arg) => !arg.startsWith("--"));
const check = !args.includes("--no-check");
const force = args.includes("--force");

function fail(message) {
  console.error(`engine:update: ${message}`);
  process.exit(1);
}

const git = (...gitArgs) => execFileSync("git", gitArgs, { cwd: root, encoding: "utf8" });
const versionIn = (dir) => /ENGINE_VERSION = "([^"]+)"/.exec(readFileSync(join(dir, "src/mcp/version.ts"), "utf8"))?.[1];

if (!source) fail("usage: npm run engine:update -- <git ref | path to a checkout of the template> [--no-check] [--force]");
if (!existsSync(join(root, "src/mcp/version.ts"))) fail("run it from the root of a fork (src/mcp/version.ts not found)");

/** The new engine's files, in a directory of their own. */
function fetchSource() {
  if (existsSync(source)) {
    const dir = resolve(source);
    if (!existsSync(join(dir, "src/mcp/version.ts"))) fail(`${dir} holds no engine (src/mcp/version.ts not found)`);
    return dir;
  }
  const present = ENGINE_PATHS.filter((path) => spawnSync("git", ["cat-file", "-e", `${source}:${path}`], { cwd: root }).status === 0);
  if (!present.includes("src/mcp")) fail(`"${source}" is neither a directory nor a git ref that holds src/mcp`);
  const archive = spawnSync("git", ["archive", "--format=tar", source, "--", ...present], { cwd: root, maxBuffer: 1 << 30 });
  if (archive.status !== 0) fail(`git archive ${source} failed: ${archive.stderr}`);
  const dir = mkdtempSync(join(tmpdir(), "engine-update-"));
  execFileSync("tar", ["-x", "-C", dir], { input: archive.stdout });
  return dir;
}

if (!force) {
  const dirty = git("status", "--porcelain", "--", ...ENGINE_PATHS).trim();
  if (dirty) fail(`uncommitted changes in the engine's files would be lost (commit them, or pass --force):\n${dirty}`);
}

const from = fetchSource();
/** A git ref was unpacked into a temporary directory of ours: removed once copied (a directory given is the user's). */
const unpacked = !existsSync(source);
const before = versionIn(root);
const after = versionIn(from);
for (const path of ENGINE_PATHS) {
  if (!existsSync(join(from, path))) continue;
  rmSync(join(root, path), { recursive: true, force: true });
  cpSync(join(from, path), join(root, path), { recursive: true, filter: (file) => !file.includes("node_modules") });
}
if (unpacked) rmSync(from, { recursive: true, force: true });
console.log(`engine:update: engine ${before} -> ${after} (${ENGINE_PATHS.join(", ")} replaced; see src/mcp/CHANGELOG.md)`);

if (check) {
  for (const script of ["check", "test"]) {
    const run = spawnSync("npm", ["run", script], { cwd: root, stdio: "inherit" });
    if (run.status !== 0) fail(`npm run ${script} failed: fix the fork's code against the new engine (git diff shows the update)`);
  }
}
