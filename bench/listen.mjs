#!/usr/bin/env node
/**
 * `npm run bench:listen`: fan-out of subscriptions/listen through the Durable Object hub, on 127.0.0.1.
 *
 * For N in (100, 1000): serves the template's `wrangler deploy --dry-run` bundle from Miniflare (workerd on
 * 127.0.0.1, no dev proxy, which would hold about 3 file descriptors per stream), opens N listen streams for
 * `resourcesListChanged`, then adds M notes (each publishes one resources/list_changed to every listener) and
 * measures: delivered / expected, delivery latency p50 / p99 (publish start to arrival, one clock), and the resident
 * memory of workerd. The rate limiter is lifted (all streams come from one address); every other setting is the
 * template's default. Bounded: every phase has a timeout; everything is stopped. Not a test: nothing asserts on timing.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildWorker } from "./lib/build.mjs";
import { serveBundle } from "./lib/miniflare.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const SIZES = (process.env.LISTEN_SIZES ?? "100,1000").split(",").map(Number);
const EVENTS = Number(process.env.LISTEN_EVENTS ?? 20);
const GAP_MS = 100;
const PHASE_TIMEOUT_MS = 60_000;
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

/** Opens one listen stream; resolves once acknowledged, then records each event's arrival time. */
function listen(url, id, arrivals, abort) {
  return new Promise((resolve, reject) => {
    fetch(url, {
      method: "POST",
      headers: headers("subscriptions/listen"),
      body: JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "subscriptions/listen",
        params: { notifications: { resourcesListChanged: true }, _meta: META },
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
            else if (message.method === "notifications/resources/list_changed") arrivals.push(performance.now());
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

async function run(size, bundle) {
  const { mf, url } = await serveBundle(join(root, "wrangler.toml"), bundle, {
    bindings: { MCP_ENV: "development" },
    ratelimits: { RATE_LIMITER: { simple: { limit: 1_000_000, period: 60 } } },
  });
  const abort = new AbortController();
  try {
    const notebook = (await call(url, "create_notebook", {})).structuredContent.notebook_id;
    const idleMb = workerdMemoryMb();

    const arrivals = Array.from({ length: size }, () => []);
    const opened = performance.now();
    for (let start = 0; start < size; start += 50) {
      const batch = arrivals.slice(start, start + 50).map((list, index) => listen(url, `l${start + index}`, list, abort));
      await withTimeout(Promise.all(batch), "opening listeners");
    }
    const openSeconds = (performance.now() - opened) / 1000;

    const published = [];
    for (let event = 0; event < EVENTS; event++) {
      published.push(performance.now());
      await call(url, "add_note", { notebook_id: notebook, title: `event ${event}`, body: "x" });
      await new Promise((resolve) => setTimeout(resolve, GAP_MS));
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const loadedMb = workerdMemoryMb();

    // Each arrival belongs to the latest publish that started before it.
    const latencies = arrivals.flatMap((list) => list.map((at) => at - published.filter((start) => start <= at).at(-1)));
    return {
      size,
      openSeconds,
      delivered: latencies.length,
      expected: size * EVENTS,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      idleMb,
      loadedMb,
    };
  } finally {
    abort.abort();
    await mf.dispose();
  }
}

process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
process.env.WRANGLER_LOG ??= "error";
const built = await buildWorker(join(root, "wrangler.toml"), join(root, "bench/dist/listen"));
const bundle = join(
  built.outdir,
  built.modules.find((name) => name.endsWith(".js")),
);
const rows = [];
for (const size of SIZES) {
  console.log(`listen fan-out: ${size} listeners x ${EVENTS} events ...`);
  rows.push(await run(size, bundle));
}
const command = "npm run bench:listen";
const lines = [
  `# subscriptions/listen fan-out (${new Date().toISOString().slice(0, 10)})`,
  "",
  `Command: \`${command}\` — the template's minified bundle in Miniflare on 127.0.0.1, one principal (anonymous),`,
  `${EVENTS} events ${GAP_MS} ms apart, each a resources/list_changed published by add_note. Latency runs from the start of the`,
  "publishing tool call to the event's arrival at the listener (one clock). Memory is the RSS of the workerd processes.",
  "",
  "| listeners | open all | delivered / expected | p50 latency | p99 latency | workerd RSS idle → loaded |",
  "|---:|---:|---:|---:|---:|---:|",
  ...rows.map(
    (row) =>
      `| ${row.size} | ${row.openSeconds.toFixed(2)} s | ${row.delivered} / ${row.expected} | ${row.p50.toFixed(1)} ms | ${row.p99.toFixed(1)} ms | ${row.idleMb} → ${row.loadedMb} MB |`,
  ),
  "",
];
mkdirSync(join(root, "bench/results"), { recursive: true });
writeFileSync(join(root, "bench/results/listen.md"), lines.join("\n"));
console.log(lines.join("\n"));
process.exit(rows.every((row) => row.delivered === row.expected) ? 0 : 1);
