/**
 * Engine CPU per request, in-process, through the ROOT template Worker (src/index.ts with the root wrangler.toml:
 * every binding, MCP_ENV production, STATE_KEYS and ALLOWED_HOSTS set, the rate limiter on). A profiling loop, not
 * part of `npm run bench`: it tells where a request's CPU goes, so what it prints is for people, never an assert.
 *
 *   node bench/profile.mjs [--n 1000] [--runs 7] [--profile] [--heap] [--only tools/call|tools/list|retry] [--worker bench] [--no-limiter]
 *     [--block <name> [--doc <file>]] [--keep <dir>] [--against <dir>]
 *
 * `--keep <dir>` keeps the build (bundle, driver and config) in `<dir>`; `--against <dir>` serves such a kept build
 * beside this one and measures both side by side: each run is one loop of each (their order alternating), and what
 * is printed is each build's median and the median of the per-run ratios. Why side by side: on a shared machine the
 * load drifts between runs minutes apart, but hardly between two loops a second apart. To weigh a change:
 * `--keep /tmp/before` on the commit before it, then `--against /tmp/before` on the change, the same other options.
 *
 * `--block profile-after` writes what it printed, with its command, commit and load, into the `<!-- bench:profile-after -->`
 * block of docs/benchmarks.md (or `--doc`): the only way a profile's figures reach the docs.
 *
 * How: the bundle `wrangler deploy --dry-run` writes is imported by a small driver Worker that calls its `fetch`
 * N times inside one workerd request (the same env, ctx and isolate, as a deployed Worker's requests share them).
 * CPU is the workerd process's on-CPU time from /proc (lib/cpu.mjs: all threads, in nanoseconds), read before and
 * after each run: the median of `--runs` runs is printed in µs per request. With `--profile`, one more run is sampled by V8's CPU
 * profiler through workerd's inspector, and the self time is printed per source module and per function (µs per
 * request), the bundle's `// src/...` module comments telling which source file each line came from; `--save`
 * also writes each sampled profile as `<prefix>.<scenario>.cpuprofile` (for Chrome DevTools). With `--heap`, one more
 * run is sampled by V8's heap profiler instead, and the bytes allocated are printed the same way (bytes per request):
 * what each request leaves for the garbage collector, and where.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ROOT } from "./lib/build.mjs";
import { cpuSample, cpuUsedSince, workerdPids } from "./lib/cpu.mjs";
import { withBlock } from "./lib/generated.mjs";
import { Miniflare, miniflareOptions, quiet } from "./lib/miniflare.mjs";
import { writeTemplateConfigs } from "./lib/template-config.mjs";

const fromRoot = createRequire(join(ROOT, "package.json"));
const fromWrangler = createRequire(fromRoot.resolve("wrangler/package.json"));
const WebSocket = createRequire(fromWrangler.resolve("miniflare"))("ws");

const { values: args } = parseArgs({
  options: {
    n: { type: "string", default: "1000" },
    runs: { type: "string", default: "7" },
    profile: { type: "boolean", default: false },
    heap: { type: "boolean", default: false },
    only: { type: "string" },
    worker: { type: "string", default: "root" },
    top: { type: "string", default: "12" },
    save: { type: "string" },
    // Without the RATE_LIMITER binding: under Miniflare 5 its every limit() is a fetch to a Durable Object, about a
    // millisecond of local CPU that Cloudflare's binding does not cost, which would hide the engine's own profile.
    "no-limiter": { type: "boolean", default: false },
    // Writes what it prints into the doc's `<!-- bench:<block> -->` block (a profile in the docs is one a run wrote).
    block: { type: "string" },
    doc: { type: "string" },
    keep: { type: "string" },
    against: { type: "string" },
  },
});
const N = Number(args.n);
if (!["root", "bench"].includes(args.worker)) throw new Error("--worker is root or bench");
const BENCH_WORKER = args.worker === "bench";
const RUNS = Number(args.runs);
const HOST = "notes.example.com";
const ORIGIN = `https://${HOST}`;
const VERSION = "2026-07-28";
const META = { "io.modelcontextprotocol/protocolVersion": VERSION, "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } };
// A throwaway key: the bench Worker never leaves this machine.
const STATE_KEYS = `bench:${Buffer.from("profile key, 32 bytes or more, never deployed").toString("base64")}`;

/** A 2026-07-28 request as a client sends it (the mirrored Mcp-Method / Mcp-Name headers included). */
function rpc(method, params = {}, name) {
  const headers = {
    host: HOST,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": VERSION,
    "mcp-method": method,
  };
  if (name) headers["mcp-name"] = name;
  return {
    url: `${ORIGIN}/mcp`,
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: META } }),
  };
}

/** The driver: the template's own exports, and `/drive`, which replays the given requests N times in this isolate. */
const DRIVER = `
import worker from "./index.js";
export * from "./index.js";
let served = 0;
export default {
  async fetch(request, env, ctx) {
    if (new URL(request.url).pathname !== "/drive") return worker.fetch(request, env, ctx);
    // \`empty\`: the same loop with a fixed answer in place of the Worker, to tell the driver's own cost.
    const { n, requests, empty } = await request.json();
    let failures = 0;
    let sample;
    let last;
    for (let i = 0; i < n; i++) {
      const r = requests[i % requests.length];
      const headers = new Headers(r.headers);
      // As a client's request arrives: with its length declared (the engine then reads the body in one call).
      headers.set("content-length", String(new TextEncoder().encode(r.body).byteLength));
      // Why a caller per 500 requests: the template's limit is 600 per minute and caller; each run stays under it.
      const caller = Math.floor(served++ / 500);
      headers.set("cf-connecting-ip", "10." + ((caller >> 16) & 255) + "." + ((caller >> 8) & 255) + "." + (caller & 255));
      const inner = new Request(r.url, { method: r.method, headers, body: r.body });
      const response = empty ? new Response('{"result":{}}') : await worker.fetch(inner, env, ctx);
      const text = await response.text();
      last = text;
      if (response.status !== 200 || !text.includes('"result"')) {
        failures++;
        sample ??= response.status + " " + text.slice(0, 300);
      }
    }
    return Response.json({ failures, sample, last });
  },
};
`;

/** The wrangler config profiled: the root one, or the bench template Worker's (written beside the build). */
function configFor(out) {
  return BENCH_WORKER ? writeTemplateConfigs(out)["no-assets"] : join(ROOT, "wrangler.toml");
}

function build() {
  const out = mkdtempSync(join(tmpdir(), "mcp-profile-"));
  const env = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" };
  const config = configFor(join(out, "config"));
  const flags = [
    "--dry-run",
    "--outdir",
    out,
    "-c",
    config,
    "--env-file",
    "test/no-local-settings.env",
    ...(args.profile || args.heap ? ["--no-minify"] : []),
  ];
  const built = spawnSync("npx", ["wrangler", "deploy", ...flags], {
    cwd: ROOT,
    env,
    encoding: "utf8",
  });
  if (built.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${built.stdout}\n${built.stderr}`);
  const entry = readdirSync(out).find((name) => name.endsWith(".js") && name !== "driver.mjs");
  writeFileSync(join(out, "driver.mjs"), DRIVER.replaceAll("./index.js", `./${entry}`));
  return { out, config, entry };
}

async function start({ out, config, entry }, inspectorPort) {
  const { workerOptions } = fromRoot("wrangler").unstable_getMiniflareWorkerOptions(config, undefined, {
    envFiles: [join(ROOT, "test/no-local-settings.env")],
  });
  if (args["no-limiter"]) {
    const { RATE_LIMITER: _limiter, ...others } = workerOptions.ratelimits ?? {};
    workerOptions.ratelimits = others;
  }
  const before = new Set(workerdPids());
  const mf = new Miniflare(
    miniflareOptions({
      ...workerOptions,
      bindings: { ...workerOptions.bindings, STATE_KEYS, ALLOWED_HOSTS: HOST },
      ...quiet,
      modulesRoot: out,
      modules: ["driver.mjs", entry].map((name) => ({
        type: "ESModule",
        path: join(out, name),
        contents: readFileSync(join(out, name), "utf8"),
      })),
      host: "127.0.0.1",
      port: 0,
      cf: false,
      ...(inspectorPort && { inspectorPort }),
    }),
  );
  const url = await mf.ready;
  const pids = workerdPids().filter((pid) => !before.has(pid));
  return { mf, url, pids };
}

/** One request through the driver (setup only): its JSON-RPC result, or a throw. */
async function call(url, request) {
  const message = JSON.parse(await drive(url, [request], 1));
  if (!message.result) throw new Error(`setup call failed: ${JSON.stringify(message).slice(0, 400)}`);
  return message.result;
}

/** Replays the requests n times in the driver's one workerd request; the last answer's text. */
async function drive(url, requests, n, empty = false) {
  const response = await fetch(new URL("/drive", url), { method: "POST", body: JSON.stringify({ n, requests, empty }) });
  const outcome = await response.json();
  if (outcome.failures) throw new Error(`${outcome.failures} of ${n} requests failed, e.g. ${outcome.sample}`);
  return outcome.last;
}

/** The scenarios: one notebook with one note, then tools/list, a get_note call and an MRTR retry (draft_note's form). */
/** The bench Worker's scenarios: tools/list, an echo call, and the confirm tool's retry (one state verified). */
async function benchScenarios(url) {
  const text = "hello bench";
  const asked = await call(url, rpc("tools/call", { name: "confirm", arguments: { text } }, "confirm"));
  if (asked.resultType !== "input_required") throw new Error("confirm did not ask");
  const retry = rpc(
    "tools/call",
    {
      name: "confirm",
      arguments: { text },
      inputResponses: { confirm: { action: "accept", content: { ok: true } } },
      requestState: asked.requestState,
    },
    "confirm",
  );
  return {
    "tools/list": [rpc("tools/list")],
    "tools/call": [rpc("tools/call", { name: "echo", arguments: { text } }, "echo")],
    retry: [retry],
  };
}

async function scenarios(url) {
  if (BENCH_WORKER) return benchScenarios(url);
  const created = await call(url, rpc("tools/call", { name: "create_notebook", arguments: { title: "Bench" } }, "create_notebook"));
  const notebook_id = created.structuredContent.notebook_id;
  const added = await call(url, rpc("tools/call", { name: "add_note", arguments: { notebook_id, title: "t", body: "b" } }, "add_note"));
  const note_id = added.structuredContent.id;
  const getNote = rpc("tools/call", { name: "get_note", arguments: { notebook_id, note_id } }, "get_note");
  // The retry: draft_note's first round asks one form question (not single use, so the same retry can be replayed);
  // the retry declines it and the call completes: one state verified, none minted.
  const draftArgs = { notebook_id, topic: "bench" };
  const asked = await call(url, rpc("tools/call", { name: "draft_note", arguments: draftArgs }, "draft_note"));
  if (asked.resultType !== "input_required") throw new Error("draft_note did not ask");
  const retry = rpc(
    "tools/call",
    { name: "draft_note", arguments: draftArgs, requestState: asked.requestState, inputResponses: { details: { action: "decline" } } },
    "draft_note",
  );
  return { "tools/list": [rpc("tools/list")], "tools/call": [getNote], retry: [retry] };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Warms a served build with one whole loop: a fresh isolate's first loops (its heap growing, its code not yet
 * optimized, its lazy declarations and caches not yet made) are its slowest, and would weigh on the first runs, or
 * say which of two builds happened to warm up first.
 */
async function warm(url, requests) {
  await drive(url, requests, N);
}

async function measure(url, pids, requests) {
  await warm(url, requests);
  const perRequest = [];
  for (let run = 0; run < RUNS; run++) perRequest.push(await timedDrive({ url, pids }, requests));
  return perRequest;
}

/** One loop of N requests through a served build: its workerd's CPU per request, in µs. */
async function timedDrive({ url, pids }, requests, empty = false) {
  const before = cpuSample(pids);
  await drive(url, requests, N, empty);
  return (cpuUsedSince(before) * 1e6) / N;
}

/**
 * `--against`: both builds, one loop each per run (which goes first alternates), and the driver's own loop (the same
 * requests, a fixed answer in place of the Worker); each one's runs, the gross ratios, and the ratios net of the driver.
 */
async function measureSideBySide(served, baseline, requests) {
  for (const server of [served, baseline]) await warm(server.url, requests);
  const runs = { served: [], baseline: [], driver: [], ratios: [], netRatios: [] };
  for (let run = 0; run < RUNS; run++) {
    const order = run % 2 === 0 ? ["served", "baseline", "driver"] : ["driver", "baseline", "served"];
    const measured = {};
    for (const which of order) measured[which] = await timedDrive(which === "baseline" ? baseline : served, requests, which === "driver");
    runs.served.push(measured.served);
    runs.baseline.push(measured.baseline);
    runs.driver.push(measured.driver);
    runs.ratios.push(measured.served / measured.baseline);
    runs.netRatios.push((measured.served - measured.driver) / (measured.baseline - measured.driver));
  }
  return runs;
}

/** A build kept by `--keep`: the folder, its config and its bundle's file name, as `build` returns them. */
function keptBuild(dir) {
  const entry = readdirSync(dir).find((name) => name.endsWith(".js") && name !== "driver.mjs");
  if (!entry) throw new Error(`${dir} holds no kept build (run with --keep ${dir} first)`);
  return { out: dir, config: configFor(join(dir, "config")), entry };
}

/** Which source file each line of the bundle came from, by esbuild's `// path` comments between modules. */
function moduleMap(bundle, configDir) {
  const starts = [];
  bundle.split("\n").forEach((line, index) => {
    // esbuild names each module by its path from the config's folder (the root's, or the bench config's elsewhere).
    const marker = /^\/\/ (\S+\.[cm]?[jt]s)$/.exec(line);
    if (!marker) return;
    const path = relative(ROOT, resolve(configDir, marker[1]));
    starts.push({ line: index, file: path.replace(/^(?:.*\/)?node_modules\/(\.pnpm\/)?/, "npm:") });
  });
  return (line) => {
    let file = "(bundle prelude)";
    for (const start of starts) {
      if (start.line > line) break;
      file = start.file;
    }
    return file;
  };
}

async function inspector(port) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  const target = targets.find((t) => t.title?.includes("core:user")) ?? targets[0];
  const socket = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  let next = 0;
  const pending = new Map();
  socket.on("message", (data) => {
    const message = JSON.parse(data.toString());
    if (message.id !== undefined && pending.has(message.id)) {
      pending.get(message.id)(message);
      pending.delete(message.id);
    }
  });
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = ++next;
      pending.set(id, (message) => (message.error ? reject(new Error(JSON.stringify(message.error))) : resolve(message.result)));
      socket.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => socket.close(), title: target.title };
}

async function profile(name, url, port, requests, fileOf) {
  const cdp = await inspector(port);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 50 });
  await cdp.send("Profiler.start");
  await drive(url, requests, N);
  const { profile: result } = await cdp.send("Profiler.stop");
  // For Chrome DevTools (Performance, "Load profile"): one file per scenario, named after it.
  if (args.save) writeFileSync(`${args.save}.${name.replace("/", "-")}.cpuprofile`, JSON.stringify(result));
  cdp.close();
  const byId = new Map(result.nodes.map((node) => [node.id, node]));
  const self = new Map();
  for (let i = 0; i < result.samples.length; i++)
    self.set(result.samples[i], (self.get(result.samples[i]) ?? 0) + (result.timeDeltas[i] ?? 0));
  const shares = [...self].map(([id, micros]) => ({ callFrame: byId.get(id).callFrame, value: micros }));
  printShares(shares, fileOf, {
    total: "sampled JS-thread time (idle excluded)",
    what: "self time",
    format: (micros) => `${(micros / N).toFixed(1).padStart(7)} µs`,
    unit: (micros) => `${(micros / N).toFixed(1)} µs`,
  });
}

/**
 * `--heap`: what one more run allocates, sampled by V8's heap profiler (one sample per 256 bytes on average), objects
 * already collected by either garbage collector counted too: the bytes a request leaves for the collector, by where
 * they were allocated.
 */
async function heapProfile(url, port, requests, fileOf) {
  const cdp = await inspector(port);
  await cdp.send("HeapProfiler.enable");
  await cdp.send("HeapProfiler.startSampling", {
    samplingInterval: 256,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await drive(url, requests, N);
  const { profile: result } = await cdp.send("HeapProfiler.stopSampling");
  cdp.close();
  const shares = [];
  const walk = (node) => {
    shares.push({ callFrame: node.callFrame, value: node.selfSize });
    for (const child of node.children) walk(child);
  };
  walk(result.head);
  printShares(shares, fileOf, {
    total: "sampled bytes allocated",
    what: "bytes allocated",
    format: (bytes) => `${(bytes / N).toFixed(0).padStart(7)} B`,
    unit: (bytes) => `${(bytes / N).toFixed(0)} B`,
  });
}

/** Prints sampled values (time or bytes) per request: their total, then the largest by source module and by function. */
function printShares(shares, fileOf, { total: totalLabel, what, format, unit }) {
  const byFile = new Map();
  const byFunction = new Map();
  let total = 0;
  for (const { callFrame, value } of shares) {
    const inBundle = callFrame.url.endsWith(built.entry);
    const file = inBundle
      ? fileOf(callFrame.lineNumber)
      : callFrame.url
        ? callFrame.url.split("/").pop()
        : callFrame.functionName || "(native)";
    if (file === "(idle)") continue;
    total += value;
    const name = `${callFrame.functionName || "(anonymous)"} ${file}${inBundle ? `:${callFrame.lineNumber + 1}` : ""}`;
    byFile.set(file, (byFile.get(file) ?? 0) + value);
    byFunction.set(name, (byFunction.get(name) ?? 0) + value);
  }
  const top = (map) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, Number(args.top))
      .map(([name, value]) => `  ${format(value)}  ${((100 * value) / total).toFixed(1).padStart(5)} %  ${name}`)
      .join("\n");
  say(`  ${totalLabel}: ${unit(total)} per request`);
  say(`  ${what} by source module:\n${top(byFile)}`);
  say(`  ${what} by function:\n${top(byFunction)}`);
}

/** What this run printed, for `--block`. */
const printed = [];
function say(text) {
  console.log(text);
  printed.push(text);
}

/** The command's arguments as a reader would rerun them: without `--doc`, a path on this machine. */
function shownArgs() {
  const argv = process.argv.slice(2);
  return argv.filter((arg, i) => arg !== "--doc" && argv[i - 1] !== "--doc");
}

/** The printed profile into the doc's block, with what a reader needs to weigh it: the command, the commit, the load. */
function writeBlock(name, doc) {
  const git = (...argv) => spawnSync("git", argv, { cwd: ROOT, encoding: "utf8" }).stdout.trim();
  const dirty = git("status", "--porcelain", "--", "engine/src").length > 0 ? ", engine/src changed since" : "";
  const header =
    `\`node bench/profile.mjs ${shownArgs().join(" ")}\` on ${git("rev-parse", "--short", "HEAD")}${dirty}, ` +
    `${new Date().toISOString().slice(0, 16)}Z, load average ${loadBefore.toFixed(2)} before the run on ${cpus().length} cores:`;
  const content = [header, "", "```text", ...printed, "```"].join("\n");
  const text = readFileSync(doc, "utf8");
  const written = withBlock(text, name, content);
  if (written === text && !text.includes(`<!-- bench:${name} -->`)) throw new Error(`${doc} has no bench:${name} block`);
  writeFileSync(doc, written);
  console.log(`wrote the ${name} block of ${doc}`);
}

const loadBefore = loadavg()[0];
const built = build();
const fileOf = moduleMap(readFileSync(join(built.out, built.entry), "utf8"), dirname(built.config));
const inspectorPort = args.profile || args.heap ? 9300 + Math.floor(Math.random() * 500) : undefined;
const { mf, url, pids } = await start(built, inspectorPort);
const baseline = args.against ? await start(keptBuild(args.against)) : undefined;
const shown = (values) => values.map((v) => v.toFixed(0)).join(", ");
try {
  const all = await scenarios(url);
  for (const [name, requests] of Object.entries(all)) {
    if (args.only && args.only !== name) continue;
    if (baseline) {
      const runs = await measureSideBySide({ url, pids }, baseline, requests);
      say(
        `${name}: ${median(runs.served).toFixed(0)} µs per request in-process against ${median(runs.baseline).toFixed(0)} µs for ${args.against}: ` +
          `${median(runs.ratios).toFixed(2)}x, the median of ${RUNS} runs' ratios (${runs.ratios.map((r) => r.toFixed(2)).join(", ")}; ` +
          `this build ${shown(runs.served)}; ${args.against} ${shown(runs.baseline)})`,
      );
      const net = (values) => median(values.map((value, run) => value - runs.driver[run])).toFixed(0);
      say(
        `  net of the driver's own loop (${median(runs.driver).toFixed(0)} µs: the same requests, a fixed answer): ` +
          `${net(runs.served)} µs against ${net(runs.baseline)} µs, ${median(runs.netRatios).toFixed(2)}x ` +
          `(${runs.netRatios.map((r) => r.toFixed(2)).join(", ")})`,
      );
    } else {
      const runs = await measure(url, pids, requests);
      say(`${name}: ${median(runs).toFixed(0)} µs per request in-process (median of ${RUNS} runs of ${N}: ${shown(runs)})`);
    }
    if (args.profile) await profile(name, url, inspectorPort, requests, fileOf);
    if (args.heap) await heapProfile(url, inspectorPort, requests, fileOf);
  }
} finally {
  await mf.dispose();
  await baseline?.mf.dispose();
  // The build folder is this run's alone, unless kept (the profile, when saved, goes where --save says).
  if (args.keep) {
    rmSync(args.keep, { recursive: true, force: true });
    cpSync(built.out, args.keep, { recursive: true });
    console.log(`kept the build in ${args.keep}`);
  }
  rmSync(built.out, { recursive: true, force: true });
}
if (args.block) writeBlock(args.block, args.doc ?? join(ROOT, "engine/docs/benchmarks.md"));
