#!/usr/bin/env node
import { setMaxListeners } from "node:events";
/**
 * `npm run bench:listen`: fan-out of subscriptions/listen through the Durable Object hub, on 127.0.0.1.
 *
 * For N in (100, 1000, 10000): serves the template's `wrangler deploy --dry-run` bundle from Miniflare (workerd on
 * 127.0.0.1, no dev proxy, which would hold about 3 file descriptors per stream), opens N listen streams for
 * updates of one topic, then touches an item of it M times (each publishes one resources/updated to every listener) and
 * measures: delivered / expected, delivery latency p50 / p99 (publish start to arrival, one clock), how long the
 * publishing tool call took (the hubs' side of the fan-out: it returns once every shard has sent the event to its
 * listeners' Workers), the shards each hub group opened, the resident memory of workerd, and the load average.
 * The rate limiter is lifted (all streams come from one address); every other setting is the template's default
 * but one: a caller's listener share is lifted (bench/workers/listen/worker.ts). Bounded: every phase has a timeout;
 * everything is stopped.
 * Not a test: nothing asserts on timing.
 *
 * Environment: LISTEN_SIZES (default 100,1000,10000), LISTEN_EVENTS (default 20, and 3 from 10,000 listeners).
 * Each stream holds one socket in this process and one in workerd: the open-file limit
 * (`ulimit -n`) must exceed the largest size; the bench checks it first.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildWorker } from "./lib/build.mjs";
import { cpuSeconds } from "./lib/cpu.mjs";
import { serveBundle } from "./lib/miniflare.mjs";
import { writeListenConfig } from "./lib/template-config.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const SIZES = (process.env.LISTEN_SIZES ?? "100,1000,10000").split(",").map(Number);
/** Fewer events, further apart, for the largest sizes: each must reach every listener before the next starts. */
const eventsFor = (size) => Number(process.env.LISTEN_EVENTS ?? (size >= 10_000 ? 3 : 20));
const gapFor = (size) => (size >= 10_000 ? 3_000 : 100);
const PHASE_TIMEOUT_MS = 60_000;
/** The bench's own open files (the Miniflare connection, stdio, ...) on top of one per stream. */
const SPARE_FILES = 500;
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
const headers = (method, name) => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": method,
  ...(name && { "mcp-name": name }),
});

/** The soft open-file limit of this process (workerd inherits it), from /proc. */
function openFileLimit() {
  const line = readFileSync("/proc/self/limits", "utf8")
    .split("\n")
    .find((row) => row.startsWith("Max open files"));
  const soft = line?.split(/\s{2,}/)[1];
  return soft === undefined || soft === "unlimited" ? Infinity : Number(soft);
}

async function call(url, name, args) {
  const response = await fetch(url, {
    method: "POST",
    headers: headers("tools/call", name),
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args, _meta: META } }),
  });
  const message = await response.json();
  if (message.error || message.result?.isError) throw new Error(`${name} failed: ${JSON.stringify(message)}`);
  return message.result;
}

/** Opens one listen stream for `uri` and what is below it; resolves once acknowledged, then records each event's arrival time. */
function listen(url, id, uri, arrivals, abort) {
  return new Promise((resolve, reject) => {
    fetch(url, {
      method: "POST",
      headers: headers("subscriptions/listen"),
      body: JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "subscriptions/listen",
        params: { notifications: { resourceSubscriptions: [uri] }, _meta: META },
      }),
      signal: abort.signal,
    })
      .then(async (response) => {
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let buffer = "";
        for (;;) {
          const { done, value } = await reader.read();
          if (done) return;
          buffer += decoder.decode(value, { stream: true });
          for (let boundary = buffer.indexOf("\n\n"); boundary !== -1; boundary = buffer.indexOf("\n\n")) {
            const frame = buffer.slice(0, boundary);
            buffer = buffer.slice(boundary + 2);
            const data = frame.split("\n").find((line) => line.startsWith("data: "));
            if (!data) continue;
            const message = JSON.parse(data.slice(6));
            if (message.method === "notifications/subscriptions/acknowledged") resolve();
            else if (message.method === "notifications/resources/updated") arrivals.push(performance.now());
            else if (message.error) reject(new Error(message.error.message));
          }
        }
      })
      .catch((error) => (error.name === "AbortError" ? resolve() : reject(error)));
  });
}

/** Resident memory (MB) of every workerd process started below this one. */
function workerdMemoryMb() {
  const children = new Map();
  for (const pid of readdirSync("/proc").filter((entry) => /^\d+$/.test(entry))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(Number(pid), { ppid, name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")) });
    } catch {
      // the process ended while we looked
    }
  }
  const mine = (pid) => {
    for (let p = children.get(pid)?.ppid; p; p = children.get(p)?.ppid) if (p === process.pid) return true;
    return false;
  };
  let kb = 0;
  for (const [pid, info] of children) {
    if (!info.name.startsWith("workerd") || !mine(pid)) continue;
    const rss = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    kb += rss ? Number(rss[1]) : 0;
  }
  return Math.round(kb / 1024);
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
};
const withTimeout = (promise, what) =>
  Promise.race([promise, new Promise((_, reject) => setTimeout(() => reject(new Error(`${what} timed out`)), PHASE_TIMEOUT_MS))]);

/** How many shards each hub group opened (its root's record), through Miniflare's Durable Object proxy. */
async function shardCounts(mf) {
  const hubs = await mf.getDurableObjectNamespace("SUBSCRIPTIONS");
  const shards = async (name) => hubs.get(hubs.idFromName(name)).shards();
  return { global: await shards("global") };
}

async function run(size, bundle) {
  const EVENTS = eventsFor(size);
  const GAP_MS = gapFor(size);
  const { mf, url, pids } = await serveBundle(config, bundle, {
    bindings: { MCP_ENV: "development" },
    ratelimits: { RATE_LIMITER: { simple: { limit: 1_000_000, period: 60 } } },
  });
  const abort = new AbortController();
  // Every stream listens to this one signal: no listener-count warning (10,000 of them would flood the output).
  setMaxListeners(0, abort.signal);
  try {
    const topic = (await call(url, "open_topic", {})).structuredContent.topic;
    const idleMb = workerdMemoryMb();

    const arrivals = Array.from({ length: size }, () => []);
    const opened = performance.now();
    for (let start = 0; start < size; start += 50) {
      const batch = arrivals
        .slice(start, start + 50)
        .map((list, index) => listen(url, `l${start + index}`, `topic://${topic}`, list, abort));
      await withTimeout(Promise.all(batch), "opening listeners");
    }
    const openSeconds = (performance.now() - opened) / 1000;

    const shards = await shardCounts(mf).catch(() => undefined);

    const published = [];
    const calls = [];
    // CPU used while the events fan out: workerd (hubs and the listeners' Workers) and this process (the clients).
    const cpuBefore = { workerd: cpuSeconds(pids), client: process.cpuUsage() };
    for (let event = 0; event < EVENTS; event++) {
      const start = performance.now();
      published.push(start);
      await call(url, "touch_item", { topic, item: `i${event}` });
      calls.push(performance.now() - start);
      await new Promise((resolve) => setTimeout(resolve, GAP_MS));
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const clientCpu = process.cpuUsage(cpuBefore.client);
    const cpu = { workerd: cpuSeconds(pids) - cpuBefore.workerd, client: (clientCpu.user + clientCpu.system) / 1e6 };
    const loadedMb = workerdMemoryMb();

    // Each arrival belongs to the latest publish that started before it.
    const latencies = arrivals.flatMap((list) => list.map((at) => at - published.filter((start) => start <= at).at(-1)));
    return {
      size,
      openSeconds,
      delivered: latencies.length,
      expected: size * EVENTS,
      events: EVENTS,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: Math.max(...latencies),
      publishCall: percentile(calls, 50),
      shards,
      cpu,
      idleMb,
      loadedMb,
      load: loadavg()[0],
    };
  } finally {
    abort.abort();
    await mf.dispose();
  }
}

process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
process.env.WRANGLER_LOG ??= "error";
const config = writeListenConfig(join(root, "engine/bench/dist"));
const built = await buildWorker(config, join(root, "engine/bench/dist/listen"));
const bundle = join(
  built.outdir,
  built.modules.find((name) => name.endsWith(".js")),
);
const limit = openFileLimit();
if (limit < Math.max(...SIZES) + SPARE_FILES) {
  console.error(
    `The open-file limit is ${limit}: raise it (\`ulimit -n ${Math.max(...SIZES) + SPARE_FILES}\` or more) or lower LISTEN_SIZES.`,
  );
  process.exit(2);
}
const rows = [];
for (const size of SIZES) {
  console.log(`listen fan-out: ${size} listeners x ${eventsFor(size)} events (load average ${loadavg()[0].toFixed(2)}) ...`);
  rows.push(await run(size, bundle));
}
const command = "npm run bench:listen";
const lines = [
  `# subscriptions/listen fan-out (${new Date().toISOString().slice(0, 10)})`,
  "",
  `Command: \`${command}\` — the template's minified bundle in Miniflare on 127.0.0.1 (default limits, a caller's listener share lifted), every`,
  "listener anonymous and from one address, so each joins the global group (and that address's caller group, which only",
  "counts). Each event is a resources/updated published by touch_item; an anonymous caller's events go to the global",
  "group, marked anonymous (20 events 100 ms apart; from 10,000 listeners, 3 events 3 s apart).",
  "Latency runs from the start of the publishing tool call to the event's arrival at the listener (one clock); the",
  "publish call is that tool call's duration (median), which ends once every shard has handed the event to its",
  "listeners' Workers. Shards: those the global group opened. Memory: RSS of the workerd processes.",
  "CPU: seconds used while the events fanned out (from the first publish to 1 s after the last), by workerd (hubs",
  "and the listeners' Workers) and by the bench's own clients; per event: workerd's CPU divided by the events delivered",
  "(the hub's send and the listener's Worker's write together: Miniflare runs both in one workerd process, so the split",
  "between them is not visible here; on Cloudflare each shard is a Durable Object of its own, on its own machine). Load:",
  "the 1-minute load average at the end of the row (2 cores, shared with other work).",
  "",
  "| listeners | open all | delivered / expected | p50 latency | p99 latency | max | publish call | shards | CPU workerd / clients | workerd CPU per delivered event | workerd RSS idle → loaded | load |",
  "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ...rows.map(
    (row) =>
      `| ${row.size} | ${row.openSeconds.toFixed(2)} s | ${row.delivered} / ${row.expected} | ${row.p50.toFixed(1)} ms | ${row.p99.toFixed(1)} ms | ${row.max.toFixed(1)} ms | ${row.publishCall.toFixed(1)} ms | ${row.shards ? row.shards.global : "?"} | ${row.cpu.workerd.toFixed(1)} s / ${row.cpu.client.toFixed(1)} s | ${row.delivered ? ((row.cpu.workerd / row.delivered) * 1e6).toFixed(0) : "?"} µs | ${row.idleMb} → ${row.loadedMb} MB | ${row.load.toFixed(2)} |`,
  ),
  "",
];
mkdirSync(join(root, "engine/bench/results"), { recursive: true });
writeFileSync(join(root, "engine/bench/results/listen.md"), lines.join("\n"));
// The raw rows, for `npm run bench`'s listener target (lib/report.mjs reads the 1,000-listener row).
const raw = { command, date: new Date().toISOString().slice(0, 10), sizes: SIZES, rows };
writeFileSync(join(root, "engine/bench/results/listen.json"), `${JSON.stringify(raw, null, 2)}\n`);
console.log(lines.join("\n"));
process.exit(rows.every((row) => row.delivered === row.expected) ? 0 : 1);
