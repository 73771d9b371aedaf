/**
 * Peer: mcp-lite 0.10.0 on Hono 4.13.19, as fiberplane's Cloudflare starter sets it up: one `McpServer` and one
 * `StreamableHttpTransport` at module scope, no session adapter (stateless). It speaks 2025-06-18 (and 2025-03-26):
 * a client sends each request as its own POST with `MCP-Protocol-Version: 2025-06-18`. It has no option for the
 * answer's form: with `text/event-stream` in `Accept` (which a conforming client always sends) the answer is a
 * one-event SSE stream, with `Accept: application/json` alone one JSON body; the bench sends the latter, so it
 * answers JSON as the template does. The tool's schema is zod/mini, as the template's (mcp-lite takes any Standard
 * Schema, and its `schemaAdapter` gives the JSON Schema).
 */
import { Hono } from "hono";
import { McpServer, StreamableHttpTransport } from "mcp-lite";
import * as z from "zod/mini";

const mcp = new McpServer({
  name: "bench-mcp-lite",
  version: "1.0.0",
  schemaAdapter: (schema) => z.toJSONSchema(schema as z.ZodMiniType),
});

mcp.tool("echo", {
  description: "Echoes the text back.",
  inputSchema: z.strictObject({ text: z.string().check(z.maxLength(100)) }),
  handler: ({ text }) => ({ content: [{ type: "text", text }] }),
});

const handle = new StreamableHttpTransport().bind(mcp);
const app = new Hono();
app.all("/mcp", (c) => handle(c.req.raw));

export default app;
