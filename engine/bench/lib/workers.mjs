/**
 * Every Worker the bench builds, what it is, how it is set up and how a real client of its protocol calls it.
 * The table in results/latest.md and bench/README.md is made from these lines.
 *
 * Fields: `label` (`{package}` stands for that package's installed version), `protocol` (the revision the bench speaks to it; see requests.mjs), `packages` (read from the installed
 * package.json files, so the report names exactly what ran), `mrtr` (serves the one-question MRTR tool),
 * `sameBundleAs` (built from the same entry and code as another row: size and startup are that row's),
 * `startupOnly`/`sizeOnly` (not loaded).
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
    setup: "reads the body, parses nothing, answers every request with the same precomputed JSON-RPC result",
    called: "the 2026-07-28 requests the template gets, byte for byte",
  },
  {
    id: "template",
    label: "template, as shipped",
    template: "shipped",
    protocol: MODERN,
    mrtr: true,
    packages: [],
    setup:
      "`createMcpWorker` from the engine (engine/src/) with `echo` and a one-question MRTR tool (bench/workers/template), on the root " +
      "wrangler.toml unchanged (every binding, production mode, traces, `[assets]` with `run_worker_first`, so Miniflare's " +
      "asset router Worker runs in front of every request)",
    called: "2026-07-28: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` headers and `_meta` in params; JSON answers",
  },
  {
    id: "template-no-assets",
    label: "template, no asset hop",
    template: "no-assets",
    protocol: MODERN,
    mrtr: true,
    sameBundleAs: "template",
    packages: [],
    setup: "the same bundle and root config without `[assets]` and `[build]`: nothing in front of the Worker",
    called: "as the row above",
  },
  {
    id: "sdk",
    label: "SDK v2 {@modelcontextprotocol/server} `createMcpHandler`",
    dir: "workers/sdk",
    protocol: MODERN,
    mrtr: true,
    packages: ["@modelcontextprotocol/server"],
    setup: "`createMcpHandler(factory)` built once, a fresh `McpServer` per request, the SDK's HMAC state codec for MRTR",
    called: "2026-07-28 as the template; JSON answers (`responseMode` auto, no notifications)",
  },
  {
    id: "mcp-lite",
    label: "mcp-lite {mcp-lite} (on Hono {hono})",
    dir: "workers/mcp-lite",
    protocol: "2025-06-18",
    packages: ["mcp-lite", "hono"],
    setup: "fiberplane's Cloudflare starter: a Hono app, one `McpServer` and `StreamableHttpTransport` at module scope, no session adapter",
    called:
      "2025-06-18 stateless POST (after the one-time initialize): `MCP-Protocol-Version: 2025-06-18`, " +
      "`Accept: application/json, text/event-stream`; answers come as a one-event SSE stream",
  },
  {
    id: "tmcp",
    label: "tmcp {tmcp}",
    dir: "workers/tmcp",
    protocol: MODERN,
    packages: ["tmcp", "@tmcp/transport-http", "@tmcp/adapter-zod"],
    setup: "one `McpServer` (zod adapter) and `HttpTransport` at module scope on `/mcp`; `nodejs_compat`",
    called: "2026-07-28 as the template; answers come as a request-scoped SSE stream",
  },
  {
    id: "agents",
    label: "agents {agents} `createMcpHandler`",
    dir: "workers/agents",
    protocol: MODERN,
    packages: ["agents", "@modelcontextprotocol/server"],
    setup:
      "`createMcpHandler` from `agents/mcp/server` built once, an SDK v2 `McpServer` per request, its Origin/Host checks on; `nodejs_compat`",
    called: "2026-07-28 as the template; JSON answers",
  },
  {
    id: "mcp-handler",
    label: "mcp-handler {mcp-handler}",
    dir: "workers/mcp-handler",
    protocol: MODERN,
    packages: ["mcp-handler", "@modelcontextprotocol/server"],
    setup: "`createMcpHandler((server) => ...)` built once as the Worker's fetch (SDK v2 underneath, a server per request)",
    called: "2026-07-28 as the template; JSON answers",
  },
  {
    id: "hono-mcp",
    label: "@hono/mcp {@hono/mcp} (SDK {@modelcontextprotocol/sdk})",
    dir: "workers/hono-mcp",
    protocol: "2025-11-25",
    packages: ["@hono/mcp", "@modelcontextprotocol/sdk", "hono"],
    setup:
      "a Hono app; per request a `StreamableHTTPTransport` without `sessionIdGenerator` and a fresh SDK v1 `McpServer` " +
      "(a shared stateless transport maps answers by JSON-RPC id only, so concurrent clients would collide), " +
      "the SDK's Workers JSON Schema validator",
    called:
      "2025-11-25 stateless POST (after the one-time initialize): `MCP-Protocol-Version: 2025-11-25`, " +
      "`Accept: application/json, text/event-stream`; answers come as a one-event SSE stream",
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
/** The peers: loaded Workers that are neither the floor nor a template row. */
export const isPeer = (worker) => isLoaded(worker) && !worker.floor && !worker.template;
