/**
 * Peer: @hono/mcp 0.3.2 on Hono 4.13.19 with the SDK v1 line (@modelcontextprotocol/sdk 1.32.2). Stateless: a
 * `StreamableHTTPTransport` without `sessionIdGenerator`, and a fresh `McpServer` and transport for every request.
 * Why per request, unlike @hono/mcp's README (one server and transport at module scope): the transport maps each
 * answer back to its HTTP request by JSON-RPC id alone, so two clients that both send id 1 at the same time collide
 * on a shared one (the SDK's own web-standard transport refuses to be reused across requests in stateless mode).
 * It speaks 2025-11-25: a client sends each request as its own POST with `MCP-Protocol-Version: 2025-11-25` and
 * `Accept: application/json, text/event-stream`; with `enableJsonResponse` (the transport's option) the answer is one
 * JSON body, as the template's, instead of the default one-event SSE stream. The tool's schema is zod/mini, as the
 * template's: SDK v1 takes any zod 4 schema (it parses and converts with `zod/v4-mini` itself).
 * The JSON Schema validator is the SDK's Workers one (@cfworker/json-schema), as the SDK advises for edge runtimes;
 * its default (Ajv) would be built anew on every request.
 */
import { StreamableHTTPTransport } from "@hono/mcp";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { Hono } from "hono";
import * as z from "zod/mini";

const input = z.strictObject({ text: z.string().check(z.maxLength(100)) });

function createServer() {
  const server = new McpServer({ name: "bench-hono-mcp", version: "1.0.0" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  server.registerTool("echo", { description: "Echoes the text back.", inputSchema: input }, ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  return server;
}

const app = new Hono();
app.all("/mcp", async (c) => {
  const transport = new StreamableHTTPTransport({ enableJsonResponse: true });
  await createServer().connect(transport);
  return transport.handleRequest(c);
});

export default app;
