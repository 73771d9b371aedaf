/**
 * The Node.js and the tools a fork runs on. package.json names the Node the toolchain needs (`engines`, the same for
 * the engine's package); on an older one, each of the README's commands stops at once with one error naming the Node
 * wanted and the Node found: `npm install` through npm itself (`.npmrc`'s engine-strict), `npm test` and `npm run dev`
 * through their `pre` step (scripts/require-node.mjs). Checked on projects that demand a Node newer than any there
 * is, so the check needs no old Node on the machine. And one version of each tool in the tree, pinned.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const pkg = JSON.parse(readFileSync("package.json", "utf8"));
/** The engine's package as the app installed it: engine/ through its link, or the published package's own folder. */
const enginePkg = JSON.parse(readFileSync("node_modules/mcp-workers-engine/package.json", "utf8"));
const lock = JSON.parse(readFileSync("package-lock.json", "utf8"));

/** npm and a fresh Node start in seconds, more on a busy machine: generous, never a timing assert. */
const NPM_TIMEOUT_MS = 60_000;
/** What a fork on an old Node would be told it needs, with every Node there is: newer than any. */
const FUTURE_NODE = ">=99.0.0";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A project in a temporary directory with the template's npm settings, scripts and Node check, wanting `node`. */
function projectWanting(node: string): string {
  const dir = mkdtempSync(join(tmpdir(), "toolchain-"));
  dirs.push(dir);
  cpSync(".npmrc", join(dir, ".npmrc"));
  mkdirSync(join(dir, "scripts"));
  cpSync("scripts/require-node.mjs", join(dir, "scripts/require-node.mjs"));
  // The template's own scripts, whose main step only reports that it ran: what matters is whether it is reached.
  const scripts = { predev: pkg.scripts.predev, dev: "echo DEV-RAN", pretest: pkg.scripts.pretest, test: "echo TEST-RAN" };
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "fork", private: true, engines: { node }, scripts }));
  return dir;
}

const npm = (cwd: string, ...args: string[]) => spawnSync("npm", args, { cwd, encoding: "utf8", timeout: NPM_TIMEOUT_MS });

/** The versions of `name` the lockfile installs, wherever in the tree. */
function lockedVersions(name: string): string[] {
  const entries = Object.entries(lock.packages as Record<string, { version?: string }>);
  const versions = entries.filter(([path]) => path.endsWith(`node_modules/${name}`)).map(([, entry]) => entry.version);
  return [...new Set(versions)].filter((version): version is string => version !== undefined);
}

describe("the Node.js version a fork runs on", () => {
  it("is Node 22.12 or newer in both packages (wrangler 4.164 and vitest 5 need it), enforced with exact pins", () => {
    expect(pkg.engines.node).toBe(">=22.12.0");
    expect(enginePkg.engines.node).toBe(pkg.engines.node);
    const npmrc = readFileSync(".npmrc", "utf8");
    expect(npmrc).toMatch(/^engine-strict=true$/m);
    expect(npmrc).toMatch(/^save-exact=true$/m);
  });

  it("stops npm install with an error that names the Node wanted and the Node found", { timeout: NPM_TIMEOUT_MS }, () => {
    const install = npm(projectWanting(FUTURE_NODE), "install", "--no-audit", "--no-fund", "--offline");
    expect(install.status).not.toBe(0);
    expect(install.stderr).toContain("EBADENGINE");
    expect(install.stderr).toContain(`Required: {"node":"${FUTURE_NODE}"}`);
    expect(install.stderr).toContain(`Actual:   {"node":"${process.version}"`);
  });

  it.each(["test", "run dev"])(
    "stops npm %s before it starts, with one error naming the Node wanted and the Node found",
    { timeout: NPM_TIMEOUT_MS },
    (command) => {
      const run = npm(projectWanting(FUTURE_NODE), ...command.split(" "));
      expect(run.status).not.toBe(0);
      expect(run.stdout).not.toMatch(/TEST-RAN|DEV-RAN/);
      expect(run.stderr).toContain(`This project needs Node.js ${FUTURE_NODE}; this is Node.js ${process.version}`);
    },
  );

  it.each(["test", "run dev"])("lets npm %s run on a Node the project supports", { timeout: NPM_TIMEOUT_MS }, (command) => {
    const run = npm(projectWanting(pkg.engines.node), ...command.split(" "));
    expect(run.stderr).not.toContain("This project needs Node.js");
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/TEST-RAN|DEV-RAN/);
  });

  it("pins, in scripts/pinned-node.sh, a current and an oldest Node that both satisfy engines", () => {
    const script = readFileSync("scripts/pinned-node.sh", "utf8");
    const pinned = (name: string) =>
      /^(\d+)\.(\d+)\.(\d+)$/
        .exec(new RegExp(`^${name}=(\\S+)`, "m").exec(script)?.[1] ?? "")
        ?.slice(1)
        .map(Number);
    const [current, oldest] = [pinned("PINNED_NODE_CURRENT"), pinned("PINNED_NODE_OLDEST")];
    expect(current?.[0]).toBe(26); // the active LTS line since October 2026
    expect(oldest?.[0]).toBe(22); // the oldest line the toolchain supports
    expect(oldest?.[1]).toBeGreaterThanOrEqual(12);
  });
});

describe("the tools in the tree", () => {
  it.each(["wrangler", "miniflare", "workerd", "vitest", "vite", "esbuild", "zod", "typescript"])(
    "has one version of %s, so the tests run on the runtime and bundler that npm run dev and deploy use",
    (name) => {
      expect(lockedVersions(name)).toHaveLength(1);
    },
  );

  it("runs the tests through the Workers test integration's current package, on the wrangler the template pins", () => {
    expect(pkg.devDependencies["@cloudflare/vitest-pool-workers"]).toBeUndefined();
    expect(pkg.devDependencies["@cloudflare/vitest-plugin"]).toMatch(/^\d+\.\d+\.\d+$/);
    expect(lockedVersions("wrangler")).toEqual([pkg.devDependencies.wrangler]);
  });
});
