/**
 * The Worker entry: builds the MCP server from the declarations in tools.ts, resources.ts, prompts.ts and
 * skills.ts, and exports what wrangler.toml names: the Worker, and each Durable Object class it binds.
 */
import { createMcpWorker } from "mcp-workers-engine";
import { prompts } from "./prompts";
import { resources } from "./resources";
import { skills } from "./skills";
import { tools } from "./tools";

/** The server, exported on its own too: test/e2e/oauth/worker.ts serves the same one with the authorization server. */
export const definition = {
  name: "mcp-notes-server",
  title: "Notes",
  version: "0.1.0",
  instructions:
    "A personal notebook. Call create_notebook once and pass its notebook_id to the other tools. Notes are private to the caller.",
  // Built on the first request, not at startup: constructing the zod schemas would add milliseconds to every cold start.
  declarations: () => ({ tools: tools(), resources, prompts: prompts(), skills }),
  // What wrangler.toml gives the RATE_LIMITER binding (`limit = 600, period = 60`), which the binding cannot tell the
  // engine: the limit a refused caller is told (RateLimit-Limit) and the longest it waits (Retry-After).
  // test/repo/config.test.ts keeps the two equal.
  limits: { rateLimit: { requests: 600, periodMs: 60_000 } },
};

const mcp = createMcpWorker<Env>(definition);

export default mcp;

// The engine's Durable Objects, each bound to this server: single-use multi round-trip state, the listen hub,
// sessions of 2025 clients, long-running tools (a task's object runs this server's tools), and the built-in
// authorization server's state (it holds nothing unless `authorizationServer` is passed above, for AUTH_LOGIN).
export class ReplayGuard extends mcp.ReplayGuard {}
export class SubscriptionHub extends mcp.SubscriptionHub {}
export class LegacySession extends mcp.LegacySession {}
export class TaskRunner extends mcp.TaskRunner {}
export class OAuthState extends mcp.OAuthState {}

// The example's own: one notebook's notes in SQLite storage (src/notes.ts).
export { Notebook } from "./notes";
