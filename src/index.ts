/**
 * The Worker entry: builds the MCP server from the declarations in tools.ts, resources.ts, prompts.ts and
 * skills.ts, and exports the Durable Object classes that wrangler.toml binds.
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
};

export default createMcpWorker<Env>(definition);

export { LegacySession, ReplayGuard, SubscriptionHub, TaskRunner } from "mcp-workers-engine";
export { Notebook } from "./notes";
