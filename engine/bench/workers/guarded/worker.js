/**
 * Bench Worker: the guarantees' reference. What the template's guarantees cost at the least, with nothing around
 * them: a hand-written answer to the bench's `tools/list` and `echo` call that pays, each in its cheapest form, for
 * what the template checks and sends on every request: the Host (when ALLOWED_HOSTS is set), Origin, Content-Type and
 * Accept checks, the body read within its declared length as strict UTF-8, a depth and member scan before
 * `JSON.parse` (the template's also counts array elements), the MCP headers against the body, the tool's arguments
 * against its input (by hand, no schema library), the span, the trace id, and a 2026-07-28 answer with the server's
 * `_meta` and `X-Request-Id` (the list serialized once, as the template keeps its first page).
 *
 * Nothing else: a branch on the method in place of a method table, no routing, no request scope, no reply object,
 * no access log, no rate limit (the template rows' limiter is counted in the isolate, at a cost the bench shows as
 * nil). What the template costs above this row is the path around its guarantees; this row's own cost is a floor that
 * no change to that path can go under while every guarantee stays on. Never deployed, and not an MCP server: any
 * other request is refused.
 */
import { tracing } from "cloudflare:workers";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });
const MAX_BYTES = 1_048_576;
const MAX_DEPTH = 64;
const MAX_MEMBERS = 10_000;
const JSON_TYPE = "application/json";
const VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const SERVER_META = { "io.modelcontextprotocol/serverInfo": { name: "bench-guarded", version: "1.0.0" } };
const ECHO_SCHEMA = {
  type: "object",
  properties: { text: { type: "string", maxLength: 100 } },
  required: ["text"],
  additionalProperties: false,
};
const LIST_RESULT = JSON.stringify({
  resultType: "complete",
  tools: [{ name: "echo", description: "Echoes the text back.", inputSchema: ECHO_SCHEMA }],
  _meta: SERVER_META,
});

export default {
  async fetch(request, env) {
    const headers = request.headers;
    if (env.ALLOWED_HOSTS && headers.get("host") !== env.ALLOWED_HOSTS) return refuse(403);
    if (headers.get("origin") !== null) return refuse(403);
    if (headers.get("content-type") !== JSON_TYPE) return refuse(415);
    const accept = headers.get("accept") ?? "";
    if (!accept.includes(JSON_TYPE) || !accept.includes("text/event-stream")) return refuse(406);
    if (Number(headers.get("content-length")) > MAX_BYTES) return refuse(413);
    const text = strictUtf8.decode(new Uint8Array(await request.arrayBuffer()));
    if (!withinLimits(text)) return refuse(400);
    const message = JSON.parse(text);
    const params = message.params;
    if (headers.get("mcp-protocol-version") !== params?._meta?.[VERSION_KEY] || headers.get("mcp-method") !== message.method) {
      return refuse(400);
    }
    if (message.method === "tools/list") return tracing.enterSpan("tools/list", answer, message.id, LIST_RESULT);
    if (message.method !== "tools/call" || params.name !== "echo" || headers.get("mcp-name") !== "echo") return refuse(400);
    if (!validArguments(params.arguments)) return refuse(400);
    const result = { resultType: "complete", content: [{ type: "text", text: params.arguments.text }], _meta: SERVER_META };
    return tracing.enterSpan("tools/call echo", answer, message.id, JSON.stringify(result));
  },
};

function answer(_span, id, resultJson) {
  const body = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`;
  return new Response(body, { headers: { "content-type": JSON_TYPE, "x-request-id": crypto.randomUUID() } });
}

/** The echo tool's input, `{ text }` with at most 100 characters and no other key, checked by hand: its cheapest form. */
function validArguments(args) {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return false;
  for (const key in args) if (key !== "text") return false;
  return typeof args.text === "string" && args.text.length <= 100;
}

/** Nesting depth and object members, strings skipped: the scan that keeps hostile JSON away from `JSON.parse`. */
function withinLimits(text) {
  let depth = 0;
  let members = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_DEPTH) return false;
    } else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x3a && ++members > MAX_MEMBERS) return false;
  }
  return true;
}

function refuse(status) {
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32600, message: `refused (${status})` } }), {
    status,
    headers: { "content-type": JSON_TYPE },
  });
}
