/**
 * @module legacy
 * Serves 2025-era clients (2025-11-25, 2025-06-18, 2025-03-26): the `initialize` handshake, `ping`,
 * `logging/setLevel`, `resources/subscribe`, 2025-03-26 batches, and every tool, resource and prompt through the
 * same handlers as the 2026-07-28 path, with each revision's result shapes.
 *
 * Sessions: with the LEGACY_SESSIONS binding every client gets an `Mcp-Session-Id` on its InitializeResult, and
 * only there (2025-11-25). The id is a signed token (`session-token.ts`); its state is stored (`session.ts`) at
 * initialize only for a client that can be asked things, else on first use of `logging/setLevel` or
 * `resources/subscribe`. Requests of a session that stored nothing touch no Durable Object. Without the binding
 * every client is served per request, and what needs a session is neither offered nor served.
 */

import type { HttpExchange } from "../http/exchange";
import { checkRateLimit } from "../http/rate-limit";
import { jsonResponse, NO_ANSWER, Reply } from "../http/reply";
import { hubsOf } from "../listen/hub";
import { sessionHubs } from "../listen/publish";
import { MAX_URI_LENGTH } from "../listen/stored-size";
import { type RequestScope, requestScope } from "../run/request";
import type { McpServer } from "../server/server";
import { methodName, targetOf, traceRequest } from "../server/trace";
import { log, logRequest } from "../util/log";
import { isObject, type Message, parseMessage, type RequestMeta, readableId, readClientInfo } from "../wire/envelope";
import { ErrorCode, invalidParams, methodNotFound, ResourceNotFound, RpcError } from "../wire/errors";
import { errorMessage, failureMessage, resultMessage } from "../wire/messages";
import { ANONYMOUS } from "../wire/principal";
import {
  HEADER,
  isLegacyVersion,
  type JsonObject,
  LEGACY_VERSIONS,
  type LegacyVersion,
  LOG_LEVELS,
  type LogLevel,
  STATELESS_VERSION,
} from "../wire/types";
import { watchCancellation } from "./cancellation";
import { type HeldLogs, heldLogs } from "./held-logs";
import { type LiveSession, liveInputRunner } from "./live-answers";
import { responseJournal } from "./resume";
import { type LegacySession, type SessionState, sessionFilter, sessionsOf } from "./session";
import { newSession, readSession, type SessionClaims } from "./session-token";
import { legacyResult } from "./shapes";

/** Methods that exist only on the 2026-07-28 wire. */
const STATELESS_ONLY = new Set(["server/discover", "subscriptions/listen"]);

/** A 2025 session, as named by a valid `Mcp-Session-Id`. */
export interface SessionHandle {
  claims: SessionClaims;
  /** The session's Durable Object; only called when a feature needs stored state. */
  stub: DurableObjectStub<LegacySession>;
  /** Its stored state, read at the start of the request: only sessions stored at initialize (`claims.stored`). */
  live?: LiveSession;
}

/** Stored state as the stub returns it: its RPC type cannot express `unknown` JSON (capabilities), so it is restored. */
export const asSessionState = (state: unknown) => state as SessionState | null;

const sessionNotFound = () => new RpcError(ErrorCode.InvalidRequest, "Session not found: initialize a new session", undefined, 404);

/**
 * The session named by `Mcp-Session-Id`, or a 404 error (unknown, forged, expired, ended, or another principal's).
 * The token is checked first, so only a session this server issued, to this principal, ever reaches storage.
 */
export async function loadSession(exchange: HttpExchange): Promise<SessionHandle | undefined> {
  const token = exchange.request.headers.get(HEADER.sessionId);
  if (token === null) return undefined;
  const sessions = sessionsOf(exchange.env);
  const principal = (exchange.principal ?? ANONYMOUS).id;
  const claims = sessions ? await readSession(exchange.config, principal, token) : undefined;
  // Why 404 for all of them: the client then starts a new session, and nobody learns whether an id exists.
  if (!sessions || !claims) throw sessionNotFound();
  const stub = sessions.getByName(claims.id);
  if (!claims.stored) return { claims, stub };
  const state = asSessionState(await stub.load(principal));
  if (!state) throw sessionNotFound();
  return { claims, stub, live: { state, stub, timeoutMs: exchange.config.limits.sessions.inputTimeoutMs } };
}

export async function serveLegacy(
  server: McpServer,
  exchange: HttpExchange,
  body: unknown,
  headerVersion: string | undefined,
  /** The body may hold lone surrogates (see `parseMessage`). */
  checkText = false,
): Promise<Response> {
  if (!exchange.config.legacyClients) {
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
      ? methodName(body.method)
      : "(response)";
  const session = await loadSession(exchange);
  // The negotiated version wins; without a session, the header says it, and no header means 2025-03-26.
  const version = session?.claims.version ?? (isLegacyVersion(headerVersion) ? headerVersion : "2025-03-26");
  record.era = version;
  if (Array.isArray(body)) return serveBatch(server, exchange, body, version, session, checkText);

  const message = parseMessage(body, checkText);
  if (message.kind === "response") {
    // Only a session stored at initialize is ever asked anything (see live-input.ts).
    if (!session?.live)
      throw new RpcError(ErrorCode.InvalidRequest, "Invalid Request: a response needs the session that asked", undefined, 400);
    await session.stub.deliver(message as unknown as JsonObject);
    logRequest(record, 202);
    return new Response(null, { status: 202 });
  }
  if (message.kind === "notification") {
    const requestId = readableId(message.params.requestId);
    // The session's Durable Object is where the cancellation meets the request it names (see cancellation.ts); it
    // needs no stored state. Without a session it cannot reach the request, which runs to completion.
    if (message.method === "notifications/cancelled" && session && requestId !== undefined) await session.stub.cancel(requestId);
    logRequest(record, 202);
    return new Response(null, { status: 202 });
  }
  // Only a tool or prompt the server has: any other name is whatever the client typed (see trace.ts targetOf).
  record.name = targetOf(server, message.method, message.params);
  const reply = new Reply(exchange.request, {
    headers: { [HEADER.requestId]: exchange.traceId },
    onFinish: (status, code) => logRequest(record, status, code),
    // 2025: a disconnect is not cancellation (the client sends notifications/cancelled), so the handler runs on;
    // a stored session's response stream carries event ids and is kept for the client to resume once it has gone.
    disconnectCancels: false,
    ...(session?.live && { journal: responseJournal(session.live, exchange) }),
  });
  const done = answer(server, exchange, message, version, session, reply, true);
  exchange.execution.waitUntil(done);
  return reply.response;
}

/** 2025-03-26 only: an array of messages, answered with an array of responses (202 if it held none). */
async function serveBatch(
  server: McpServer,
  exchange: HttpExchange,
  body: unknown[],
  version: LegacyVersion,
  session: SessionHandle | undefined,
  checkText: boolean,
) {
  const maxBatch = exchange.config.limits.request.maxBatchMessages;
  if (version !== "2025-03-26")
    throw new RpcError(ErrorCode.InvalidRequest, `Invalid Request: batches are not part of ${version}`, undefined, 400);
  if (body.length === 0 || body.length > maxBatch) {
    throw new RpcError(ErrorCode.InvalidRequest, `Invalid Request: a batch holds 1 to ${maxBatch} messages`, undefined, 400);
  }
  const parsed = body.map((item): Message | { kind: "invalid"; answer: unknown } => {
    try {
      return parseMessage(item, checkText);
    } catch (error) {
      return { kind: "invalid", answer: failureMessage(error, readableId(isObject(item) ? item.id : undefined), exchange).body };
    }
  });
  // Why: the rate limit counts requests, not HTTP requests. The router charged one before reading the body; the
  // batch pays for the rest of its requests here, all at once and before any runs, so an over-limit batch runs none.
  const requests = parsed.filter((message) => message.kind === "request").length;
  await checkRateLimit(exchange, requests - 1);
  const answers = await Promise.all(
    parsed.map(async (message): Promise<unknown> => {
      if (message.kind === "invalid") return message.answer;
      if (message.kind !== "request") return undefined;
      // Why: initialize opens a conversation and must stand alone (2025-03-26); batched requests cannot stream,
      // so they cannot ask the client anything either.
      if (message.method === "initialize")
        return errorMessage(message.id, ErrorCode.InvalidRequest, "Invalid Request: initialize cannot be batched");
      // No request to watch: a batched reply cannot stream, and a disconnect does not cancel it.
      const reply = new Reply(undefined, { canStream: false, disconnectCancels: false });
      await answer(server, exchange, message, version, session, reply, false);
      const answered = await reply.response;
      return answered.status === NO_ANSWER ? undefined : reply.finalMessage;
    }),
  );
  const responses = answers.filter((answer) => answer !== undefined);
  logRequest(exchange.record, responses.length ? 200 : 202);
  return responses.length ? jsonResponse(responses, 200, { [HEADER.requestId]: exchange.traceId }) : new Response(null, { status: 202 });
}

/** Runs one legacy request and finishes its reply, whatever happens. */
async function answer(
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
    inputRunner: (scope) => liveInputRunner(scope, canAskClient ? live : undefined),
    ...(held && { heldLog: held.log }),
  });
  const context = { server, exchange, version, session, reply, scope };
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
  session: SessionHandle | undefined;
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
      const session = await storedSession(context, method);
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
  const sessions = sessionsOf(exchange.env);
  if (sessions) {
    // A client that can be asked things has its state stored now and read on every request: the questions go out
    // on its stream, the answers come back as separate POSTs, and its Durable Object is where they meet.
    // A client offered views (MCP Apps) too: which capabilities it declared decides every later tools/list.
    const stored =
      ["elicitation", "sampling", "roots"].some((name) => isObject(capabilities[name])) || server.offersViews(exchange.env, capabilities);
    const principal = (exchange.principal ?? ANONYMOUS).id;
    const { token, claims } = await newSession(exchange.config, principal, version, stored);
    if (stored) {
      const clientInfo = readClientInfo(params.clientInfo);
      await sessions.getByName(claims.id).open(initialState(exchange, claims, { capabilities, ...(clientInfo && { clientInfo }) }));
    }
    // 2025-11-25: the session id is assigned on the InitializeResult, and nowhere else.
    context.reply.setHeader(HEADER.sessionId, token);
  }
  const { name, version: serverVersion } = server.info;
  return {
    protocolVersion: version,
    // Views only with a session: without one, later requests cannot know this client renders them.
    capabilities: legacyCapabilities(server.capabilities(exchange.env, "legacy", sessions ? capabilities : {}), sessions !== undefined),
    serverInfo: version === "2025-03-26" ? { name, version: serverVersion } : server.info,
    ...(server.instructions && { instructions: server.instructions }),
  };
}

/**
 * What a 2025 client is offered: exactly what it can use. Without sessions there is no log level to set, nothing
 * to subscribe with, and no stream to push change notifications on, so none of them is offered.
 */
function legacyCapabilities(capabilities: JsonObject, sessions: boolean): JsonObject {
  if (sessions) return capabilities;
  const { tools, resources, prompts, logging: _logging, ...rest } = capabilities;
  return { ...rest, ...(tools ? { tools: {} } : {}), ...(resources ? { resources: {} } : {}), ...(prompts ? { prompts: {} } : {}) };
}

/** A session's state as first stored: at initialize, or on first use of a feature that needs it. */
function initialState(
  exchange: HttpExchange,
  claims: SessionClaims,
  start: Pick<SessionState, "capabilities" | "clientInfo">,
): Omit<SessionState, "lastSeen"> {
  return {
    id: claims.id,
    version: claims.version,
    ...start,
    principal: (exchange.principal ?? ANONYMOUS).id,
    subscriptions: [],
    // Stored at initialize: ends when idle, as the client stops asking. Stored later: nothing touches it on
    // ordinary requests, so it lasts as long as its id does.
    idleMs: claims.stored ? exchange.config.limits.sessions.idleMs : exchange.config.limits.sessions.lifetimeMs,
    expiresAt: claims.expiresAt,
  };
}

/**
 * The stored state of the request's session, stored now if this is its first use of a feature that needs it.
 * Never a new session: an id is assigned at initialize only, so a request without one is refused.
 */
async function storedSession(context: LegacyContext, method: string): Promise<LiveSession> {
  const { exchange, session } = context;
  if (!sessionsOf(exchange.env)) throw methodNotFound(method);
  if (!session) throw new RpcError(ErrorCode.InvalidRequest, `${method} needs the session from initialize: send its Mcp-Session-Id`);
  if (session.live) return session.live;
  const initial = initialState(exchange, session.claims, { capabilities: {} });
  const state = asSessionState(await session.stub.loadOrOpen((exchange.principal ?? ANONYMOUS).id, initial));
  if (!state) throw sessionNotFound();
  return { state, stub: session.stub, timeoutMs: exchange.config.limits.sessions.inputTimeoutMs };
}

async function subscribe(context: LegacyContext, add: boolean, params: JsonObject): Promise<JsonObject> {
  const { server, exchange } = context;
  if (!server.listenSupport(exchange.env).resources) throw methodNotFound(add ? "resources/subscribe" : "resources/unsubscribe");
  const uri = params.uri;
  if (typeof uri !== "string" || uri.length === 0 || uri.length > MAX_URI_LENGTH)
    throw invalidParams(`Invalid params: uri must be a string of 1 to ${MAX_URI_LENGTH} characters`);
  const session = await storedSession(context, add ? "resources/subscribe" : "resources/unsubscribe");
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
