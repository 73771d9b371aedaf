/**
 * @module modern/serve
 * Serves one 2026-07-28 message: checks the headers against the body in the order the conformance suite
 * expects, then runs the method and answers as JSON or SSE. Nothing here reads, mints or echoes a session id.
 */

import type { Config } from "../config/config";
import type { HttpExchange } from "../http/exchange";
import { expectHeader } from "../http/headers";
import { checkParamHeaders } from "../http/param-headers";
import { Reply } from "../http/reply";
import { serveListen } from "../listen/listen";
import { type RequestScope, requestScope } from "../run/request";
import type { McpServer, MethodHandler } from "../server/server";
import { targetOf, traceRequest } from "../server/trace";
import { logRequest } from "../util/log";
import { claimsStateless, type Message, parseRequestMeta, type RequestMeta } from "../wire/envelope";
import { ErrorCode, headerMismatch, RpcError, truncate, unsupportedVersion } from "../wire/errors";
import { failureMessage, isReusable, mcpNameOf, methodName, resultMessage, resultMessageJson, reusable } from "../wire/messages";
import { HEADER, isLegacyVersion, type JsonObject, STATELESS_VERSION, servedVersions } from "../wire/types";
import { multiRoundTrip } from "./rounds";

export interface Served {
  response: Promise<Response>;
  /** Settles when the method has finished (after the response started, for SSE). */
  done: Promise<void>;
  /** Whether the answer is a stream whose method may outlive the response (then `done` must be waited for). */
  streaming(): boolean;
}

/** `headerVersion` is the request's MCP-Protocol-Version header as the router read it (`readMcpHeader`). */
export function serveStateless(server: McpServer, exchange: HttpExchange, message: Message, headerVersion: string | undefined): Served {
  const { record } = exchange;
  record.era = STATELESS_VERSION;
  record.method = message.kind === "response" ? "(response)" : methodName(message.method);
  if (message.kind === "response") {
    throw new RpcError(ErrorCode.InvalidRequest, "Invalid Request: a 2026-07-28 server sends no requests, so it takes no responses");
  }
  // Notifications are accepted and never answered (the spec defines none a server must act on over HTTP).
  if (message.kind === "notification") {
    logRequest(record, 202);
    return settled(new Response(null, { status: 202 }));
  }
  const rpc: StatelessRequest = { ...message, meta: checkedMeta(message, headerVersion, exchange.config) };
  checkMirroredHeaders(server, exchange, rpc);
  const reply = new Reply(exchange.request, {
    headers: { [HEADER.requestId]: exchange.traceId },
    onFinish: (status, code) => logRequest(record, status, code),
  });
  const scope = requestScope(exchange, {
    id: message.id,
    method: message.method,
    meta: rpc.meta,
    era: "stateless",
    reply,
    publisher: () => server.publisher(exchange),
  });
  // A listen stream is not one answer but a long-lived stream of notifications: it has its own module.
  if (message.method === "subscriptions/listen") {
    const support = server.listenSupport(exchange.env);
    if (support.tools || support.prompts || support.resources || support.tasks) {
      const stream = traceRequest(server, scope, message.params, () => serveListen(scope, message.params, support, server.resultMeta));
      logRequest(record, stream.status);
      return settled(stream);
    }
  }
  const handler = server.method(message.method);
  const done = traceRequest(server, scope, message.params, () => answer(server, scope, rpc, handler));
  return { response: reply.response, done: done ?? SETTLED, streaming: () => reply.streaming };
}

/** A 2026-07-28 JSON-RPC request (not the HTTP one: `exchange.request`) with its `_meta` read and checked. */
type StatelessRequest = Extract<Message, { kind: "request" }> & { meta: RequestMeta };

/**
 * The request's `_meta`, once its revision is the one this path serves: the MCP-Protocol-Version header is present
 * and says what `_meta` says. Why: with no 2026-07-28 claim in `_meta`, the header is the client's only word on its
 * revision, and that revision is unknown here (served 2025 revisions go to the legacy path). Which revisions are
 * served is then the useful answer, not what a 2026-07-28 request would lack.
 */
function checkedMeta(message: Extract<Message, { kind: "request" }>, headerVersion: string | undefined, config: Config): RequestMeta {
  if (headerVersion === undefined) throw headerMismatch("Header mismatch: missing required MCP-Protocol-Version header");
  if (headerVersion !== STATELESS_VERSION && !claimsStateless(message.params)) throw unsupported(headerVersion, config);
  const meta = parseRequestMeta(message.params);
  if (headerVersion !== meta.protocolVersion) {
    throw headerMismatch(
      `Header mismatch: MCP-Protocol-Version header value '${truncate(headerVersion, 40)}' does not match body value '${truncate(meta.protocolVersion, 40)}'`,
    );
  }
  if (meta.protocolVersion !== STATELESS_VERSION) throw unsupported(meta.protocolVersion, config);
  return meta;
}

/**
 * The headers that mirror the body (`Mcp-Method`, `Mcp-Name`, a tool's `Mcp-Param-*`), checked against it in the
 * order the conformance suite expects; and the target the access log may name.
 */
function checkMirroredHeaders(server: McpServer, exchange: HttpExchange, message: StatelessRequest): void {
  const { request, config, record } = exchange;
  const maxLength = config.limits.request.maxHeaderValueLength;
  const name = mcpNameOf(message.method, message.params);
  // What the server knows of the name, before the headers are checked against the body (neither throws): the tool's
  // header bindings, and the name for the log. Why only a declared tool or prompt: a URI may be user data, a task id
  // is a handle to someone's task, and a name the server does not have is whatever the client typed.
  const bindings = message.method === "tools/call" && name !== undefined ? server.headerBindingsOf(name) : undefined;
  record.name = targetOf(server, message.method, message.params);
  expectHeader(request, HEADER.method, message.method, maxLength);
  if (name !== undefined) expectHeader(request, HEADER.name, name, maxLength);
  if (bindings) checkParamHeaders(request, bindings, message.params.arguments, maxLength);
}

/**
 * Runs the method and finishes the reply with its result or its error. A method answered without a promise (a plain
 * tools/call, a list) is finished at once; only one that may still be waiting arms the keep-alive. Why: closing the
 * stream is this revision's cancellation, and a slow method's client is only reachable through writes (under
 * `wrangler dev`, a disconnect is noticed at the next write); see Reply.keepAliveWhileRunning.
 */
function answer(server: McpServer, scope: RequestScope, rpc: StatelessRequest, handler: MethodHandler): Promise<void> | undefined {
  const succeed = (result: JsonObject) => {
    const answered = answerOf(server, result);
    scope.reply.finish(resultMessage(rpc.id, answered.answer), 200, {}, answered.json && resultMessageJson(rpc.id, answered.json));
  };
  const fail = (error: unknown) => {
    const { body, status, headers } = failureMessage(error, rpc.id, scope);
    scope.reply.finish(body, status, headers);
  };
  let result: JsonObject | Promise<JsonObject>;
  try {
    // Its handlers' questions are answered in rounds of a multi round-trip request (./rounds.ts).
    result = handler(rpc.params, scope, multiRoundTrip(scope));
  } catch (error) {
    fail(error);
    return undefined;
  }
  if (!(result instanceof Promise)) {
    succeed(result);
    return undefined;
  }
  if (server.waits(rpc.method)) scope.reply.keepAliveWhileRunning(scope.config.limits.request.streamAfterMs);
  return result.then(succeed, fail);
}

/** -32022 for a request on the 2026-07-28 path that asks for another revision. */
function unsupported(requested: string, config: Config): RpcError {
  const supported = servedVersions(config.legacyClients);
  // A served 2025 revision asked for the 2026-07-28 way (per-request `_meta`): say how that revision is reached.
  if (isLegacyVersion(requested) && supported.includes(requested)) {
    return unsupportedVersion(
      requested,
      supported,
      `Unsupported protocol version: ${requested} is served through initialize, without the 2026-07-28 _meta`,
    );
  }
  return unsupportedVersion(requested, supported);
}

/** The server's identity merged into whatever `_meta` the handler returned. */
function resultMetaOf(server: McpServer, result: Record<string, unknown>) {
  const own = result._meta;
  // Most results bring none: then the `_meta` is the server's identity alone, the same object for every answer.
  if (own === undefined) return server.resultMeta;
  return { ...(typeof own === "object" && own !== null ? own : {}), ...server.resultMeta };
}

/** The answers to results kept per isolate (`reusable`: a list's first page), with their JSON text, built once each. */
const keptAnswers = new WeakMap<JsonObject, { answer: JsonObject; json: string }>();

/**
 * A method's result as this revision answers it (`resultType`, the server's `_meta`), and, for a kept result, the
 * answer's JSON text: the same answer for every request it fits, so it is serialized once, not per request.
 */
function answerOf(server: McpServer, result: JsonObject): { answer: JsonObject; json?: string } {
  const kept = keptAnswers.get(result);
  if (kept) return kept;
  const answer: JsonObject = { resultType: "complete", ...result, _meta: resultMetaOf(server, result) };
  if (!isReusable(result)) return { answer };
  const made = { answer: reusable(answer), json: JSON.stringify(answer) };
  keptAnswers.set(result, made);
  return made;
}

/** The `done` of a method that finished before its reply was handed back. */
const SETTLED: Promise<void> = Promise.resolve();

function settled(response: Response): Served {
  return { response: Promise.resolve(response), done: SETTLED, streaming: () => false };
}
