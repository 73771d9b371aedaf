/**
 * The official MCP tools this folder runs (the conformance suite, the Inspector): their on-demand installs, each into
 * a folder of its own here, never part of the Worker. They run on the Node that runs the script, which the
 * project's engines (>= 22.12) already ask for; `requireNode` names the Node a tool wants when it wants a newer one.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const conformanceTools = join(dirname(fileURLToPath(import.meta.url)), "tools");

/** Runs `npm ci` in `dir` unless `marker` (a path inside it) exists; `what` names the tools in messages. */
export function installTools(dir, marker, what) {
  if (existsSync(join(dir, marker))) return;
  console.log(`Installing ${what} into ${dir} ...`);
  const result = spawnSync("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir, stdio: "inherit" });
  if (result.status !== 0) throw new Error(`npm ci in ${dir} failed`);
}

/** Installs the conformance suite unless it is there; returns its package.json path. */
export function installConformanceSuite() {
  const suite = "node_modules/@modelcontextprotocol/conformance/package.json";
  installTools(conformanceTools, suite, "the conformance suite");
  return join(conformanceTools, suite);
}

/** Stops with one clear error when the running Node is older than `major.minor` (what `what` needs). */
export function requireNode(major, minor, what) {
  const [foundMajor, foundMinor] = process.versions.node.split(".").map(Number);
  if (foundMajor > major || (foundMajor === major && foundMinor >= minor)) return;
  throw new Error(`${what} needs Node.js ${major}.${minor} or newer; this is Node.js ${process.version}.`);
}
