#!/usr/bin/env node
/**
 * `npm run bench`: builds every Worker the way it would ship, measures size and startup, then measures each one
 * twice, side by side in one run, and writes bench/results/latest.{md,svg,json}:
 *
 *   1. In-process CPU per request (lib/inprocess.mjs): many requests through the Worker's own `fetch` inside one
 *      workerd request, workerd's CPU read from /proc, minus an empty loop. The steady figure.
 *   2. HTTP throughput (lib/load.mjs): autocannon against Miniflare on 127.0.0.1.
 *
 * The Workers (lib/workers.mjs): the fixed-JSON floor, the template (as Cloudflare runs it, with no asset router in
 * front; and, over HTTP for tools/call only, behind Miniflare's local asset router as `wrangler dev` serves it), the
 * official SDK v2, and every peer a user would pick instead: mcp-lite, tmcp, agents, mcp-handler and @hono/mcp, each
 * on the same zod/mini schema and answering JSON where it can. Plus the empty Worker (startup reference) and the
 * real template (size and startup).
 *
 * Rounds are interleaved across Workers (the order rotates each round); each Worker's noisy rounds are left out of
 * its medians and ratios, and every target is scored by a median of per-round ratios (see lib/stats.mjs). Bounded:
 * a hard time limit stops everything, and every workerd and wrangler it started is stopped on exit.
 *
 * A full run writes bench/results/latest.{md,svg,json} and the generated blocks of docs/benchmarks.md and the
 * package's README (lib/report.mjs `summary` and `targetTable`), so the three say the same thing. A quick trial (any
 * knob below set) writes bench/dist/trial/ instead and touches neither. Knobs:
 *   BENCH_ROUNDS (5), BENCH_SECONDS (3, per HTTP run), BENCH_CONNECTIONS (10), BENCH_REQUESTS (5000, per in-process
 *   loop), BENCH_IMPORT_RUNS (7), BENCH_CHECK_RUNS (3), BENCH_HTTP_SCENARIOS ("list,call,mrtr"),
 *   BENCH_WORKERS (comma-separated ids; the floor, the guarantees' reference and both template rows are always in), BENCH_TIME_LIMIT_MINUTES (20).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildUploadBundle, buildWorker, checkWrangler, children, killGroup, ROOT } from "./lib/build.mjs";
import { syncGeneratedBlocks } from "./lib/generated.mjs";
import { CHECKS, checkAnswer, scenariosFor, verify } from "./lib/requests.mjs";
import { keptRounds, median, medianOver, noisyRounds } from "./lib/stats.mjs";
import { writeTemplateConfigs } from "./lib/template-config.mjs";
import { isLoaded, isPeer, measures, WORKERS } from "./lib/workers.mjs";

const BENCH = dirname(fileURLToPath(import.meta.url));
const DIST = join(BENCH, "dist");
const RESULTS = join(BENCH, "results");
// Where a quick trial writes its results: beside the builds, never over the committed ones.
const TRIAL_RESULTS = join(DIST, "trial");
const num = (name, fallback) => Number(process.env[name] ?? fallback);
const list = (name, fallback) => (process.env[name] ?? fallback).split(",").filter(Boolean);
const ALWAYS = ["empty", "floor", "guarded", "template", "template-assets", "real"];
const PARAMS = {
  rounds: num("BENCH_ROUNDS", 5),
  seconds: num("BENCH_SECONDS", 3),
  connections: num("BENCH_CONNECTIONS", 10),
  warmupSeconds: 1,
  requests: num("BENCH_REQUESTS", 5000),
  importRuns: num("BENCH_IMPORT_RUNS", 7),
  checkRuns: num("BENCH_CHECK_RUNS", 3),
  httpScenarios: list("BENCH_HTTP_SCENARIOS", "list,call,mrtr"),
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
  { id: "mrtr", label: "MRTR retry (signed state)" },
];
// A fixed, public bench key (the template's STATE_KEYS secret, which production mode requires): the Worker signs
// state for real, but nothing here is secret.
const STATE_KEYS = "bench:YmVuY2gtb25seS1zdGF0ZS1rZXktbm90LWEtc2VjcmV0LTEyMzQ";
const NO_LIMIT = 1_000_000_000;
// The bench template Worker's setting for its in-isolate RATE_LIMITER (workers/template/worker.ts reads it).
const IN_ISOLATE_LIMIT = "BENCH_IN_ISOLATE_RATE_LIMIT";

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

const relativeTo = (path) => path.slice(ROOT.length + 1);

function commandLine() {
  const overrides = Object.keys(process.env)
    .filter((name) => name.startsWith("BENCH_"))
    .map((name) => `${name}=${process.env[name]} `)
    .join("");
  // Through npm, the command as the repository root runs it (the bench is the engine package's script).
  return `${overrides}${process.env.npm_lifecycle_event === "bench" ? "npm run bench -w mcp-workers-engine" : "node bench/run.mjs"}`;
}

const version = (path) => JSON.parse(readFileSync(path, "utf8")).version;
const packageVersion = (name) => version(join(BENCH, "node_modules", name, "package.json"));

/** The last `npm run bench:listen` (results/listen.json), for the listener target; undefined when there is none. */
function lastListenRun() {
  const file = join(RESULTS, "listen.json");
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : undefined;
}

let mini;

/**
 * What the template rows get beyond their config: the STATE_KEYS secret, and the shipped RATE_LIMITER binding with a
 * limit no load reaches (all requests come from one caller; the binding and its code path stay), or with the shipped
 * limit (`shippedLimit`, the rate-limited line). `limiter` says what serves that binding:
 *   "in-isolate" - the bench Worker's own fixed-window counter (workers/template/in-isolate-rate-limit.ts), as
 *                  Miniflare 4 simulated it; Miniflare's RATE_LIMITER is left out, so it is not also called. Every
 *                  template row and the rate-limited line: Miniflare 5's simulator is a Durable Object fetch per
 *                  limit(), a local cost that is neither the engine's nor production's (a native binding).
 *   "miniflare"  - Miniflare 5's local simulator: one labelled line of "what each default costs", so its cost is shown.
 *   "none"       - no RATE_LIMITER binding at all.
 */
function overridesFor(worker, { shippedLimit = false, bindings = {}, limiter = "in-isolate" } = {}) {
  if (!worker.template) return {};
  const { ratelimits = {} } = mini.workerOptionsOf(worker.config);
  const { RATE_LIMITER: shipped, ...others } = ratelimits;
  const base = { bindings: { STATE_KEYS, ...bindings }, ratelimits: others };
  if (!shipped || limiter === "none") return base;
  const simple = shippedLimit ? shipped.simple : { ...shipped.simple, limit: NO_LIMIT };
  if (limiter === "miniflare") return { ...base, ratelimits: { ...others, RATE_LIMITER: { ...shipped, simple } } };
  return { ...base, bindings: { ...base.bindings, [IN_ISOLATE_LIMIT]: { limit: simple.limit, period: simple.period } } };
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
    workers.find((worker) => worker.id === "template"),
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
      reference: !!worker.reference,
      template: worker.template,
      mrtr: !!worker.mrtr,
      loaded: isLoaded(worker),
      peer: isPeer(worker),
      httpCallOnly: !!worker.httpCallOnly,
      answers: worker.answers,
      accept: worker.accept,
      setup: worker.setup,
      called: worker.called,
      differs: worker.differs,
      packages: worker.packages,
      size: worker.size,
      startup: worker.startup,
      sameBundle: worker.sameBundle,
      forms: worker.forms,
    })),
    inprocess: inProcessResults,
    http: httpResults,
    // What served the template rows' RATE_LIMITER (overridesFor): the report says so.
    rateLimiter: "in-isolate",
    limited,
    defaults,
    listen: lastListenRun(),
    elapsedSeconds: (Date.now() - started) / 1000,
  };
  // A quick trial is not the run to quote: its results go beside the builds, and the docs keep the last full run's.
  const trial = run.quickTrial.length > 0;
  const out = trial ? TRIAL_RESULTS : RESULTS;
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "latest.md"), report.markdown(run));
  writeFileSync(join(out, "latest.svg"), report.svg(run));
  // Paths relative to the repository, so the committed results name no machine's folders.
  const relative = (_key, value) => (typeof value === "string" && value.startsWith(ROOT) ? `.${value.slice(ROOT.length)}` : value);
  writeFileSync(join(out, "latest.json"), `${JSON.stringify(run, relative, 2)}\n`);
  const synced = trial ? [] : syncGeneratedBlocks(run);

  step(
    `Results (${relativeTo(out)}/latest.md, latest.svg, latest.json${synced.length ? `; updated ${synced.join(", ")}` : ""}), ` +
      `${run.elapsedSeconds.toFixed(0)} s in all`,
  );
  for (const target of report.targets(run))
    console.log(`  ${target.ok === undefined ? "n/a   " : target.ok ? "met   " : "MISSED"} ${target.name}: ${target.measured}`);
  for (const warning of report.warnings(run)) console.log(`  WARNING: ${warning.text}`);
  const failed = report.failures(run);
  if (failed.length) throw new Error(`some requests failed: ${failed.join("; ")}`);
}

/** Which of `scenarios` `worker` is measured with in `phase`. */
const scenariosOf = (worker, phase, scenarios) => scenarios.filter((scenario) => measures(worker, phase, scenario.id));

/**
 * In-process CPU per request: every Worker measured in process behind the driver in its own workerd, each answer
 * checked once (and its form: JSON or SSE, as the Worker's line says), a whole unmeasured loop of each scenario and an
 * empty one (a fresh isolate's first loops, its heap growing and its code not yet optimized, are its slowest; profile.mjs
 * warms the same way), then rounds
 * (Workers in a rotating order; per Worker an empty loop, then each scenario). A Worker's figure is its gross CPU per
 * request minus the median of its empty loops over every round: the empty loop is the same fixed workload in every
 * round, and one measured once beside each figure would add its own noise (several microseconds) to a figure of a
 * few tens. A round of a cell is noisy when its gross CPU per request is over 1.5x its own median (lib/stats.mjs).
 */
async function inProcessPhase(loaded, inprocess) {
  const measured = loaded.filter((worker) => scenariosOf(worker, "inprocess", SCENARIOS).length > 0);
  step(`In-process: ${PARAMS.rounds} rounds x ${measured.length} Workers, ${PARAMS.requests} requests per loop, answers checked first`);
  const servers = new Map();
  const cells = Object.fromEntries(
    SCENARIOS.map((s) => [
      s.id,
      Object.fromEntries(measured.filter((w) => measures(w, "inprocess", s.id)).map((w) => [w.id, { rounds: [] }])),
    ]),
  );
  const request = async (worker, scenario) => {
    const requests = scenariosFor(worker);
    if (scenario.id !== "mrtr") return requests[scenario.id]();
    // Each MCP server mints its own requestState (first call, answered input_required), fresh each round so the
    // state's lifetime never runs out.
    const first = await inprocess.loop(servers.get(worker.id), requests.mrtrFirst(), 1);
    return requests.mrtrRetry(checkAnswer(first.first, CHECKS.mrtrFirst, worker.answers).result.requestState);
  };
  try {
    for (const worker of measured) {
      servers.set(worker.id, await inprocess.serveInProcess(worker.config, worker.main, overridesFor(worker)));
      worker.forms = {};
      for (const scenario of scenariosOf(worker, "inprocess", SCENARIOS)) {
        const once = await inprocess.loop(servers.get(worker.id), await request(worker, scenario), 1);
        try {
          // The floor answers every request with the same fixed result: nothing of its to check.
          if (!worker.floor) worker.forms[scenario.id] = checkAnswer(once.first, CHECKS[scenario.id], worker.answers).form;
        } catch (error) {
          throw new Error(`${worker.id} ${scenario.id} (in-process): ${error.message}`);
        }
        await inprocess.loop(servers.get(worker.id), await request(worker, scenario), PARAMS.requests);
      }
      await inprocess.loop(servers.get(worker.id), scenariosFor(worker).call(), PARAMS.requests, { empty: true });
    }
    for (let round = 0; round < PARAMS.rounds; round++) {
      // Rotate the order each round so no Worker always runs first or right after the same neighbour.
      const order = measured.map((_, i) => measured[(i + round) % measured.length]);
      for (const worker of order) {
        const server = servers.get(worker.id);
        const emptyLoop = await inprocess.loop(server, scenariosFor(worker).call(), PARAMS.requests, { empty: true });
        const line = [];
        for (const scenario of scenariosOf(worker, "inprocess", SCENARIOS)) {
          const gross = await inprocess.loop(server, await request(worker, scenario), PARAMS.requests);
          cells[scenario.id][worker.id].rounds.push({ grossUs: gross.cpuUs, emptyUs: emptyLoop.cpuUs, failures: gross.failures });
          line.push(`${scenario.id} ${gross.cpuUs.toFixed(0).padStart(5)} us gross${gross.failures ? ` (${gross.failures} FAILED)` : ""}`);
        }
        console.log(`  round ${round + 1} ${worker.id.padEnd(18)} ${line.join("  ")}  (empty loop ${emptyLoop.cpuUs.toFixed(0)} us)`);
      }
    }
  } finally {
    for (const server of servers.values()) await server.mf.dispose();
  }
  for (const byWorker of Object.values(cells)) {
    for (const cell of Object.values(byWorker)) {
      // The Worker's empty loop: the median of the ones measured in each round (one per round, for all its cells).
      cell.emptyUs = median(cell.rounds.map((r) => r.emptyUs));
      for (const round of cell.rounds) round.cpuUs = round.grossUs - cell.emptyUs;
      // The Worker's own fixed workload: its gross CPU per request.
      cell.noisy = noisyRounds(cell.rounds.map((r) => r.grossUs));
      cell.kept = keptRounds(PARAMS.rounds, cell.noisy);
      cell.cpuUs = medianOver(
        cell.rounds.map((r) => r.cpuUs),
        cell.kept,
      );
      cell.failures = cell.rounds.reduce((sum, r) => sum + r.failures, 0);
    }
  }
  return { requests: PARAMS.requests, cells };
}

/**
 * HTTP throughput: every Worker served by Miniflare straight from workerd, autocannon, interleaved rounds. A round
 * of a cell is noisy when its time per request (1 / req/s) is over 1.5x its own median.
 */
async function httpPhase(loaded, load) {
  const scenarios = SCENARIOS.filter((s) => PARAMS.httpScenarios.includes(s.id));
  if (!scenarios.some((s) => s.id === "call")) throw new Error("BENCH_HTTP_SCENARIOS must include call (the ratios are made from it)");
  step(`HTTP: serving ${loaded.length} Workers; checking every scenario answers correctly`);
  const servers = new Map();
  const cells = Object.fromEntries(
    scenarios.map((s) => [s.id, Object.fromEntries(loaded.filter((w) => measures(w, "http", s.id)).map((w) => [w.id, { runs: [] }]))]),
  );
  const request = async (worker, scenario) => {
    const requests = scenariosFor(worker);
    if (scenario.id !== "mrtr") return requests[scenario.id]();
    const first = await verify(servers.get(worker.id).url, requests.mrtrFirst(), CHECKS.mrtrFirst, worker.answers);
    return requests.mrtrRetry(first.result.requestState);
  };
  const options = { connections: PARAMS.connections, seconds: PARAMS.seconds };
  try {
    for (const worker of loaded) {
      servers.set(worker.id, await mini.serveBundle(worker.config, worker.main, overridesFor(worker)));
      for (const scenario of scenariosOf(worker, "http", scenarios)) {
        try {
          if (!worker.floor) await verify(servers.get(worker.id).url, await request(worker, scenario), CHECKS[scenario.id], worker.answers);
        } catch (error) {
          throw new Error(`${worker.id} ${scenario.id} (HTTP): ${error.message}`);
        }
      }
    }
    const cellCount = scenarios.reduce((sum, s) => sum + loaded.filter((w) => measures(w, "http", s.id)).length, 0);
    step(`HTTP load: warm-up, then ${PARAMS.rounds} rounds x ${cellCount} runs x ${PARAMS.seconds} s, ${PARAMS.connections} connections`);
    for (const scenario of scenarios) {
      for (const worker of loaded.filter((w) => measures(w, "http", scenario.id))) {
        await load(servers.get(worker.id).url, await request(worker, scenario), { ...options, seconds: PARAMS.warmupSeconds });
      }
    }
    for (let round = 0; round < PARAMS.rounds; round++) {
      const order = loaded.map((_, i) => loaded[(i + round) % loaded.length]);
      for (const scenario of scenarios) {
        for (const worker of order.filter((w) => measures(w, "http", scenario.id))) {
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
  for (const byWorker of Object.values(cells)) {
    for (const cell of Object.values(byWorker)) {
      cell.noisy = noisyRounds(cell.runs.map((r) => 1 / r.rps));
      cell.kept = keptRounds(PARAMS.rounds, cell.noisy);
      for (const metric of ["rps", "p50", "p99", "cpuUs"]) {
        cell[metric] = medianOver(
          cell.runs.map((r) => r[metric]),
          cell.kept,
        );
      }
      cell.failures = cell.runs.reduce((sum, r) => sum + r.failures, 0);
    }
  }
  return { scenarios: scenarios.map((s) => s.id), cells };
}

/**
 * Rate-limited load: the template with the limit the template ships (RATE_LIMITER in the root
 * wrangler.toml), counted in the isolate as on every template row, loaded from one client with tools/call. Most answers are 429: reported as their own line (answers
 * per second, how many were refused, the Retry-After they carried), never as errors and never as throughput.
 */
async function rateLimitedLoad(template, load) {
  const shipped = mini.workerOptionsOf(template.config).ratelimits?.RATE_LIMITER;
  if (!shipped) return undefined;
  step(`Rate-limited load: the template with the shipped limit (${shipped.simple.limit} per ${shipped.simple.period} s)`);
  const server = await mini.serveBundle(template.config, template.main, overridesFor(template, { shippedLimit: true }));
  const call = scenariosFor(template).call();
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
    // The refusal itself, whatever the load reached (a quick trial's short runs on a busy machine can stay under the
    // limit): a caller is refused by its (limit + 1)-th call in one window, so at most that many more calls find it.
    let refused;
    for (let sent = 0; sent <= shipped.simple.limit && refused?.status !== 429; sent++) {
      refused = await fetch(server.url, { ...call, signal: AbortSignal.timeout(10_000) });
      await refused.arrayBuffer();
    }
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
 * What each production default costs, in-process (tools/call, the template): the shipped defaults, then
 * one changed at a time, each in its own workerd, rounds interleaved: the access log for every request
 * (ACCESS_LOG=all), no RATE_LIMITER binding, and RATE_LIMITER served by Miniflare's own simulator instead of the
 * bench's in-isolate counter (shown so its cost is not hidden; never scored). Traces cannot be measured here: with no trace consumer the runtime
 * hands out inert spans, as it does in production for requests that are not sampled.
 */
async function defaultsCost(template, inprocess) {
  const variants = [
    {
      id: "shipped",
      label: "shipped defaults (ACCESS_LOG=errors, RATE_LIMITER bound, counted in the isolate)",
      overrides: overridesFor(template),
    },
    { id: "logAll", label: "ACCESS_LOG=all (a line per request)", overrides: overridesFor(template, { bindings: { ACCESS_LOG: "all" } }) },
    { id: "noLimiter", label: "without the RATE_LIMITER binding", overrides: overridesFor(template, { limiter: "none" }) },
    {
      id: "miniflareLimiter",
      label: "RATE_LIMITER on Miniflare 5's local simulator (a Durable Object fetch per limit(); not production's cost)",
      overrides: overridesFor(template, { limiter: "miniflare" }),
    },
  ];
  step(`Cost of each default, in-process: tools/call, ${variants.length} variants x ${PARAMS.rounds} interleaved rounds`);
  const call = scenariosFor(template).call();
  try {
    for (const variant of variants) {
      variant.server = await inprocess.serveInProcess(template.config, template.main, variant.overrides);
      checkAnswer((await inprocess.loop(variant.server, call, 1)).first, CHECKS.call);
      await inprocess.loop(variant.server, call, PARAMS.requests);
      await inprocess.loop(variant.server, call, PARAMS.requests, { empty: true });
      variant.rounds = [];
    }
    for (let round = 0; round < PARAMS.rounds; round++) {
      for (const variant of round % 2 ? [...variants].reverse() : variants) {
        const emptyLoop = await inprocess.loop(variant.server, call, PARAMS.requests, { empty: true });
        const gross = await inprocess.loop(variant.server, call, PARAMS.requests);
        variant.rounds.push({ grossUs: gross.cpuUs, emptyUs: emptyLoop.cpuUs, failures: gross.failures });
      }
    }
  } finally {
    for (const variant of variants) await variant.server?.mf.dispose();
  }
  return variants.map(({ id, label, rounds }) => {
    // As in the in-process phase: net of the median of the variant's empty loops.
    const emptyUs = median(rounds.map((r) => r.emptyUs));
    const net = rounds.map((r) => r.grossUs - emptyUs);
    return { id, label, cpuUs: median(net), rounds: net, failures: rounds.reduce((sum, r) => sum + r.failures, 0) };
  });
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
