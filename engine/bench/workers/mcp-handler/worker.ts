/**
 * Peer: Vercel's mcp-handler 2.4.0 (SDK v2, @modelcontextprotocol/server 2.4.0, underneath), as its README sets it
 * up: `createMcpHandler((server) => ...)` built once, used as the Worker's fetch (it does not look at the path). It
 * speaks 2026-07-28 (and 2025 clients statelessly); a fresh server per request, as the SDK does. The tool's schema
 * is zod/mini, as the template's (see workers/agents/worker.ts); it answers JSON.
 */
import { createMcpHandler } from "mcp-handler";
import * as z from "zod/mini";

const input = z.strictObject({ text: z.string().check(z.maxLength(100)) });

const handler = createMcpHandler((server) => {
  server.registerTool("echo", { description: "Echoes the text back.", inputSchema: input }, ({ text }) => ({
    content: [{ type: "text", text }],
  }));
});

// Why a wrapper: the handler takes the request alone, and workerd would pass `env` and `ctx` after it.
export default { fetch: (request: Request) => handler(request) };
