#!/usr/bin/env node
/**
 * `npm run bench`: builds five Workers the way they would ship, measures size and startup, serves three of them
 * from the same workerd (Miniflare, 127.0.0.1 only) and loads each with the same requests, then writes
 * bench/results/latest.{md,svg,json}.
 *
 *   (a) baseline  - a fixed JSON-RPC answer, nothing parsed: the runtime floor
 *   (b) template  - this template's engine, unchanged (createMcpWorker), with the bench tools
 *   (c) sdk       - @modelcontextprotocol/server 2.4.0 createMcpHandler, with the same tools
 *   plus the empty Worker (startup reference) and the real template (root wrangler.toml, every example).
 *
 * Bounded: a hard time limit stops everything, and every workerd and wrangler it started is stopped on exit.
 * Knobs (for quick trials; the committed results use the defaults): BENCH_ROUNDS, BENCH_SECONDS,
 * BENCH_CONNECTIONS, BENCH_IMPORT_RUNS, BENCH_CHECK_RUNS.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildUploadBundle, buildWorker, checkWrangler, children, killGroup, ROOT } from "./lib/build.mjs";

const BENCH = dirname(fileURLToPath(import.meta.url));
const DIST = join(BENCH, "dist");
const RESULTS = join(BENCH, "results");
const num = (name, fallback) => Number(process.env[name] ?? fallback);
const PARAMS = {
  rounds: num("BENCH_ROUNDS", 5),
  seconds: num("BENCH_SECONDS", 3),
  connections: num("BENCH_CONNECTIONS", 10),
  warmupSeconds: 1,
  importRuns: num("BENCH_IMPORT_RUNS", 9),
  checkRuns: num("BENCH_CHECK_RUNS", 5),
};
const TIME_LIMIT_MS = 10 * 60_000;

const WORKERS = [
  { id: "empty", label: "empty Worker", dir: "workers/empty", note: '`fetch` returns "ok" (startup reference only)' },
  { id: "baseline", label: "baseline", dir: "workers/baseline", loaded: true, note: "fixed answer, runtime floor" },
  {
    id: "template",
    label: "template engine",
    dir: "workers/template",
    loaded: true,
    note: "`createMcpWorker` from src/mcp with `echo` and `confirm` (bench/workers/template)",
  },
  {
    id: "sdk",
    label: "SDK 2.4.0",
    dir: "workers/sdk",
    loaded: true,
    note: "`createMcpHandler` with the same two tools (bench/workers/sdk)",
  },
  {
    id: "real",
    label: "real template",
    config: join(ROOT, "wrangler.toml"),
    note: "root wrangler.toml, src/index.ts with every example (size and startup only)",
  },
].map((worker) => ({ ...worker, config: worker.config ?? join(BENCH, worker.dir, "wrangler.toml") }));

// In-process wrangler calls (reading a Worker's config) would otherwise print setup warnings about secrets.
process.env.WRANGLER_LOG ??= "error";
const started = Date.now();
const loadBefore = loadavg()[0];
const step = (message) => console.log(`\n[bench +${((Date.now() - started) / 1000).toFixed(0)}s] ${message}`);

/** `npm ci` in bench/ when its dependencies are missing or older than its lockfile. */
function ensureBenchDependencies() {
  const installed = join(BENCH, "node_modules/.package-lock.json");
  if (existsSync(installed) && statSync(installed).mtimeMs >= statSync(join(BENCH, "package-lock.json")).mtimeMs) return;
  step("Installing bench dependencies (npm ci in bench/)");
  const result = spawnSync("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: BENCH,
    stdio: "inherit",
    timeout: 300_000,
  });
  if (result.status !== 0) throw new Error("npm ci in bench/ failed");
}

let live = new Set();
async function stopEverything() {
  for (const child of children) killGroup(child);
  await Promise.allSettled([...live].map((mf) => mf.dispose()));
}
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    console.error(`\nbench: ${signal}, stopping`);
    stopEverything().finally(() => process.exit(1));
  });
}
setTimeout(() => {
  console.error(`\nbench: over the ${TIME_LIMIT_MS / 60_000} minute limit, stopping`);
  stopEverything().finally(() => process.exit(1));
}, TIME_LIMIT_MS).unref();

function gitState() {
  const git = (...args) => spawnSync("git", args, { cwd: ROOT, encoding: "utf8" }).stdout?.trim() ?? "";
  return { commit: git("rev-parse", "--short", "HEAD") || "unknown", dirty: git("status", "--porcelain").length > 0 };
}

function commandLine() {
  const overrides = Object.keys(process.env)
    .filter((name) => name.startsWith("BENCH_"))
    .map((name) => `${name}=${process.env[name]} `)
    .join("");
  return `${overrides}${process.env.npm_lifecycle_event === "bench" ? "npm run bench" : "node bench/run.mjs"}`;
}

const version = (path) => JSON.parse(readFileSync(path, "utf8")).version;

async function main() {
  checkWrangler();
  ensureBenchDependencies();
  // Imported only now: they need bench/ dependencies (autocannon) that the step above may just have installed.
  const mini = await import("./lib/miniflare.mjs");
  live = mini.live;
  const { load, median } = await import("./lib/load.mjs");
  const requests = await import("./lib/requests.mjs");
  const { importCost, checkStartup } = await import("./lib/startup.mjs");
  const report = await import("./lib/report.mjs");

  step("Building every Worker with wrangler deploy --dry-run --minify");
  rmSync(DIST, { recursive: true, force: true });
  mkdirSync(DIST, { recursive: true });
  for (const worker of WORKERS) {
    worker.size = await buildWorker(worker.config, join(DIST, worker.id));
    if (worker.size.modules.length !== 1) throw new Error(`${worker.id}: expected one module, got ${worker.size.modules.join(", ")}`);
    // Two copies of a library (say zod from bench/node_modules and from the root) would skew size and startup.
    if (worker.size.duplicates.length) throw new Error(`${worker.id}: bundled twice: ${worker.size.duplicates.join(", ")}`);
    worker.main = join(DIST, worker.id, worker.size.modules[0]);
    worker.bundle = await buildUploadBundle(worker.config, join(DIST, `${worker.id}.bundle`));
    console.log(`  ${worker.id.padEnd(8)} ${worker.size.raw} B raw, ${worker.size.gzip} B gzip -9`);
  }

  step(`Startup: module evaluation on fresh workerd instances (${PARAMS.importRuns} runs each, interleaved)`);
  for (const worker of WORKERS) worker.startup = { importRuns: [], checkRuns: [] };
  for (let run = 0; run < PARAMS.importRuns; run++) {
    for (const worker of WORKERS) {
      const { compatibilityDate, compatibilityFlags } = mini.workerOptionsOf(worker.config);
      worker.startup.importRuns.push(await importCost(worker.main, compatibilityDate, compatibilityFlags));
    }
  }
  step(`Startup: wrangler check startup (${PARAMS.checkRuns} runs each, interleaved)`);
  for (let run = 0; run < PARAMS.checkRuns; run++) {
    for (const worker of WORKERS) worker.startup.checkRuns.push(await checkStartup(worker.bundle, join(DIST, `${worker.id}.cpuprofile`)));
  }
  const empty = WORKERS.find((worker) => worker.id === "empty").startup;
  empty.importMs = median(empty.importRuns);
  empty.checkMs = median(empty.checkRuns);
  for (const { startup } of WORKERS) {
    startup.importMs = median(startup.importRuns);
    startup.importNet = startup.importMs - empty.importMs;
    startup.checkMs = median(startup.checkRuns);
    startup.checkNet = startup.checkMs - empty.checkMs;
  }

  step("Serving baseline, template and SDK Workers from workerd; checking every scenario answers correctly");
  const loaded = WORKERS.filter((worker) => worker.loaded);
  for (const worker of loaded) worker.server = await mini.serveBundle(worker.config, worker.main);
  const isEcho = (result) => result.resultType === "complete" && result.content?.[0]?.text === requests.TEXT;
  const scenarios = [
    { id: "discover", label: "server/discover", check: (r) => r.supportedVersions?.includes("2026-07-28") },
    { id: "list", label: "tools/list", check: (r) => r.tools?.some((tool) => tool.name === "echo") },
    { id: "call", label: "tools/call (zod-validated)", check: isEcho },
    { id: "mrtr", label: "MRTR retry (signed state)", check: isEcho },
  ];
  // Each MCP server mints its own requestState once; the baseline (which reads nothing) gets the template's.
  const states = {};
  for (const id of ["template", "sdk"]) {
    const first = await requests.verify(WORKERS.find((w) => w.id === id).server.url, requests.mrtrFirst());
    if (first.resultType !== "input_required" || typeof first.requestState !== "string")
      throw new Error(`${id}: first MRTR call did not ask for input`);
    states[id] = first.requestState;
  }
  states.baseline = states.template;
  const requestFor = (scenario, worker) =>
    ({ discover: requests.discover, list: requests.toolsList, call: requests.echoCall, mrtr: () => requests.mrtrRetry(states[worker.id]) })[
      scenario.id
    ]();
  for (const scenario of scenarios) {
    for (const worker of loaded) {
      try {
        await requests.verify(worker.server.url, requestFor(scenario, worker), worker.id === "baseline" ? undefined : scenario.check);
      } catch (error) {
        throw new Error(`${worker.id} ${scenario.id}: ${error.message}`);
      }
    }
  }

  step(`Load: warm-up, then ${PARAMS.rounds} rounds x ${scenarios.length} scenarios x ${loaded.length} Workers x ${PARAMS.seconds} s`);
  const options = { connections: PARAMS.connections, seconds: PARAMS.seconds };
  for (const scenario of scenarios) {
    for (const worker of loaded) await load(worker.server.url, requestFor(scenario, worker), { ...options, seconds: PARAMS.warmupSeconds });
  }
  const results = Object.fromEntries(scenarios.map((s) => [s.id, Object.fromEntries(loaded.map((w) => [w.id, { runs: [] }]))]));
  for (let round = 0; round < PARAMS.rounds; round++) {
    // Rotate the order each round so no Worker always runs first or right after the same neighbour.
    const order = loaded.map((_, i) => loaded[(i + round) % loaded.length]);
    for (const scenario of scenarios) {
      for (const worker of order) {
        const run = await load(worker.server.url, requestFor(scenario, worker), { ...options, pids: worker.server.pids });
        results[scenario.id][worker.id].runs.push(run);
        console.log(
          `  round ${round + 1} ${scenario.id.padEnd(8)} ${worker.id.padEnd(8)} ${run.rps.toFixed(0).padStart(6)} req/s  ` +
            `p50 ${run.p50.toFixed(2)} ms  p99 ${run.p99.toFixed(2)} ms  ${run.cpuUs.toFixed(0)} us CPU/req` +
            `${run.failures ? `  ${run.failures} FAILED` : ""}`,
        );
      }
    }
  }
  for (const worker of loaded) await worker.server.mf.dispose();
  const limited = await rateLimitedLoad({ mini, load, median, requests, options });
  const defaults = await defaultsCost({ mini, load, median, requests, options });
  for (const cells of Object.values(results)) {
    for (const cell of Object.values(cells)) {
      cell.rps = median(cell.runs.map((r) => r.rps));
      cell.p50 = median(cell.runs.map((r) => r.p50));
      cell.p99 = median(cell.runs.map((r) => r.p99));
      cell.cpuUs = median(cell.runs.map((r) => r.cpuUs));
      cell.failures = cell.runs.reduce((sum, r) => sum + r.failures, 0);
    }
  }

  const run = {
    command: commandLine(),
    date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    ...gitState(),
    machine: `${cpus().length} x ${cpus()[0]?.model ?? "unknown CPU"}`,
    cpus: cpus().length,
    loadBefore,
    node: process.versions.node,
    versions: {
      wrangler: version(join(ROOT, "node_modules/wrangler/package.json")),
      miniflare: mini.MINIFLARE_VERSION,
      workerd: mini.WORKERD_VERSION,
      sdk: version(join(BENCH, "node_modules/@modelcontextprotocol/server/package.json")),
      autocannon: version(join(BENCH, "node_modules/autocannon/package.json")),
      zod: version(join(ROOT, "node_modules/zod/package.json")),
    },
    params: PARAMS,
    scenarios: scenarios.map(({ id, label }) => ({ id, label })),
    workers: WORKERS.map(({ id, label, note, loaded: isLoaded, size, startup }) => ({
      id,
      label,
      note,
      loaded: !!isLoaded,
      size,
      startup,
    })),
    load: results,
    limited,
    defaults,
    elapsedSeconds: (Date.now() - started) / 1000,
  };
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, "latest.md"), report.markdown(run));
  writeFileSync(join(RESULTS, "latest.svg"), report.svg(run));
  // Paths relative to the repository, so the committed results name no machine's folders.
  const relative = (_key, value) => (typeof value === "string" && value.startsWith(ROOT) ? `.${value.slice(ROOT.length)}` : value);
  writeFileSync(join(RESULTS, "latest.json"), `${JSON.stringify(run, relative, 2)}\n`);

  step("Results (bench/results/latest.md, latest.svg, latest.json)");
  for (const target of report.targets(run)) console.log(`  ${target.ok ? "met   " : "MISSED"} ${target.name}: ${target.measured}`);
  if (report.noise(run) > report.NOISY) {
    console.log(
      `  WARNING: the baseline moved by up to ${((report.noise(run) - 1) * 100).toFixed(0)}% between rounds; the machine was busy. Rerun when it is quiet.`,
    );
  }
  const failed = Object.values(results)
    .flatMap((cells) => Object.values(cells))
    .some((cell) => cell.failures > 0);
  if (failed || limited?.failures || defaults.some((variant) => variant.failures))
    throw new Error("some requests failed under load; see the 'failed requests' column");
}

/**
 * Rate-limited load: the template engine with the limit the template ships (RATE_LIMITER in the root wrangler.toml),
 * loaded from one client with tools/call. Most answers are 429: reported as their own line (answers per second,
 * how many were refused, the Retry-After they carried), never as errors and never as throughput.
 */
async function rateLimitedLoad({ mini, load, median, requests, options }) {
  const template = WORKERS.find((worker) => worker.id === "template");
  const shipped = mini.workerOptionsOf(join(ROOT, "wrangler.toml")).ratelimits?.RATE_LIMITER;
  if (!shipped) return undefined;
  step(`Rate-limited load: the template with the shipped limit (${shipped.simple.limit} per ${shipped.simple.period} s)`);
  const server = await mini.serveBundle(template.config, template.main, { ratelimits: { RATE_LIMITER: shipped } });
  try {
    const runs = [];
    for (let round = 0; round < Math.min(PARAMS.rounds, 3); round++) {
      runs.push(await load(server.url, requests.echoCall(), { ...options, pids: server.pids, limitedIsExpected: true }));
    }
    const refused = await fetch(server.url, { ...requests.echoCall(), signal: AbortSignal.timeout(10_000) });
    await refused.arrayBuffer();
    if (refused.status !== 429) throw new Error(`rate-limited load: expected 429 once over the limit, got ${refused.status}`);
    return {
      limit: shipped.simple,
      rps: median(runs.map((r) => r.rps)),
      limitedShare: runs.reduce((sum, r) => sum + r.limited, 0) / runs.reduce((sum, r) => sum + r.total, 0),
      p50: median(runs.map((r) => r.p50)),
      p99: median(runs.map((r) => r.p99)),
      cpuUs: median(runs.map((r) => r.cpuUs)),
      retryAfter: refused.headers.get("retry-after"),
      failures: runs.reduce((sum, r) => sum + r.failures, 0),
    };
  } finally {
    await server.mf.dispose();
  }
}

/**
 * What each production default costs: the template engine's tools/call with the shipped defaults, then with one
 * default changed at a time (every line served at once, rounds interleaved): the access log for every request
 * (ACCESS_LOG=all) and no RATE_LIMITER binding. Traces cannot be measured here: with no trace consumer the runtime
 * hands out inert spans, as it does in production for requests that are not sampled.
 */
async function defaultsCost({ mini, load, median, requests, options }) {
  const template = WORKERS.find((worker) => worker.id === "template");
  const variants = [
    { id: "shipped", label: "shipped defaults (ACCESS_LOG=errors, RATE_LIMITER bound)", overrides: {} },
    { id: "logAll", label: "ACCESS_LOG=all (a line per request)", overrides: { bindings: { ACCESS_LOG: "all" } } },
    { id: "noLimiter", label: "without the RATE_LIMITER binding", overrides: { ratelimits: {} } },
  ];
  step(`Cost of each default: tools/call, ${variants.length} variants x ${PARAMS.rounds} interleaved rounds`);
  for (const variant of variants) {
    variant.server = await mini.serveBundle(template.config, template.main, variant.overrides);
    await requests.verify(variant.server.url, requests.echoCall());
    await load(variant.server.url, requests.echoCall(), { ...options, seconds: PARAMS.warmupSeconds });
    variant.runs = [];
  }
  try {
    for (let round = 0; round < PARAMS.rounds; round++) {
      for (const variant of round % 2 ? [...variants].reverse() : variants) {
        variant.runs.push(await load(variant.server.url, requests.echoCall(), { ...options, pids: variant.server.pids }));
      }
    }
  } finally {
    for (const variant of variants) await variant.server.mf.dispose();
  }
  return variants.map(({ id, label, runs }) => ({
    id,
    label,
    rps: median(runs.map((r) => r.rps)),
    cpuUs: median(runs.map((r) => r.cpuUs)),
    failures: runs.reduce((sum, r) => sum + r.failures, 0),
  }));
}

try {
  await main();
} catch (error) {
  console.error(`\nbench failed: ${error.stack ?? error}`);
  process.exitCode = 1;
} finally {
  await stopEverything();
}
// Why exit explicitly: autocannon's and Miniflare's sockets can keep the event loop alive a little after disposal.
process.exit(process.exitCode ?? 0);
