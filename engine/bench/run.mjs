#!/usr/bin/env node
/**
 * `npm run bench`: builds every Worker the way it would ship, measures size and startup, then measures each one
 * twice, side by side in one run, and writes bench/results/latest.{md,svg,json}:
 *
 *   1. In-process CPU per request (lib/inprocess.mjs): many requests through the Worker's own `fetch` inside one
 *      workerd request, workerd's CPU read from /proc, minus an empty loop. The steady figure.
 *   2. HTTP throughput (lib/load.mjs): autocannon against Miniflare on 127.0.0.1.
 *
 * The Workers (lib/workers.mjs): the fixed-JSON floor, the template twice (as shipped, with the view's assets in
 * front; and without that asset hop), the official SDK v2, and every peer a user would pick instead: mcp-lite,
 * tmcp, agents, mcp-handler and @hono/mcp. Plus the empty Worker (startup reference) and the real template (size
 * and startup).
 *
 * Rounds are interleaved across Workers (the order rotates each round); medians leave out noisy rounds (see
 * lib/stats.mjs). Bounded: a hard time limit stops everything, and every workerd and wrangler it started is stopped
 * on exit. Knobs for quick trials (the committed results use the defaults):
 *   BENCH_ROUNDS (5), BENCH_SECONDS (3, per HTTP run), BENCH_CONNECTIONS (10), BENCH_REQUESTS (2000, per in-process
 *   loop), BENCH_IMPORT_RUNS (7), BENCH_CHECK_RUNS (3), BENCH_HTTP_SCENARIOS ("call,mrtr"; add "list"),
 *   BENCH_WORKERS (comma-separated ids; the floor and both template rows are always in), BENCH_TIME_LIMIT_MINUTES (20).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildUploadBundle, buildWorker, checkWrangler, children, killGroup, ROOT } from "./lib/build.mjs";
import { CHECKS, checkAnswer, scenariosFor, verify } from "./lib/requests.mjs";
import { keptRounds, median, medianOver, noisyRounds } from "./lib/stats.mjs";
import { writeTemplateConfigs } from "./lib/template-config.mjs";
import { isLoaded, isPeer, WORKERS } from "./lib/workers.mjs";

const BENCH = dirname(fileURLToPath(import.meta.url));
const DIST = join(BENCH, "dist");
const RESULTS = join(BENCH, "results");
const num = (name, fallback) => Number(process.env[name] ?? fallback);
const list = (name, fallback) => (process.env[name] ?? fallback).split(",").filter(Boolean);
const ALWAYS = ["empty", "floor", "template", "template-no-assets", "real"];
const PARAMS = {
  rounds: num("BENCH_ROUNDS", 5),
  seconds: num("BENCH_SECONDS", 3),
  connections: num("BENCH_CONNECTIONS", 10),
  warmupSeconds: 1,
  requests: num("BENCH_REQUESTS", 2000),
  warmupRequests: 200,
  importRuns: num("BENCH_IMPORT_RUNS", 7),
  checkRuns: num("BENCH_CHECK_RUNS", 3),
  httpScenarios: list("BENCH_HTTP_SCENARIOS", "call,mrtr"),
  workers: [...new Set([...ALWAYS, ...list("BENCH_WORKERS", WORKERS.map((worker) => worker.id).join(","))])],
  timeLimitMinutes: num("BENCH_TIME_LIMIT_MINUTES", 20),
};
// The knobs that change what is measured (the time limit only stops the run): a run with any of them set is a
// quick trial, and its results say so at the top.
const quickTrialKnobs = () =>
  Object.keys(process.env).filter((name) => name.startsWith("BENCH_") && name !== "BENCH_TIME_LIMIT_MINUTES" && process.env[name] !== "");
const SCENARIOS = [
  { id: "list", label: "tools/list" },
  { id: "call", label: "tools/call (zod-validated echo)" },
  { id: "mrtr", label: "MRTR retry (signed state)", mrtrOnly: true },
];
// A fixed, public bench key (the template's STATE_KEYS secret, which production mode requires): the Worker signs
// state for real, but nothing here is secret.
const STATE_KEYS = "bench:YmVuY2gtb25seS1zdGF0ZS1rZXktbm90LWEtc2VjcmV0LTEyMzQ";
const NO_LIMIT = 1_000_000_000;

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
  console.error(`\nbench: over the ${PARAMS.timeLimitMinutes} minute limit, stopping`);
  stopEverything().finally(() => process.exit(1));
}, PARAMS.timeLimitMinutes * 60_000).unref();

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
const packageVersion = (name) => version(join(BENCH, "node_modules", name, "package.json"));
const appliesTo = (scenario, worker) => !scenario.mrtrOnly || worker.mrtr;

let mini;

/**
 * What the template rows get beyond their config: the STATE_KEYS secret, and (unless `shippedLimit`) the shipped
 * RATE_LIMITER binding with a limit no load reaches (all requests come from one caller; the binding and its code
 * path stay). The rate-limited line keeps the shipped limit.
 */
function overridesFor(worker, { shippedLimit = false, bindings = {}, withoutLimiter = false } = {}) {
  if (!worker.template) return {};
  const { ratelimits = {} } = mini.workerOptionsOf(worker.config);
  const { RATE_LIMITER: limiter, ...others } = ratelimits;
  const kept =
    withoutLimiter || !limiter
      ? others
      : { ...others, RATE_LIMITER: shippedLimit ? limiter : { ...limiter, simple: { ...limiter.simple, limit: NO_LIMIT } } };
  return { bindings: { STATE_KEYS, ...bindings }, ratelimits: kept };
}

async function main() {
  checkWrangler();
  ensureBenchDependencies();
  // Imported only now: they need bench/ dependencies (autocannon) that the step above may just have installed.
  mini = await import("./lib/miniflare.mjs");
  live = mini.live;
  const inprocess = await import("./lib/inprocess.mjs");
  const { load } = await import("./lib/load.mjs");
  const { importCost, checkStartup } = await import("./lib/startup.mjs");
  const report = await import("./lib/report.mjs");

  const workers = WORKERS.filter((worker) => PARAMS.workers.includes(worker.id)).map((worker) => ({ ...worker }));
  step("Building every Worker with wrangler deploy --dry-run --minify");
  rmSync(DIST, { recursive: true, force: true });
  mkdirSync(DIST, { recursive: true });
  const templateConfigs = writeTemplateConfigs(DIST);
  for (const worker of workers) {
    worker.config = worker.template
      ? templateConfigs[worker.template]
      : worker.dir
        ? join(BENCH, worker.dir, "wrangler.toml")
        : join(ROOT, "wrangler.toml");
    worker.size = await buildWorker(worker.config, join(DIST, worker.id));
    if (worker.size.modules.length !== 1) throw new Error(`${worker.id}: expected one module, got ${worker.size.modules.join(", ")}`);
    // Two copies of a library (say zod from bench/node_modules and from the root) would skew size and startup.
    if (worker.size.duplicates.length) throw new Error(`${worker.id}: bundled twice: ${worker.size.duplicates.join(", ")}`);
    worker.main = join(DIST, worker.id, worker.size.modules[0]);
    const twin = workers.find((other) => other.id === worker.sameBundleAs);
    // The same code as another row (the template without [assets]): its startup is that row's, measured once.
    worker.sameBundle = !!twin && readFileSync(twin.main, "utf8") === readFileSync(worker.main, "utf8");
    if (!worker.sameBundle) worker.bundle = await buildUploadBundle(worker.config, join(DIST, `${worker.id}.bundle`));
    worker.packages = (worker.packages ?? []).map((name) => ({ name, version: packageVersion(name) }));
    worker.label = worker.label.replace(/\{([^}]+)\}/g, (_, name) => packageVersion(name));
    console.log(
      `  ${worker.id.padEnd(18)} ${worker.size.raw} B raw, ${worker.size.gzip} B gzip -9${worker.sameBundle ? ` (same code as ${twin.id})` : ""}`,
    );
  }

  const measured = workers.filter((worker) => !worker.sameBundle);
  step(`Startup: module evaluation on fresh workerd instances (${PARAMS.importRuns} runs each, interleaved)`);
  for (const worker of measured) worker.startup = { importRuns: [], checkRuns: [] };
  // One run thrown away first: the very first workerd of a run starts slower (files not yet cached), whichever it is.
  const warm = mini.workerOptionsOf(measured[0].config);
  await importCost(measured[0].main, warm.compatibilityDate, warm.compatibilityFlags);
  for (let run = 0; run < PARAMS.importRuns; run++) {
    for (const worker of measured) {
      const { compatibilityDate, compatibilityFlags } = mini.workerOptionsOf(worker.config);
      worker.startup.importRuns.push(await importCost(worker.main, compatibilityDate, compatibilityFlags));
    }
  }
  step(`Startup: wrangler check startup (${PARAMS.checkRuns} runs each, interleaved)`);
  for (let run = 0; run < PARAMS.checkRuns; run++) {
    for (const worker of measured) worker.startup.checkRuns.push(await checkStartup(worker.bundle, join(DIST, `${worker.id}.cpuprofile`)));
  }
  const empty = workers.find((worker) => worker.id === "empty").startup;
  for (const { startup } of measured) {
    startup.importMs = median(startup.importRuns);
    startup.checkMs = median(startup.checkRuns);
  }
  for (const worker of workers) {
    if (worker.sameBundle) worker.startup = workers.find((other) => other.id === worker.sameBundleAs).startup;
    worker.startup.importNet = worker.startup.importMs - median(empty.importRuns);
    worker.startup.checkNet = worker.startup.checkMs - median(empty.checkRuns);
  }

  const loaded = workers.filter(isLoaded);
  const inProcessResults = await inProcessPhase(loaded, inprocess);
  const httpResults = await httpPhase(loaded, load);
  const limited = await rateLimitedLoad(
    workers.find((worker) => worker.id === "template-no-assets"),
    load,
  );
  const defaults = await defaultsCost(
    workers.find((worker) => worker.id === "template"),
    inprocess,
  );

  const run = {
    command: commandLine(),
    quickTrial: quickTrialKnobs(),
    date: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    ...gitState(),
    machine: `${cpus().length} x ${cpus()[0]?.model ?? "unknown CPU"}`,
    cpus: cpus().length,
    loadBefore,
    loadAfter: loadavg()[0],
    node: process.versions.node,
    versions: {
      wrangler: version(join(ROOT, "node_modules/wrangler/package.json")),
      miniflare: mini.MINIFLARE_VERSION,
      workerd: mini.WORKERD_VERSION,
      autocannon: packageVersion("autocannon"),
      zod: version(join(ROOT, "node_modules/zod/package.json")),
      zodPeers: packageVersion("zod"),
    },
    params: PARAMS,
    scenarios: SCENARIOS,
    workers: workers.map((worker) => ({
      id: worker.id,
      label: worker.label,
      protocol: worker.protocol,
      floor: !!worker.floor,
      template: worker.template,
      mrtr: !!worker.mrtr,
      loaded: isLoaded(worker),
      peer: isPeer(worker),
      setup: worker.setup,
      called: worker.called,
      packages: worker.packages,
      size: worker.size,
      startup: worker.startup,
      sameBundle: worker.sameBundle,
      forms: worker.forms,
    })),
    inprocess: inProcessResults,
    http: httpResults,
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

  step(`Results (bench/results/latest.md, latest.svg, latest.json), ${run.elapsedSeconds.toFixed(0)} s in all`);
  for (const target of report.targets(run))
    console.log(`  ${target.ok === undefined ? "n/a   " : target.ok ? "met   " : "MISSED"} ${target.name}: ${target.measured}`);
  for (const warning of report.warnings(run)) console.log(`  WARNING: ${warning.text}`);
  const failed = report.failures(run);
  if (failed.length) throw new Error(`some requests failed: ${failed.join("; ")}`);
}

/**
 * In-process CPU per request: every loaded Worker behind the driver in its own workerd, each answer checked once,
 * a warm-up loop per scenario, then rounds (Workers in a rotating order; per Worker an empty loop, then each scenario).
 */
async function inProcessPhase(loaded, inprocess) {
  const scenarios = SCENARIOS;
  step(`In-process: ${PARAMS.rounds} rounds x ${loaded.length} Workers, ${PARAMS.requests} requests per loop, answers checked first`);
  const servers = new Map();
  const cells = Object.fromEntries(
    scenarios.map((s) => [s.id, Object.fromEntries(loaded.filter((w) => appliesTo(s, w)).map((w) => [w.id, { rounds: [] }]))]),
  );
  const request = async (worker, scenario) => {
    const requests = scenariosFor(worker.protocol);
    if (scenario.id !== "mrtr") return requests[scenario.id]();
    // Each MCP server mints its own requestState (first call, answered input_required), fresh each round so the
    // state's lifetime never runs out.
    const first = await inprocess.loop(servers.get(worker.id), requests.mrtrFirst(), 1);
    return requests.mrtrRetry(checkAnswer(first.first, CHECKS.mrtrFirst).result.requestState);
  };
  try {
    for (const worker of loaded) {
      servers.set(worker.id, await inprocess.serveInProcess(worker.config, worker.main, overridesFor(worker)));
      worker.forms = {};
      for (const scenario of scenarios.filter((s) => appliesTo(s, worker))) {
        const once = await inprocess.loop(servers.get(worker.id), await request(worker, scenario), 1);
        try {
          // The floor answers every request with the same fixed result: nothing of its to check.
          if (!worker.floor) worker.forms[scenario.id] = checkAnswer(once.first, CHECKS[scenario.id]).form;
        } catch (error) {
          throw new Error(`${worker.id} ${scenario.id} (in-process): ${error.message}`);
        }
        await inprocess.loop(servers.get(worker.id), await request(worker, scenario), PARAMS.warmupRequests);
      }
    }
    for (let round = 0; round < PARAMS.rounds; round++) {
      // Rotate the order each round so no Worker always runs first or right after the same neighbour.
      const order = loaded.map((_, i) => loaded[(i + round) % loaded.length]);
      for (const worker of order) {
        const server = servers.get(worker.id);
        const emptyLoop = await inprocess.loop(server, scenariosFor(worker.protocol).call(), PARAMS.requests, { empty: true });
        const line = [];
        for (const scenario of scenarios.filter((s) => appliesTo(s, worker))) {
          const gross = await inprocess.loop(server, await request(worker, scenario), PARAMS.requests);
          const cpuUs = gross.cpuUs - emptyLoop.cpuUs;
          cells[scenario.id][worker.id].rounds.push({ cpuUs, grossUs: gross.cpuUs, emptyUs: emptyLoop.cpuUs, failures: gross.failures });
          line.push(`${scenario.id} ${cpuUs.toFixed(0).padStart(5)} us${gross.failures ? ` (${gross.failures} FAILED)` : ""}`);
        }
        console.log(`  round ${round + 1} ${worker.id.padEnd(18)} ${line.join("  ")}  (empty loop ${emptyLoop.cpuUs.toFixed(0)} us)`);
      }
    }
  } finally {
    for (const server of servers.values()) await server.mf.dispose();
  }
  // The floor's gross CPU per tools/call (its loop, driver included): a fixed workload, so it shows a busy round.
  const floorCosts = cells.call.floor.rounds.map((r) => r.grossUs);
  const noisy = noisyRounds(floorCosts);
  const kept = keptRounds(PARAMS.rounds, noisy);
  for (const byWorker of Object.values(cells)) {
    for (const cell of Object.values(byWorker)) {
      cell.cpuUs = medianOver(
        cell.rounds.map((r) => r.cpuUs),
        kept,
      );
      cell.failures = cell.rounds.reduce((sum, r) => sum + r.failures, 0);
    }
  }
  return { requests: PARAMS.requests, cells, floorCosts, noisy, kept };
}

/** HTTP throughput: every loaded Worker served by Miniflare straight from workerd, autocannon, interleaved rounds. */
async function httpPhase(loaded, load) {
  const scenarios = SCENARIOS.filter((s) => PARAMS.httpScenarios.includes(s.id));
  if (!scenarios.some((s) => s.id === "call")) throw new Error("BENCH_HTTP_SCENARIOS must include call (the ratios are made from it)");
  step(`HTTP: serving ${loaded.length} Workers; checking every scenario answers correctly`);
  const servers = new Map();
  const cells = Object.fromEntries(
    scenarios.map((s) => [s.id, Object.fromEntries(loaded.filter((w) => appliesTo(s, w)).map((w) => [w.id, { runs: [] }]))]),
  );
  const request = async (worker, scenario) => {
    const requests = scenariosFor(worker.protocol);
    if (scenario.id !== "mrtr") return requests[scenario.id]();
    const first = await verify(servers.get(worker.id).url, requests.mrtrFirst(), CHECKS.mrtrFirst);
    return requests.mrtrRetry(first.result.requestState);
  };
  const options = { connections: PARAMS.connections, seconds: PARAMS.seconds };
  try {
    for (const worker of loaded) {
      servers.set(worker.id, await mini.serveBundle(worker.config, worker.main, overridesFor(worker)));
      for (const scenario of scenarios.filter((s) => appliesTo(s, worker))) {
        try {
          if (!worker.floor) await verify(servers.get(worker.id).url, await request(worker, scenario), CHECKS[scenario.id]);
        } catch (error) {
          throw new Error(`${worker.id} ${scenario.id} (HTTP): ${error.message}`);
        }
      }
    }
    const cellCount = scenarios.reduce((sum, s) => sum + loaded.filter((w) => appliesTo(s, w)).length, 0);
    step(`HTTP load: warm-up, then ${PARAMS.rounds} rounds x ${cellCount} runs x ${PARAMS.seconds} s, ${PARAMS.connections} connections`);
    for (const scenario of scenarios) {
      for (const worker of loaded.filter((w) => appliesTo(scenario, w))) {
        await load(servers.get(worker.id).url, await request(worker, scenario), { ...options, seconds: PARAMS.warmupSeconds });
      }
    }
    for (let round = 0; round < PARAMS.rounds; round++) {
      const order = loaded.map((_, i) => loaded[(i + round) % loaded.length]);
      for (const scenario of scenarios) {
        for (const worker of order.filter((w) => appliesTo(scenario, w))) {
          const server = servers.get(worker.id);
          const run = await load(server.url, await request(worker, scenario), { ...options, pids: server.pids });
          cells[scenario.id][worker.id].runs.push(run);
          console.log(
            `  round ${round + 1} ${scenario.id.padEnd(5)} ${worker.id.padEnd(18)} ${run.rps.toFixed(0).padStart(6)} req/s  ` +
              `p50 ${run.p50.toFixed(2)} ms  p99 ${run.p99.toFixed(2)} ms  ${run.cpuUs.toFixed(0)} us CPU/req` +
              `${run.failures ? `  ${run.failures} FAILED` : ""}`,
          );
        }
      }
    }
  } finally {
    for (const server of servers.values()) await server.mf.dispose();
  }
  // The floor's time per tools/call (1 / its throughput) in each round: a fixed workload, so it shows a busy round.
  const floorCosts = cells.call.floor.runs.map((r) => 1 / r.rps);
  const noisy = noisyRounds(floorCosts);
  const kept = keptRounds(PARAMS.rounds, noisy);
  for (const byWorker of Object.values(cells)) {
    for (const cell of Object.values(byWorker)) {
      for (const metric of ["rps", "p50", "p99", "cpuUs"]) {
        cell[metric] = medianOver(
          cell.runs.map((r) => r[metric]),
          kept,
        );
      }
      cell.failures = cell.runs.reduce((sum, r) => sum + r.failures, 0);
    }
  }
  return { scenarios: scenarios.map((s) => s.id), cells, noisy, kept };
}

/**
 * Rate-limited load: the template (no asset hop) with the limit the template ships (RATE_LIMITER in the root
 * wrangler.toml), loaded from one client with tools/call. Most answers are 429: reported as their own line (answers
 * per second, how many were refused, the Retry-After they carried), never as errors and never as throughput.
 */
async function rateLimitedLoad(template, load) {
  const shipped = mini.workerOptionsOf(template.config).ratelimits?.RATE_LIMITER;
  if (!shipped) return undefined;
  step(`Rate-limited load: the template with the shipped limit (${shipped.simple.limit} per ${shipped.simple.period} s)`);
  const server = await mini.serveBundle(template.config, template.main, overridesFor(template, { shippedLimit: true }));
  const call = scenariosFor(template.protocol).call();
  try {
    const runs = [];
    for (let round = 0; round < Math.min(PARAMS.rounds, 3); round++) {
      runs.push(
        await load(server.url, call, {
          connections: PARAMS.connections,
          seconds: PARAMS.seconds,
          pids: server.pids,
          limitedIsExpected: true,
        }),
      );
    }
    const refused = await fetch(server.url, { ...call, signal: AbortSignal.timeout(10_000) });
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
 * What each production default costs, in-process (tools/call, the template as shipped): the shipped defaults, then
 * one changed at a time, each in its own workerd, rounds interleaved: the access log for every request
 * (ACCESS_LOG=all), and no RATE_LIMITER binding. Traces cannot be measured here: with no trace consumer the runtime
 * hands out inert spans, as it does in production for requests that are not sampled.
 */
async function defaultsCost(template, inprocess) {
  const variants = [
    { id: "shipped", label: "shipped defaults (ACCESS_LOG=errors, RATE_LIMITER bound)", overrides: overridesFor(template) },
    { id: "logAll", label: "ACCESS_LOG=all (a line per request)", overrides: overridesFor(template, { bindings: { ACCESS_LOG: "all" } }) },
    { id: "noLimiter", label: "without the RATE_LIMITER binding", overrides: overridesFor(template, { withoutLimiter: true }) },
  ];
  step(`Cost of each default, in-process: tools/call, ${variants.length} variants x ${PARAMS.rounds} interleaved rounds`);
  const call = scenariosFor(template.protocol).call();
  try {
    for (const variant of variants) {
      variant.server = await inprocess.serveInProcess(template.config, template.main, variant.overrides);
      checkAnswer((await inprocess.loop(variant.server, call, 1)).first, CHECKS.call);
      await inprocess.loop(variant.server, call, PARAMS.warmupRequests);
      variant.rounds = [];
    }
    for (let round = 0; round < PARAMS.rounds; round++) {
      for (const variant of round % 2 ? [...variants].reverse() : variants) {
        const emptyLoop = await inprocess.loop(variant.server, call, PARAMS.requests, { empty: true });
        const gross = await inprocess.loop(variant.server, call, PARAMS.requests);
        variant.rounds.push({ cpuUs: gross.cpuUs - emptyLoop.cpuUs, failures: gross.failures });
      }
    }
  } finally {
    for (const variant of variants) await variant.server?.mf.dispose();
  }
  return variants.map(({ id, label, rounds }) => ({
    id,
    label,
    cpuUs: median(rounds.map((r) => r.cpuUs)),
    rounds: rounds.map((r) => r.cpuUs),
    failures: rounds.reduce((sum, r) => sum + r.failures, 0),
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
