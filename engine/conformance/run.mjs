#!/usr/bin/env node
/**
 * `npm run conformance`: starts the fixture Worker on 127.0.0.1 and runs the official MCP conformance suite
 * against it for each required revision, and the Skills extension's scenarios, then stops the Worker. Exits
 * non-zero on any unexpected failure.
 *
 * The suite is installed into ./tools on first use (./tools.mjs) and runs on this script's Node.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { unstable_startWorker } from "wrangler";
import { buildFixtureSkills } from "./fixture-skills.mjs";
import { installConformanceSuite } from "./tools.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const REVISIONS = ["2026-07-28", "2025-11-25"];
/**
 * The Skills extension's scenarios (SEP-2640). Why by name: an extension is on no revision's timeline, so
 * `--requirements` (and `--spec-version`) skip them; the fixture serves a skill (skills/) for them to discover.
 */
const SKILLS_SCENARIOS = ["sep-2640-skills-enumeration", "sep-2640-skills-manifest", "sep-2640-skills-directory"];

function runSuite(node, bin, url, revision) {
  const args = [bin, "server", "--url", url, "--requirements", revision];
  const baseline = join(here, `expected-failures.${revision}.yml`);
  if (existsSync(baseline) && /^\s*-/m.test(readFileSync(baseline, "utf8"))) args.push("--expected-failures", baseline);
  console.log(`\n=== Conformance ${revision} (${args.includes("--expected-failures") ? "with" : "no"} expected-failures baseline) ===`);
  return run(node, args, revision);
}

function runScenario(node, bin, url, scenario) {
  console.log(`\n=== Conformance scenario ${scenario} ===`);
  return run(node, [bin, "server", "--url", url, "--scenario", scenario], scenario);
}

/**
 * Runs the suite with its results written to a new folder: kept (and named) when the run fails, to read what each
 * check saw; removed when it passes, so runs leave nothing behind.
 */
function run(node, args, name) {
  const results = mkdtempSync(join(tmpdir(), `conformance-${name}-`));
  return new Promise((resolve) => {
    const child = spawn(node, [...args, "-o", results], { stdio: "inherit", env: { ...process.env, NODE_NO_WARNINGS: "1" } });
    child.on("exit", (code) => {
      if (code === 0) rmSync(results, { recursive: true, force: true });
      else console.log(`The suite's results: ${results}`);
      resolve(code ?? 1);
    });
  });
}

const suitePackage = installConformanceSuite();
const bin = join(dirname(suitePackage), JSON.parse(readFileSync(suitePackage, "utf8")).bin.conformance);
const node = process.execPath;

process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
await buildFixtureSkills();
const worker = await unstable_startWorker({
  config: join(here, "wrangler.toml"),
  dev: { server: { hostname: "127.0.0.1", port: 0 }, inspector: false, watch: false, logLevel: "warn" },
});
let failed = false;
try {
  await worker.ready;
  const url = new URL("/mcp", await worker.url).href;
  console.log(`Fixture Worker ready at ${url}`);
  for (const revision of REVISIONS) {
    const code = await runSuite(node, bin, url, revision);
    console.log(`=== Conformance ${revision}: ${code === 0 ? "passed" : `FAILED (exit ${code})`} ===`);
    failed ||= code !== 0;
  }
  for (const scenario of SKILLS_SCENARIOS) {
    const code = await runScenario(node, bin, url, scenario);
    console.log(`=== Conformance ${scenario}: ${code === 0 ? "passed" : `FAILED (exit ${code})`} ===`);
    failed ||= code !== 0;
  }
} finally {
  await worker.dispose();
}
process.exit(failed ? 1 : 0);
