/**
 * Every Worker the bench builds, what it is, how it is set up and how a real client of its protocol calls it.
 * The table in results/latest.md and bench/README.md is made from these lines.
 *
 * Fields: `label` (`{package}` stands for that package's installed version), `protocol` (the revision the bench
 * speaks to it; see requests.mjs), `packages` (read from the installed package.json files, so the report names
 * exactly what ran), `mrtr` (serves the one-question MRTR tool), `answers` (the form its answers take, JSON or SSE:
 * checked on the first answer of every scenario), `accept` (the Accept header it is sent, when not a conforming
 * client's), `sameBundleAs` (built from the same entry and code as another row: size and startup are that row's),
 * `httpCallOnly` (measured over HTTP with tools/call only), `startupOnly`/`sizeOnly` (not loaded), `floor` (the fixed
 * answer: nothing checked), `reference` (the guarantees' reference: never a peer).
 *
 * Equal terms: every MCP Worker declares its `echo` tool with the same zod/mini schema (every peer takes one; see
 * each Worker's worker.ts), and is called as a conforming client calls it (`Accept: application/json, text/event-stream`),
 * answering in the form it picks for that (mcp-lite and tmcp: SSE); mcp-lite's JSON path (`Accept: application/json`
 * alone, which no conforming client sends) has a row of its own, labelled as its best case.
 */
import { MODERN } from "./requests.mjs";

export const WORKERS = [
  {
    id: "empty",
    label: "empty Worker",
    dir: "workers/empty",
    startupOnly: true,
    setup: '`fetch` returns "ok": the reference that startup is measured against',
  },
  {
    id: "floor",
    label: "fixed-JSON floor",
    dir: "workers/baseline",
    protocol: MODERN,
    floor: true,
    answers: "JSON",
    setup: "reads the body, parses nothing, answers every request with the same precomputed JSON-RPC result",
    called: "the 2026-07-28 requests the template gets, byte for byte",
    differs: "no MCP at all: what workerd and the HTTP path alone cost",
  },
  {
    id: "guarded",
    label: "guarantees' reference (hand-written)",
    dir: "workers/guarded",
    protocol: MODERN,
    reference: true,
    answers: "JSON",
    setup:
      "a hand-written answer to tools/list and the echo call that pays, each in its cheapest form, for the template's checks and " +
      "what it sends (Host, Origin, Content-Type, Accept, strict body read and scan, MCP headers, arguments, span, trace id, " +
      "`_meta`) and for nothing else: the floor no change to the path around those guarantees can go under",
    called: "as the template",
    differs:
      "not an MCP server: the template's guarantees alone, without routing, a method table, a request scope or a rate limit; " +
      "what the template costs above it is the path around its guarantees",
  },
  {
    id: "template",
    label: "template",
    template: "no-assets",
    protocol: MODERN,
    mrtr: true,
    answers: "JSON",
    packages: [],
    setup:
      "`createMcpWorker` from the engine (engine/src/) with `echo` and a one-question MRTR tool (bench/workers/template), on the root " +
      "wrangler.toml (every binding, production mode, traces, the rate limiter counted in the isolate) without `[assets]` and `[build]`: " +
      "as Cloudflare runs it, where asset routing is the platform's",
    called: "2026-07-28: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` headers and `_meta` in params",
    differs:
      "does the most per request: Host and Origin checks, authorization, a per-caller rate limit, body and JSON limits, " +
      "a span, signed state for MRTR; answers JSON (SSE only once a call sends a notification or runs past 1 s)",
  },
  {
    id: "template-assets",
    label: "template behind Miniflare's asset router (local only)",
    template: "shipped",
    protocol: MODERN,
    answers: "JSON",
    sameBundleAs: "template",
    httpCallOnly: true,
    packages: [],
    setup:
      "the same bundle on the root wrangler.toml unchanged: `[assets]` with `run_worker_first`, so locally Miniflare's asset router, " +
      "a JavaScript Worker, runs in front of every request (tools/call over HTTP only; on Cloudflare the platform routes assets)",
    called: "as the template",
  },
  {
    id: "sdk",
    label: "SDK v2 {@modelcontextprotocol/server} `createMcpHandler`",
    dir: "workers/sdk",
    protocol: MODERN,
    mrtr: true,
    packages: ["@modelcontextprotocol/server"],
    answers: "JSON",
    setup: "`createMcpHandler(factory)` built once, a fresh `McpServer` per request, the SDK's HMAC state codec for MRTR",
    called: "2026-07-28 as the template (`responseMode` auto: JSON without notifications)",
    differs:
      "strict header checks, no Host or Origin check, no rate limit; builds a server per request; bundles classic zod for its wire schemas",
  },
  {
    id: "mcp-lite",
    label: "mcp-lite {mcp-lite} (on Hono {hono})",
    dir: "workers/mcp-lite",
    protocol: "2025-06-18",
    packages: ["mcp-lite", "hono"],
    answers: "SSE",
    setup: "fiberplane's Cloudflare starter: a Hono app, one `McpServer` and `StreamableHttpTransport` at module scope, no session adapter",
    called:
      "2025-06-18 stateless POST (after the one-time initialize): `MCP-Protocol-Version: 2025-06-18`, " +
      "`Accept: application/json, text/event-stream` as a conforming client sends it, which it answers with a one-event SSE stream",
    differs: "speaks 2025-06-18 only (no `_meta`, no MRTR); no Host or Origin check, no limits, no rate limit, no span",
  },
  {
    id: "mcp-lite-json",
    label: "mcp-lite {mcp-lite} JSON path (`Accept: application/json` alone: its best case)",
    dir: "workers/mcp-lite",
    protocol: "2025-06-18",
    packages: ["mcp-lite", "hono"],
    answers: "JSON",
    accept: "application/json",
    sameBundleAs: "mcp-lite",
    setup: "the mcp-lite Worker above, unchanged",
    called:
      "as mcp-lite above, but with `Accept: application/json` alone, which no conforming client sends: its one way to answer JSON " +
      "(it has no JSON option), shown as its best case",
    differs: "as mcp-lite above; JSON against the template's JSON",
  },
  {
    id: "tmcp",
    label: "tmcp {tmcp}",
    dir: "workers/tmcp",
    protocol: MODERN,
    packages: ["tmcp", "@tmcp/transport-http", "@tmcp/adapter-zod"],
    answers: "SSE",
    setup: "one `McpServer` (zod adapter) and `HttpTransport` at module scope on `/mcp`; `nodejs_compat`",
    called: "2026-07-28 as the template",
    differs: "answers SSE only (its per-request POST has no JSON form), so its row is SSE against the template's JSON; no rate limit",
  },
  {
    id: "agents",
    label: "agents {agents} `createMcpHandler`",
    dir: "workers/agents",
    protocol: MODERN,
    packages: ["agents", "@modelcontextprotocol/server"],
    answers: "JSON",
    setup:
      "`createMcpHandler` from `agents/mcp/server` built once, an SDK v2 `McpServer` per request, its Origin/Host checks on; `nodejs_compat`",
    called: "2026-07-28 as the template",
    differs: "the SDK's work plus Origin/Host checks and CORS; no rate limit",
  },
  {
    id: "mcp-handler",
    label: "mcp-handler {mcp-handler}",
    dir: "workers/mcp-handler",
    protocol: MODERN,
    packages: ["mcp-handler", "@modelcontextprotocol/server"],
    answers: "JSON",
    setup: "`createMcpHandler((server) => ...)` built once as the Worker's fetch (SDK v2 underneath, a server per request)",
    called: "2026-07-28 as the template",
    differs: "the SDK's work; no Host or Origin check, no rate limit",
  },
  {
    id: "hono-mcp",
    label: "@hono/mcp {@hono/mcp} (SDK {@modelcontextprotocol/sdk})",
    dir: "workers/hono-mcp",
    protocol: "2025-11-25",
    packages: ["@hono/mcp", "@modelcontextprotocol/sdk", "hono"],
    answers: "JSON",
    setup:
      "a Hono app; per request a `StreamableHTTPTransport` (`enableJsonResponse`, no `sessionIdGenerator`) and a fresh SDK v1 `McpServer` " +
      "(a shared stateless transport maps answers by JSON-RPC id only, so concurrent clients would collide), " +
      "the SDK's Workers JSON Schema validator",
    called:
      "2025-11-25 stateless POST (after the one-time initialize): `MCP-Protocol-Version: 2025-11-25`, " +
      "`Accept: application/json, text/event-stream`",
    differs: "speaks 2025-11-25 only (no `_meta`, no MRTR); no Host or Origin check, no rate limit; bundles classic zod and Ajv",
  },
  {
    id: "real",
    label: "real template (src/index.ts)",
    sizeOnly: true,
    setup: "the root wrangler.toml and src/index.ts with every example: what a fork deploys (size and startup only)",
  },
];

/** The Workers served and measured (everything but the startup reference and the size-only real template). */
export const isLoaded = (worker) => !worker.startupOnly && !worker.sizeOnly;
/** The peers: loaded Workers that are neither the floor, the guarantees' reference nor a template row. */
export const isPeer = (worker) => isLoaded(worker) && !worker.floor && !worker.reference && !worker.template;
/** Whether a Worker is measured in a phase ("inprocess" or "http") with a scenario ("list", "call", "mrtr"). */
export const measures = (worker, phase, scenario) =>
  isLoaded(worker) && (scenario !== "mrtr" || !!worker.mrtr) && (!worker.httpCallOnly || (phase === "http" && scenario === "call"));
