/**
 * @module legacy/dispatch
 * One 2025 request, from its reply to its answer: its `_meta` as the session knows it, the request's scope, its
 * handlers' questions asked live in the session (`live-answers.ts`), the methods only 2025 has (`initialize`,
 * `ping`, `logging/setLevel`, `resources/subscribe`), every other method through the same table as 2026-07-28, and
 * each revision's result shapes and error codes.
 */
import type { HttpExchange } from "../http/exchange";
import type { Reply } from "../http/reply";
import { hubsOf } from "../listen/hub";
import { sessionHubs } from "../listen/publish";
import { MAX_URI_LENGTH } from "../listen/stored-size";
import { type Asking, type RequestScope, requestScope } from "../run/request";
import type { McpServer } from "../server/server";
import { traceRequest } from "../server/trace";
import { log } from "../util/log";
import { isObject, type Message, type RequestMeta, readableId } from "../wire/envelope";
import { ErrorCode, invalidParams, methodNotFound, ResourceNotFound, RpcError } from "../wire/errors";
import { failureMessage, resultMessage } from "../wire/messages";
import { ANONYMOUS } from "../wire/principal";
import { type JsonObject, type LegacyVersion, LOG_LEVELS, type LogLevel } from "../wire/types";
import { watchCancellation } from "./cancellation";
import { initialize } from "./handshake";
import { type HeldLogs, heldLogs } from "./held-logs";
import { liveAnswers } from "./live-answers";
import { sessionFilter } from "./session";
import { asSessionState, type SessionHandle, storedSession } from "./session-handle";
import { legacyResult } from "./shapes";
import { TooManyWaiting } from "./waiting";

/** Methods that exist only on the 2026-07-28 wire. */
const STATELESS_ONLY = new Set(["server/discover", "subscriptions/listen"]);

/** Runs one legacy request and finishes its reply, whatever happens. */
export async function answer(
  server: McpServer,
  exchange: HttpExchange,
  message: Extract<Message, { kind: "request" }>,
  version: LegacyVersion,
  session: SessionHandle | undefined,
  reply: Reply,
  /** Whether handlers may send the client requests (not inside a batch, whose answers cannot stream). */
  canAskClient: boolean,
): Promise<void> {
  const live = session?.live;
  const meta: RequestMeta = {
    protocolVersion: version,
    clientCapabilities: live?.state.capabilities ?? {},
    ...(live?.state.clientInfo && { clientInfo: live.state.clientInfo }),
    ...(live?.state.logLevel && { logLevel: live.state.logLevel }),
    ...progressTokenOf(message.params),
  };
  // A session that stored nothing at initialize may have a level set since: read only if a handler logs.
  const principal = (exchange.principal ?? ANONYMOUS).id;
  const held =
    session && !live && canAskClient
      ? heldLogs(reply, async () => asSessionState(await session.stub.load(principal))?.logLevel, {
          traceId: exchange.traceId,
          requestId: message.id,
        })
      : undefined;
  const scope = requestScope(exchange, {
    id: message.id,
    method: message.method,
    meta,
    era: version,
    reply,
    publisher: () => server.publisher(exchange),
    ...(held && { heldLog: held.log }),
  });
  // Its handlers' questions are asked live, in the session (when it can ask the client anything).
  const asking = liveAnswers(scope, canAskClient ? live : undefined);
  const context = { server, exchange, version, session, reply, scope, asking };
  return traceRequest(server, scope, message.params, () => runMethod(context, message, held), session?.claims.id);
}

/** Runs the method and finishes the reply with its result or its error, in this revision's shapes. */
async function runMethod(
  context: LegacyContext,
  message: Extract<Message, { kind: "request" }>,
  held: HeldLogs | undefined,
): Promise<void> {
  const { exchange, session, reply, scope } = context;
  const stopWatching = session && watchCancellation(session, message.id, reply, exchange);
  try {
    const result = await legacyMethod(context, message.method, message.params);
    await held?.settled();
    reply.finish(resultMessage(message.id, result), 200);
  } catch (error) {
    await held?.settled();
    const text = message.method === "tools/call" ? toolErrorText(error) : undefined;
    if (text !== undefined) {
      reply.finish(resultMessage(message.id, { content: [{ type: "text", text }], isError: true }), 200);
      return;
    }
    const { body, status, headers } = failureMessage(legacyError(error), message.id, scope);
    // Why 200: 2025 clients treat any other status as a transport failure and never read the JSON-RPC error.
    // Authorization failures (401/403) keep their status: clients act on those.
    reply.finish(body, status === 500 || status === 401 || status === 403 ? status : 200, headers);
  } finally {
    stopWatching?.();
  }
}

/**
 * What a 2025 `tools/call` tells the model, as a tool error, in place of a protocol error: why the tool could not
 * run. A missing client capability (2025 revisions have no -32021), and too many calls waiting for the client's
 * answers (as a task past its caller's quota is told, tasks/start.ts). Undefined for any other error.
 */
function toolErrorText(error: unknown): string | undefined {
  if (error instanceof TooManyWaiting) return error.message;
  if (error instanceof RpcError && error.code === ErrorCode.MissingRequiredClientCapability) {
    return `${error.message}. Connect with that client capability to use this tool.`;
  }
  return undefined;
}

interface LegacyContext {
  server: McpServer;
  exchange: HttpExchange;
  version: LegacyVersion;
  session: SessionHandle | undefined;
  reply: Reply;
  scope: RequestScope;
  /** How its handlers' questions are answered: live, in the session. */
  asking: Asking;
}

async function legacyMethod(context: LegacyContext, method: string, params: JsonObject): Promise<JsonObject> {
  const { server, version, scope, asking } = context;
  switch (method) {
    case "initialize":
      return initialize(server, context.exchange, context.reply, params);
    case "ping":
      return {};
    case "logging/setLevel": {
      const level = params.level;
      if (!(LOG_LEVELS as readonly unknown[]).includes(level))
        throw invalidParams(`Invalid params: level must be one of ${LOG_LEVELS.join(", ")}`);
      const session = await storedSession(context.exchange, context.session, method);
      await session.stub.update({ logLevel: level as LogLevel });
      return {};
    }
    case "resources/subscribe":
    case "resources/unsubscribe":
      return subscribe(context, method === "resources/subscribe", params);
  }
  if (STATELESS_ONLY.has(method)) throw methodNotFound(method);
  return legacyResult(method, await server.method(method)(params, scope, asking), version);
}

async function subscribe(context: LegacyContext, add: boolean, params: JsonObject): Promise<JsonObject> {
  const { server, exchange } = context;
  if (!server.listenSupport(exchange.env).resources) throw methodNotFound(add ? "resources/subscribe" : "resources/unsubscribe");
  const uri = params.uri;
  if (typeof uri !== "string" || uri.length === 0 || uri.length > MAX_URI_LENGTH)
    throw invalidParams(`Invalid params: uri must be a string of 1 to ${MAX_URI_LENGTH} characters`);
  const session = await storedSession(exchange, context.session, add ? "resources/subscribe" : "resources/unsubscribe");
  const support = server.listenSupport(exchange.env);
  // Why in the session's Durable Object: two subscribes of one session at once (a client's Promise.all) must both
  // count; a read here and a write there would let the last one drop the other's URI.
  const changed = await session.stub.changeSubscription(uri, add, support);
  if ("refused" in changed) throw invalidParams(changed.refused);
  const { subscriptions } = changed;
  session.state.subscriptions = subscriptions;
  const filter = sessionFilter(support, subscriptions);
  // The session's notification stream (if open) picks the new filter up at once, in both of its groups (each root
  // passes it on to the shard that holds the stream, whichever that is).
  const updates = sessionHubs(hubsOf(exchange.env), session.state).map((hub) => hub.updateSessionFilter(session.state.id, filter));
  if ((await Promise.all(updates)).includes(false)) log(context.scope, "warn", "a hub refused a session's subscription filter");
  return {};
}

/** 2025 revisions name an unknown resource -32002, and have no -32021 (Invalid Request says it instead). */
function legacyError(error: unknown): unknown {
  if (error instanceof ResourceNotFound) return new RpcError(ErrorCode.ResourceNotFound, "Resource not found", { uri: error.uri });
  if (error instanceof RpcError && error.code === ErrorCode.MissingRequiredClientCapability) {
    return new RpcError(ErrorCode.InvalidRequest, `${error.message}. Connect with that client capability to use this.`);
  }
  return error;
}

/** A 2025 request's progress token; a malformed one is ignored (2025 revisions define no error for it). */
function progressTokenOf(params: JsonObject): Partial<RequestMeta> {
  const token = isObject(params._meta) ? readableId(params._meta.progressToken) : undefined;
  return token === undefined ? {} : { progressToken: token };
}
