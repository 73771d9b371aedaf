/**
 * Bench Worker (c): the official SDK (`@modelcontextprotocol/server` 2.4.0, `createMcpHandler`) serving the same
 * `echo` tool and the same one-question MRTR tool as the template bench Worker. MRTR uses the SDK's own
 * `inputRequired()` and its HMAC `createRequestStateCodec` (bound to the method; the payload carries the text,
 * which the retry checks), so both sides sign and verify state. The tools' schemas are zod/mini, as the template's:
 * the SDK takes any Standard Schema and converts a zod one with `z.toJSONSchema` (it warns once per isolate that this
 * zod has no `~standard.jsonSchema`, which only classic zod adds). The SDK itself still bundles classic zod for its
 * own wire schemas.
 */

import { acceptedContent, createMcpHandler, createRequestStateCodec, inputRequired, McpServer } from "@modelcontextprotocol/server";
import * as z from "zod/mini";

// A fixed, public bench key (>= 32 bytes), as in the template bench Worker.
const codec = createRequestStateCodec<{ text: string }>({
  key: "bench-only-state-key-not-a-secret-1234",
  bind: (ctx) => ctx.mcpReq.method,
});
const input = z.strictObject({ text: z.string().check(z.maxLength(100)) });
const confirmForm = z.object({ ok: z.boolean() });

function makeServer() {
  const server = new McpServer({ name: "bench-sdk", version: "1.0.0" }, { requestState: { verify: codec.verify } });
  server.registerTool("echo", { description: "Echoes the text back.", inputSchema: input }, ({ text }) => ({
    content: [{ type: "text", text }],
  }));
  server.registerTool(
    "confirm",
    { description: "Asks the user to confirm (one form question), then echoes the text.", inputSchema: input },
    async ({ text }, ctx) => {
      const state = ctx.mcpReq.requestState<{ text: string }>();
      const answer = acceptedContent(ctx.mcpReq.inputResponses, "confirm", confirmForm);
      if (!state || state.text !== text || !answer) {
        return inputRequired({
          inputRequests: { confirm: inputRequired.elicit({ message: "Go ahead?", requestedSchema: confirmForm }) },
          requestState: await codec.mint({ text }, ctx),
        });
      }
      return { content: [{ type: "text", text: answer.ok ? text : "declined" }] };
    },
  );
  return server;
}

// Built once at module scope (the SDK docs' advice); the factory still makes a fresh McpServer per request.
// The default responseMode ("auto") answers with one JSON body unless a handler sends notifications, as the
// template does; the bench checks every answer is application/json before loading it.
const handler = createMcpHandler(makeServer);

// Why a wrapper: the handler's fetch takes (request, options), and workerd would pass `env` as those options.
export default { fetch: (request: Request) => handler.fetch(request) };
