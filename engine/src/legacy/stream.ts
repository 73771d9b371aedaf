/**
 * @module legacy/stream
 * The two HTTP verbs a 2025 session adds: GET opens the session's notification stream (list changes and
 * updates of subscribed resources, fed by the hubs) or resumes a stream with Last-Event-ID, and DELETE ends a
 * session stored at initialize. Without a session both are 405, exactly as on the 2026-07-28 path; so is DELETE of
 * a session that stored nothing then.
 */

import type { HttpExchange } from "../http/exchange";
import { accepts } from "../http/guards";
import { callerKey } from "../http/rate-limit";
import { hubsOf } from "../listen/hub";
import { hubStream } from "../listen/hub-stream";
import { NOTIFICATION_METHODS } from "../listen/listen";
import type { McpServer } from "../server/server";
import { HttpError } from "../wire/errors";
import { ANONYMOUS } from "../wire/principal";
import { HEADER } from "../wire/types";
import { getEventId, newStreamKey, parseEventId, primes, resumeResponseStream } from "./resume";
import { sessionFilter } from "./session";
import { asSessionState, loadSession } from "./session-handle";

export const methodNotAllowed = () => new HttpError(405, "Method Not Allowed: send JSON-RPC messages with POST", { allow: "POST" });

/**
 * GET: the session's notification stream, or (with a Last-Event-ID naming a response stream) the rest of that
 * response stream. Event ids and resumption: see `resume.ts`.
 */
export async function openSessionStream(server: McpServer, exchange: HttpExchange): Promise<Response> {
  const support = server.listenSupport(exchange.env);
  const hasSession = exchange.request.headers.has(HEADER.sessionId) && exchange.config.legacyClients;
  if (!hasSession) throw methodNotAllowed();
  if (!accepts(exchange.request, "text/event-stream")) {
    throw new HttpError(406, "Not Acceptable: the notification stream is text/event-stream");
  }
  const session = await loadSession(exchange);
  if (!session) throw methodNotAllowed();
  const cursor = parseEventId(exchange.request.headers.get(HEADER.lastEventId));
  // A response stream is kept only by a session with stored state (see resume.ts).
  if (cursor?.kind === "post") {
    if (!session.live) throw methodNotAllowed();
    return resumeResponseStream(exchange, session.live, cursor.stream, cursor.index);
  }
  const hubs = hubsOf(exchange.env);
  if (!hubs || !(support.tools || support.prompts || support.resources)) throw methodNotAllowed();
  const stream = newStreamKey();
  const principal = exchange.principal ?? ANONYMOUS;
  // A session that stored nothing at initialize may have subscribed since; if it never did, it has no state.
  const state = session.live?.state ?? asSessionState(await session.stub.load(principal.id));
  return hubStream({
    hubs,
    settings: exchange.config.limits.listen,
    principal,
    caller: callerKey(exchange),
    log: exchange,
    filter: sessionFilter(support, state?.subscriptions ?? []),
    session: session.claims.id,
    signal: exchange.request.signal,
    headers: { [HEADER.requestId]: exchange.traceId },
    toMessage: (event) => ({
      jsonrpc: "2.0",
      method: NOTIFICATION_METHODS[event.type],
      ...(event.type === "resource_updated" && { params: { uri: event.uri } }),
    }),
    // An id this server did not issue (or none) starts afresh: the spec lets a server decline to replay.
    ...(cursor?.kind === "get" && { resumeAfter: cursor.positions }),
    eventId: (positions) => getEventId(stream, positions),
    prime: primes(session.claims.version),
  });
}

export async function endSession(exchange: HttpExchange): Promise<Response> {
  if (!exchange.request.headers.has(HEADER.sessionId) || !exchange.config.legacyClients) throw methodNotAllowed();
  const session = (await loadSession(exchange))!;
  // Why 405: a session that stored nothing at initialize is never looked up on ordinary requests, so ending it
  // could not make its id answer 404 as 2025-11-25 requires after a DELETE. It ends at its expiry instead.
  if (!session.live)
    throw new HttpError(405, "Method Not Allowed: this session cannot be ended early; it expires by itself", { allow: "POST" });
  await session.stub.end();
  return new Response(null, { status: 204 });
}
