/**
 * Engine CPU per request, in-process: many requests through a Worker's own `fetch` inside ONE workerd request, with
 * workerd's CPU read from outside (/proc, see cpu.mjs). Over HTTP, the load generator, the sockets and Miniflare's
 * entry Worker share the 2 cores with the Worker and move its throughput by 10-20% between rounds; a loop inside the
 * isolate leaves only the Worker's own work, so this is the steady figure to compare.
 *
 * How: the Worker's `wrangler deploy --dry-run --minify` bundle is loaded unchanged as a module beside a small driver
 * entry, in one Miniflare instance with the Worker's own bindings (from its wrangler config, Durable Objects, rate
 * limiters and assets included). The driver re-exports the bundle's Durable Object classes and hands every request
 * but its own to the bundle's default export, so the Worker's code runs in the same isolate, with the same `env`
 * and `ctx`, as it would when deployed. On `POST /__bench/loop` the driver builds N requests (each with its
 * `Content-Length`, as a request from an HTTP client has it) and awaits the Worker's `fetch` for each in turn,
 * reading every answer to its end. An "empty" loop (same requests, a fixed answer in place
 * of the Worker) is measured in the same workerd and subtracted: what is left is the Worker's work per request.
 */
import { readFileSync } from "node:fs";
import { cpuSample, cpuUsedSince } from "./cpu.mjs";
import { startDriver } from "./miniflare.mjs";

export const LOOP_PATH = "/__bench/loop";
/** The URL the driver's requests carry: a host every Worker here accepts (loopback, as a local client's). */
export const TARGET_URL = "http://localhost/mcp";

const DRIVER = `import * as target from "./worker.js";
export * from "./worker.js";
const FIXED = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "hello bench" }] } });
export default {
  async fetch(request, env, ctx) {
    if (new URL(request.url).pathname !== ${JSON.stringify(LOOP_PATH)}) return target.default.fetch(request, env, ctx);
    const { n, url, method, headers: sent, body, empty } = await request.json();
    // As a client's request arrives over HTTP: with its length declared (a Request made here has no such header).
    const headers = { ...sent, "content-length": String(new TextEncoder().encode(body).byteLength) };
    let failures = 0;
    let first;
    for (let i = 0; i < n; i++) {
      const inner = new Request(url, { method, headers, body });
      const response = empty
        ? new Response(FIXED, { headers: { "content-type": "application/json" } })
        : await target.default.fetch(inner, env, ctx);
      const text = await response.text();
      if (response.status !== 200) failures++;
      if (i === 0) first = { status: response.status, contentType: response.headers.get("content-type") ?? "", text };
    }
    return Response.json({ failures, first });
  },
};`;

/** One Worker's bundle behind the driver, with its own bindings (plus `overrides`, as serveBundle takes them). */
export async function serveInProcess(config, mainModule, overrides = {}) {
  return startDriver(config, DRIVER, readFileSync(mainModule, "utf8"), overrides);
}

/**
 * Runs `n` requests through the Worker's fetch in one workerd request; returns workerd CPU per request in
 * microseconds (all its threads: the Worker, its Durable Objects and binding Workers), the requests that did not
 * answer 200, and the first answer (status, content type, body) for checking.
 */
export async function loop(server, request, n, { empty = false } = {}) {
  const before = cpuSample(server.pids);
  const response = await server.mf.dispatchFetch(`http://localhost${LOOP_PATH}`, {
    method: "POST",
    // Host as an HTTP client sends it (a Request made in the isolate has none unless given one).
    body: JSON.stringify({ n, url: TARGET_URL, ...request, headers: { host: new URL(TARGET_URL).host, ...request.headers }, empty }),
  });
  const result = await response.json();
  const used = cpuUsedSince(before);
  return { cpuUs: (used * 1e6) / n, failures: result.failures, first: result.first };
}
