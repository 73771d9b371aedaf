/**
 * @module server/trace
 * One span per MCP request (both eras, each request of a 2025-03-26 batch), through the Workers runtime's own
 * tracing (`tracing.enterSpan` from `cloudflare:workers`), named and described per the OpenTelemetry MCP semantic
 * conventions: `{mcp.method.name} {target}` ("tools/call add_note"), target being the tool or prompt name.
 *
 * The runtime decides whether a request is traced (`[observability.traces]`, head sampling, a tail consumer).
 * When it is not, the span it hands out is inert (`isTraced` false) and nothing here reads or computes anything
 * more: the cost is `enterSpan` itself and the span name.
 *
 * What a span carries: names, versions, ids and codes. What it never carries, whatever the convention allows:
 * - arguments, results, prompt or note text (`gen_ai.tool.call.arguments`/`.result` are opt-in there; not here);
 * - resource URIs (`mcp.resource.uri`): in this template a URI names a user's notebook or note, so it is user data,
 *   as in the access log (see `modern/serve.ts`); `resources/read` spans say only the method;
 * - the names of tools and prompts the server does not have: a client can send any text as a name;
 * - tokens, session tokens (the span has the session's own id, never its `Mcp-Session-Id` token), the principal
 *   (a machine client is named, `oauth.client.id`: a service the operator declared, not a person);
 * - `tracestate`: vendor data the runtime cannot use (see `clientTraceparent`).
 *
 * A request refused before its method runs (a bad header, an unknown 2026-07-28 method, an unsupported revision)
 * has no MCP span: the runtime's own fetch span and the access log show it.
 *
 * Tracing never fails a request: whatever goes wrong while describing a span is dropped.
 */
import { tracing } from "cloudflare:workers";
import type { RequestScope } from "../run/request";
import { textMemo } from "../util/memo";
import { isObject } from "../wire/envelope";
import { RpcError } from "../wire/errors";
import { methodName } from "../wire/messages";
import type { JsonObject } from "../wire/types";
import type { McpServer } from "./server";

/** The attributes, by their names in the OpenTelemetry semantic conventions (MCP, GenAI, JSON-RPC, network). */
export const SPAN_ATTRIBUTE = {
  method: "mcp.method.name",
  protocolVersion: "mcp.protocol.version",
  sessionId: "mcp.session.id",
  requestId: "jsonrpc.request.id",
  toolName: "gen_ai.tool.name",
  promptName: "gen_ai.prompt.name",
  operation: "gen_ai.operation.name",
  errorType: "error.type",
  statusCode: "rpc.response.status_code",
  networkProtocol: "network.protocol.name",
  networkTransport: "network.transport",
  /** Not in any convention: the machine client calling (client credentials), when the caller is one. */
  machineClient: "oauth.client.id",
  /** Not in any convention: see `clientTraceparent`. */
  clientTraceparent: "mcp.client.traceparent",
} as const;

/** What `error.type` says of a tool call that ran and reported a failure (`isError: true`), per the MCP convention. */
export const TOOL_ERROR = "tool_error";

/**
 * Runs one request's method inside its span and returns what `run` returns; the span ends when that settles (a
 * promise) or at once. `sessionId` is the 2025 session's own id, for requests in a session.
 */
export function traceRequest<T>(server: McpServer, scope: RequestScope, params: JsonObject, run: () => T, sessionId?: string): T {
  // Why arguments rather than a closure: nothing is allocated here for a request that is not traced. Measured in
  // workerd, an untraced enterSpan costs about 2.5 µs, this function about 0.5 µs more.
  return tracing.enterSpan(spanName(server, scope.method, params), inSpan, server, scope, params, run, sessionId);
}

/** The span's body: describes the request only if it is traced, runs it, then records how it ended. */
export function inSpan<T>(span: Span, server: McpServer, scope: RequestScope, params: JsonObject, run: () => T, sessionId?: string): T {
  if (!span.isTraced) return run();
  safely(() => describeRequest(span, server, scope, params, sessionId));
  let result: T;
  try {
    result = run();
  } catch (error) {
    safely(() => describeOutcome(span, scope.reply.finalMessage, error));
    throw error;
  }
  if (!(result instanceof Promise)) {
    safely(() => describeOutcome(span, scope.reply.finalMessage));
    return result;
  }
  return result.then(
    (value) => {
      safely(() => describeOutcome(span, scope.reply.finalMessage));
      return value;
    },
    (error: unknown) => {
      safely(() => describeOutcome(span, scope.reply.finalMessage, error));
      throw error;
    },
  ) as T;
}

/**
 * `{mcp.method.name} {target}`, or the method alone when the request names no tool or prompt the server has. A
 * target's name is made once per isolate (`targetOf` names only declared tools and prompts, so these stay as few as
 * the declarations), not per request.
 */
export function spanName(server: McpServer, method: string, params: JsonObject): string {
  const target = targetOf(server, method, params);
  if (target === undefined) return methodName(method);
  return method === "tools/call" ? toolSpanName(target) : promptSpanName(target);
}

// Declared names only (`targetOf`), so as many as the declarations; a tool's name is at most 128 characters.
const toolSpanName = textMemo(1_000, 128, (tool) => `tools/call ${tool}`);
const promptSpanName = textMemo(1_000, 128, (prompt) => `prompts/get ${prompt}`);

/** The attributes known before the method runs. */
export function describeRequest(span: Span, server: McpServer, scope: RequestScope, params: JsonObject, sessionId?: string): void {
  span.setAttribute(SPAN_ATTRIBUTE.method, methodName(scope.method));
  const target = targetOf(server, scope.method, params);
  if (target !== undefined && scope.method === "tools/call") {
    span.setAttribute(SPAN_ATTRIBUTE.toolName, target);
    span.setAttribute(SPAN_ATTRIBUTE.operation, "execute_tool");
  }
  if (target !== undefined && scope.method === "prompts/get") span.setAttribute(SPAN_ATTRIBUTE.promptName, target);
  span.setAttribute(SPAN_ATTRIBUTE.protocolVersion, scope.meta.protocolVersion);
  if (scope.principal.client) span.setAttribute(SPAN_ATTRIBUTE.machineClient, scope.principal.client.id);
  const id = String(scope.requestId);
  // Why a limit: the id is the client's choice, and a span attribute is no place for an unbounded string.
  if (id.length <= MAX_ID_LENGTH) span.setAttribute(SPAN_ATTRIBUTE.requestId, id);
  if (sessionId !== undefined) span.setAttribute(SPAN_ATTRIBUTE.sessionId, sessionId);
  span.setAttribute(SPAN_ATTRIBUTE.networkProtocol, "http");
  const cf = scope.request.cf as { httpProtocol?: unknown } | undefined;
  span.setAttribute(SPAN_ATTRIBUTE.networkTransport, cf?.httpProtocol === "HTTP/3" ? "quic" : "tcp");
  const meta = params._meta;
  const traceparent = isObject(meta) ? clientTraceparent(meta.traceparent) : undefined;
  if (traceparent !== undefined) span.setAttribute(SPAN_ATTRIBUTE.clientTraceparent, traceparent);
}

/**
 * How the request ended, from its final JSON-RPC message: an error's code, or `tool_error` for a tool result with
 * `isError: true` (the JSON-RPC call succeeded, the tool did not). An error thrown past the method (never expected:
 * both paths answer every failure) is its JSON-RPC code when it has one, else `_OTHER`.
 */
export function describeOutcome(span: Span, finalMessage: unknown, thrown?: unknown): void {
  const message = isObject(finalMessage) ? finalMessage : {};
  const code = isObject(message.error) ? message.error.code : undefined;
  if (typeof code === "number") {
    span.setAttribute(SPAN_ATTRIBUTE.errorType, String(code));
    span.setAttribute(SPAN_ATTRIBUTE.statusCode, String(code));
  } else if (isObject(message.result) && message.result.isError === true) {
    span.setAttribute(SPAN_ATTRIBUTE.errorType, TOOL_ERROR);
  } else if (thrown !== undefined) {
    span.setAttribute(SPAN_ATTRIBUTE.errorType, thrown instanceof RpcError ? String(thrown.code) : "_OTHER");
  }
}

/**
 * W3C trace context from `params._meta.traceparent` (reserved for it by 2026-07-28; SEP-414 for 2025 revisions).
 * The convention says to make the client's span the server span's parent, but the runtime's tracing API can neither
 * set a parent nor add a link: the span is a child of the runtime's own fetch span. So a well-formed value is
 * recorded as `mcp.client.traceparent` (a name of our own: no convention has one), for a trace backend to join
 * the client's trace by its ids; `tracestate` (vendor data, useless without a parent) is not recorded.
 *
 * Well formed (W3C Trace Context, level 1): `version-traceid-parentid-flags` in lowercase hex, 2-32-16-2 digits,
 * version not `ff`, neither id all zeros; version 00 has exactly those four fields, a later version may append
 * more after a `-`, which are ignored. Anything else is ignored: never an error, since tracing is no reason to
 * refuse a request. Returns the four fields (55 characters), or undefined.
 */
export function clientTraceparent(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length > MAX_TRACEPARENT_LENGTH) return undefined;
  const match = TRACEPARENT.exec(value);
  if (!match) return undefined;
  const [, version, traceId, parentId, , rest] = match;
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (ALL_ZEROS.test(traceId!) || ALL_ZEROS.test(parentId!)) return undefined;
  return value.slice(0, 55);
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ALL_ZEROS = /^0+$/;
const MAX_TRACEPARENT_LENGTH = 256;
const MAX_ID_LENGTH = 128;

/**
 * The tool or prompt a request names, only if the server has it (a low-cardinality name the server chose): what a
 * span or the access log may show of the target. Never a URI or a task id (user data, a handle to someone's task).
 */
export function targetOf(server: McpServer, method: string, params: JsonObject): string | undefined {
  const name = params.name;
  if (typeof name !== "string") return undefined;
  if (method === "tools/call") return server.tools.get(name) ? name : undefined;
  if (method === "prompts/get") return server.prompts.get(name) ? name : undefined;
  return undefined;
}

function safely(describe: () => void): void {
  try {
    describe();
  } catch {
    // Why swallowed: a span that could not be described is worth less than the request it describes.
  }
}
