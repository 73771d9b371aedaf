/**
 * @module legacy
 * Serves 2025-era clients (2025-11-25, 2025-06-18, 2025-03-26): the `initialize` handshake, `ping`,
 * `logging/setLevel`, `resources/subscribe`, 2025-03-26 batches, and every tool, resource and prompt through the
 * same handlers as the 2026-07-28 path, with each revision's result shapes.
 *
 * Stateless by default: a client that needs nothing interactive gets no `Mcp-Session-Id` and is served per
 * request. A session (see `session.ts`) is minted only where the legacy protocol needs one.
 */
import { ANONYMOUS } from "../auth/principal";
import { type RequestScope, requestScope } from "../define/context";
import type { HttpExchange } from "../http/exchange";
import { NO_ANSWER, Reply } from "../http/reply";
import { sessionShard } from "../listen/hub-stream";
import { sessionHubs } from "../listen/publish";
import { logRequest } from "../log";
import { isObject, type Message, parseMessage, type RequestMeta, readableId } from "../protocol/envelope";
import { ErrorCode, invalidParams, methodNotFound, ResourceNotFound, RpcError } from "../protocol/errors";
import { errorMessage, failureMessage, resultMessage } from "../protocol/messages";
import type { McpServer } from "../protocol/server";
import {
  HEADER,
  isLegacyVersion,
  type JsonObject,
  LEGACY_VERSIONS,
  type LegacyVersion,
  LOG_LEVELS,
  type LogLevel,
  STATELESS_VERSION,
} from "../protocol/wire";
import { watchCancellation } from "./cancellation";
import { type LiveSession, liveInputRunner } from "./live-input";
import { responseJournal } from "./resume";
import { newSessionId, SESSION_ID, type SessionState } from "./session";
import { legacyResult } from "./shapes";

/** Methods that exist only on the 2026-07-28 wire. */
const STATELESS_ONLY = new Set(["server/discover", "subscriptions/listen"]);

/** The session named by `Mcp-Session-Id`, or a 404 error (unknown, expired, or another principal's). */
export async function loadSession(exchange: HttpExchange): Promise<LiveSession | undefined> {
  const id = exchange.request.headers.get(HEADER.sessionId);
  if (id === null) return undefined;
  const sessions = exchange.env.LEGACY_SESSIONS;
  const principal = (exchange.principal ?? ANONYMOUS).id;
  const stub = sessions && SESSION_ID.test(id) ? sessions.getByName(id) : undefined;
  const state = stub ? await stub.load(principal) : null;
  // Why 404 for all three: the client then starts a new session, and nobody learns whether an id exists.
  if (!stub || !state) throw new RpcError(ErrorCode.InvalidRequest, "Session not found: initialize a new session", undefined, 404);
  return { state: state as SessionState, stub, timeoutMs: exchange.config.legacy.inputTimeoutMs };
}

export async function serveLegacy(
  server: McpServer,
  exchange: HttpExchange,
  body: unknown,
  headerVersion: string | undefined,
): Promise<Response> {
  if (!exchange.config.legacy.enabled) {
    const requested = headerVersion ?? (isObject(body) && isObject(body.params) ? body.params.protocolVersion : undefined);
    throw new RpcError(ErrorCode.UnsupportedProtocolVersion, "Unsupported protocol version: this server speaks 2026-07-28 only", {
      supported: [STATELESS_VERSION],
      requested: typeof requested === "string" ? requested : "2025-03-26",
    });
  }
  const { record } = exchange;
  record.method = Array.isArray(body)
    ? `batch of ${body.length}`
    : isObject(body) && typeof body.method === "string"
      ? body.method
      : "(response)";
  const session = await loadSession(exchange);
  // The negotiated version wins; without a session, the header says it, and no header means 2025-03-26.
  const version = session?.state.version ?? (isLegacyVersion(headerVersion) ? headerVersion : "2025-03-26");
  record.era = version;
  if (Array.isArray(body)) return serveBatch(server, exchange, body, version, session);

  const message = parseMessage(body);
  if (message.kind === "response") {
    if (!session) throw new RpcError(ErrorCode.InvalidRequest, "Invalid Request: a response needs the session that asked", undefined, 400);
    await session.stub.deliver(message as unknown as JsonObject);
    logRequest(record, 202);
    return new Response(null, { status: 202 });
  }
  if (message.kind === "notification") {
    const requestId = readableId(message.params.requestId);
    // The session is where the cancellation meets the request it names (see cancellation.ts). Without a session
    // it cannot reach the request, which runs to completion.
    if (message.method === "notifications/cancelled" && session && requestId !== undefined) await session.stub.cancel(requestId);
    logRequest(record, 202);
    return new Response(null, { status: 202 });
  }
  if ((message.method === "tools/call" || message.method === "prompts/get") && typeof message.params.name === "string") {
    record.name = message.params.name;
  }
  const reply = new Reply(exchange.request.signal, {
    headers: { [HEADER.requestId]: exchange.traceId },
    onFinish: (status, code) => logRequest(record, status, code),
    // 2025: a disconnect is not cancellation (the client sends notifications/cancelled), so the handler runs on;
    // a session's response stream carries event ids and is kept for the client to resume once it has gone.
    disconnectCancels: false,
    ...(session && { journal: responseJournal(session, exchange) }),
  });
  const done = answer(server, exchange, message, version, session, reply, true);
  exchange.execution.waitUntil(done);
  return reply.response;
}

/** 2025-03-26 only: an array of messages, answered with an array of responses (202 if it held none). */
async function serveBatch(server: McpServer, exchange: HttpExchange, body: unknown[], version: LegacyVersion, session?: LiveSession) {
  const { maxBatch } = exchange.config.legacy;
  if (version !== "2025-03-26")
    throw new RpcError(ErrorCode.InvalidRequest, `Invalid Request: batches are not part of ${version}`, undefined, 400);
  if (body.length === 0 || body.length > maxBatch) {
    throw new RpcError(ErrorCode.InvalidRequest, `Invalid Request: a batch holds 1 to ${maxBatch} messages`, undefined, 400);
  }
  const answers = await Promise.all(
    body.map(async (item): Promise<unknown> => {
      let message: Message;
      try {
        message = parseMessage(item);
      } catch (error) {
        return failureMessage(error, readableId(isObject(item) ? item.id : undefined), exchange).body;
      }
      if (message.kind !== "request") return undefined;
      // Why: initialize opens a conversation and must stand alone (2025-03-26); batched requests cannot stream,
      // so they cannot ask the client anything either.
      if (message.method === "initialize")
        return errorMessage(message.id, ErrorCode.InvalidRequest, "Invalid Request: initialize cannot be batched");
      const reply = new Reply(exchange.request.signal, { canStream: false, disconnectCancels: false });
      await answer(server, exchange, message, version, session, reply, false);
      const answered = await reply.response;
      return answered.status === NO_ANSWER ? undefined : answered.json();
    }),
  );
  const responses = answers.filter((answer) => answer !== undefined);
  logRequest(exchange.record, responses.length ? 200 : 202);
  return responses.length
    ? Response.json(responses, { headers: { [HEADER.requestId]: exchange.traceId } })
    : new Response(null, { status: 202 });
}

/** Runs one legacy request and finishes its reply, whatever happens. */
async function answer(
  server: McpServer,
  exchange: HttpExchange,
  message: Extract<Message, { kind: "request" }>,
  version: LegacyVersion,
  session: LiveSession | undefined,
  reply: Reply,
  /** Whether handlers may send the client requests (not inside a batch, whose answers cannot stream). */
  canAskClient: boolean,
): Promise<void> {
  const meta: RequestMeta = {
    protocolVersion: version,
    clientCapabilities: session?.state.capabilities ?? {},
    ...(session?.state.clientInfo && { clientInfo: session.state.clientInfo }),
    ...(session?.state.logLevel && { logLevel: session.state.logLevel }),
    ...progressTokenOf(message.params),
  };
  const scope = requestScope(exchange, {
    id: message.id,
    method: message.method,
    meta,
    era: version,
    reply,
    inputRunner: (scope) => liveInputRunner(scope, canAskClient ? session : undefined),
  });
  const context = { server, exchange, version, session, reply, scope };
  const stopWatching = session && watchCancellation(session, message.id, reply, exchange);
  try {
    const result = await legacyMethod(context, message.method, message.params);
    reply.finish(resultMessage(message.id, result), 200);
  } catch (error) {
    const missing = error instanceof RpcError && error.code === ErrorCode.MissingRequiredClientCapability;
    if (missing && message.method === "tools/call") {
      // 2025 revisions have no -32021: the model reads why the tool could not run instead.
      const text = `${error.message}. Connect with that client capability to use this tool.`;
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

interface LegacyContext {
  server: McpServer;
  exchange: HttpExchange;
  version: LegacyVersion;
  session: LiveSession | undefined;
  reply: Reply;
  scope: RequestScope;
}

async function legacyMethod(context: LegacyContext, method: string, params: JsonObject): Promise<JsonObject> {
  const { server, version, scope } = context;
  switch (method) {
    case "initialize":
      return initialize(context, params);
    case "ping":
      return {};
    case "logging/setLevel": {
      const level = params.level;
      if (!(LOG_LEVELS as readonly unknown[]).includes(level))
        throw invalidParams(`Invalid params: level must be one of ${LOG_LEVELS.join(", ")}`);
      const session = await ensureSession(context);
      await session.stub.update({ logLevel: level as LogLevel });
      return {};
    }
    case "resources/subscribe":
    case "resources/unsubscribe":
      return subscribe(context, method === "resources/subscribe", params);
  }
  if (STATELESS_ONLY.has(method)) throw methodNotFound(method);
  return legacyResult(method, await server.method(method)(params, scope), version);
}

async function initialize(context: LegacyContext, params: JsonObject): Promise<JsonObject> {
  const { server, exchange } = context;
  if (typeof params.protocolVersion !== "string" || !isObject(params.capabilities)) {
    throw invalidParams("Invalid params: initialize needs protocolVersion and capabilities");
  }
  // Echo a supported version; otherwise answer with the newest one we have and let the client decide.
  const version = isLegacyVersion(params.protocolVersion) ? params.protocolVersion : LEGACY_VERSIONS[0];
  exchange.record.era = version;
  const capabilities = params.capabilities;
  // A client that can be asked things needs a session: the questions go out on its stream, the answers come back
  // as separate POSTs, and the session is where they meet.
  const acceptsServerRequests = ["elicitation", "sampling", "roots"].some((name) => isObject(capabilities[name]));
  let session = false;
  if (acceptsServerRequests && exchange.env.LEGACY_SESSIONS) {
    const clientInfo = isObject(params.clientInfo) ? params.clientInfo : undefined;
    await mintSession(
      { ...context, version },
      {
        capabilities,
        ...(clientInfo &&
          typeof clientInfo.name === "string" && { clientInfo: { name: clientInfo.name, version: String(clientInfo.version ?? "") } }),
      },
    );
    session = true;
  }
  const { name, version: serverVersion } = server.info;
  return {
    protocolVersion: version,
    capabilities: legacyCapabilities(server.capabilities(exchange.env), session),
    serverInfo: version === "2025-03-26" ? { name, version: serverVersion } : server.info,
    ...(server.instructions && { instructions: server.instructions }),
  };
}

/** Without a session nothing can be pushed to the client, so change notifications are not offered. */
function legacyCapabilities(capabilities: JsonObject, session: boolean): JsonObject {
  if (session) return capabilities;
  const { tools, resources, prompts, ...rest } = capabilities;
  return { ...rest, ...(tools ? { tools: {} } : {}), ...(resources ? { resources: {} } : {}), ...(prompts ? { prompts: {} } : {}) };
}

async function ensureSession(context: LegacyContext): Promise<LiveSession> {
  return context.session ?? mintSession(context, { capabilities: {} });
}

async function mintSession(context: LegacyContext, start: Pick<SessionState, "capabilities" | "clientInfo">): Promise<LiveSession> {
  const { exchange, version, reply } = context;
  const sessions = exchange.env.LEGACY_SESSIONS;
  if (!sessions) throw new RpcError(ErrorCode.InvalidRequest, "This server keeps no sessions");
  const id = newSessionId();
  const state: SessionState = {
    id,
    version,
    ...start,
    principal: (exchange.principal ?? ANONYMOUS).id,
    subscriptions: [],
    shard: sessionShard(id, exchange.config.listen.globalShards),
    idleMs: exchange.config.legacy.sessionIdleMs,
    lastSeen: Date.now(),
  };
  const stub = sessions.getByName(id);
  await stub.open(state);
  reply.setHeader(HEADER.sessionId, id);
  context.session = { state, stub, timeoutMs: exchange.config.legacy.inputTimeoutMs };
  return context.session;
}

async function subscribe(context: LegacyContext, add: boolean, params: JsonObject): Promise<JsonObject> {
  const { server, exchange } = context;
  if (!server.listenSupport(exchange.env).resources) throw methodNotFound(add ? "resources/subscribe" : "resources/unsubscribe");
  const uri = params.uri;
  if (typeof uri !== "string" || uri.length === 0 || uri.length > 2_048)
    throw invalidParams("Invalid params: uri must be a string of 1 to 2048 characters");
  const session = await ensureSession(context);
  const current = new Set(session.state.subscriptions);
  if (add) current.add(uri);
  else current.delete(uri);
  if (current.size > 64) throw invalidParams("Invalid params: a session can subscribe to at most 64 resources");
  const subscriptions = [...current];
  await session.stub.update({ subscriptions });
  session.state.subscriptions = subscriptions;
  // The session's notification stream (if open) picks the new filter up at once, in both of its hubs.
  const support = server.listenSupport(exchange.env);
  const filter = sessionFilter(support, subscriptions);
  await Promise.all(sessionHubs(exchange.env.SUBSCRIPTIONS, session.state).map((hub) => hub.updateSessionFilter(session.state.id, filter)));
  return {};
}

/** What a legacy session's notification stream receives: every list change offered, and its subscriptions. */
export function sessionFilter(support: { tools: boolean; prompts: boolean; resources: boolean }, subscriptions: string[]) {
  return {
    ...(support.tools && { toolsListChanged: true }),
    ...(support.prompts && { promptsListChanged: true }),
    ...(support.resources && { resourcesListChanged: true }),
    ...(support.resources && subscriptions.length > 0 && { resourceSubscriptions: subscriptions }),
  };
}

/** 2025 revisions name an unknown resource -32002, and have no -32021 (Invalid Request says it instead). */
function legacyError(error: unknown): unknown {
  if (error instanceof ResourceNotFound) return new RpcError(ErrorCode.ResourceNotFound, "Resource not found", { uri: error.uri });
  if (error instanceof RpcError && error.code === ErrorCode.MissingRequiredClientCapability) {
    return new RpcError(ErrorCode.InvalidRequest, `${error.message}. Connect with that client capability to use this.`);
  }
  return error;
}

function progressTokenOf(params: JsonObject): Partial<RequestMeta> {
  const meta = params._meta;
  const token = isObject(meta) ? meta.progressToken : undefined;
  return typeof token === "string" || readableId(token) !== undefined ? { progressToken: token as string | number } : {};
}
