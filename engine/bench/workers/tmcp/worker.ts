/**
 * Peer: tmcp 1.20.0 with @tmcp/transport-http 0.9.0 and @tmcp/adapter-zod 0.1.7, as its README sets it up: one
 * `McpServer` and one `HttpTransport` at module scope, answering on `/mcp`. It speaks 2026-07-28 per request (the
 * headers and `_meta` of that revision; each answer is a request-scoped SSE stream); a 2025 client would open a
 * session instead, which is not what a stateless deployment wants, so the bench calls it the 2026 way.
 * Needs `nodejs_compat` (AsyncLocalStorage). Its per-request POST always answers as an SSE stream (there is no JSON
 * form), so it is the one Worker here whose answers are not JSON. The tool's schema is zod/mini, as the template's:
 * tmcp validates through Standard Schema, and its zod adapter's `z.toJSONSchema` converts any zod 4 schema.
 */
import { ZodJsonSchemaAdapter } from "@tmcp/adapter-zod";
import { HttpTransport } from "@tmcp/transport-http";
import { McpServer } from "tmcp";
import * as z from "zod/mini";

const server = new McpServer(
  { name: "bench-tmcp", version: "1.0.0", description: "bench peer" },
  { adapter: new ZodJsonSchemaAdapter(), capabilities: { tools: {} } },
);

server.tool(
  { name: "echo", description: "Echoes the text back.", schema: z.strictObject({ text: z.string().check(z.maxLength(100)) }) },
  ({ text }) => ({
    content: [{ type: "text", text }],
  }),
);

const transport = new HttpTransport(server, { path: "/mcp" });

export default {
  async fetch(request: Request) {
    return (await transport.respond(request)) ?? new Response("Not found", { status: 404 });
  },
};
