/**
 * Peer: Cloudflare's agents 0.32.0, `createMcpHandler` from `agents/mcp/server` over an SDK v2 `McpServer`
 * (@modelcontextprotocol/server 2.4.0, the exact version agents pins), as its docs set it up: the handler built once
 * at module scope, a fresh server from the factory on every request, served on `/mcp`, its default Origin/Host
 * checks on. It speaks 2026-07-28 (and 2025 clients statelessly). Needs `nodejs_compat` (AsyncLocalStorage).
 * The tool's schema is zod/mini, as the template's: the SDK takes any Standard Schema and converts a zod one with
 * `z.toJSONSchema` (it warns once per isolate that this zod has no `~standard.jsonSchema`, which only classic zod adds).
 * It answers JSON (the SDK's `responseMode` "auto" without notifications).
 */
import { McpServer } from "@modelcontextprotocol/server";
import { createMcpHandler } from "agents/mcp/server";
import * as z from "zod/mini";

const input = z.strictObject({ text: z.string().check(z.maxLength(100)) });

function createServer() {
  const server = new McpServer({ name: "bench-agents", version: "1.0.0" });
  server.registerTool("echo", { description: "Echoes the text back.", inputSchema: input }, ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  return server;
}

const handler = createMcpHandler(createServer);

export default {
  fetch(request: Request, env: unknown, ctx: ExecutionContext) {
    return handler(request, env, ctx);
  },
} satisfies ExportedHandler;
