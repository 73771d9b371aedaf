/**
 * @module legacy-stream
 * The two HTTP verbs a 2025 session adds: GET opens the session's notification stream (list changes and
 * updates of subscribed resources, fed by the hubs) or resumes a stream with Last-Event-ID, and DELETE ends the
 * session. Without a session both are 405, exactly as on the 2026-07-28 path.
 */

import { ANONYMOUS } from "../auth/principal";
import type { HttpExchange } from "../http/exchange";
import { hubStream } from "../listen/hub-stream";
import { NOTIFICATION_METHODS } from "../listen/listen";
import { HttpError } from "../protocol/errors";
import type { McpServer } from "../protocol/server";
import { HEADER } from "../protocol/wire";
import { getEventId, newStreamKey, parseEventId, primes, resumeResponseStream } from "./resume";
import { loadSession, sessionFilter } from "./serve";

export const methodNotAllowed = () => new HttpError(405, "Method Not Allowed: send JSON-RPC messages with POST", { allow: "POST" });

/**
 * GET: the session's notification stream, or (with a Last-Event-ID naming a response stream) the rest of that
 * response stream. Event ids and resumption: see `resume.ts`.
 */
export async function openSessionStream(server: McpServer, exchange: HttpExchange): Promise<Response> {
  const support = server.listenSupport(exchange.env);
  const hasSession = exchange.request.headers.has(HEADER.sessionId) && exchange.config.legacy.enabled;
  if (!hasSession) throw methodNotAllowed();
  if (!/text\/event-stream|\*\/\*/i.test(exchange.request.headers.get("accept") ?? "")) {
    throw new HttpError(406, "Not Acceptable: the notification stream is text/event-stream");
  }
  const session = await loadSession(exchange);
  if (!session) throw methodNotAllowed();
  const cursor = parseEventId(exchange.request.headers.get(HEADER.lastEventId));
  if (cursor?.kind === "post") return resumeResponseStream(exchange, session, cursor.stream, cursor.index);
  const hubs = exchange.env.SUBSCRIPTIONS;
  if (!hubs || !(support.tools || support.prompts || support.resources)) throw methodNotAllowed();
  const stream = newStreamKey();
  return hubStream({
    hubs,
    settings: exchange.config.listen,
    principal: exchange.principal ?? ANONYMOUS,
    log: exchange,
    filter: sessionFilter(support, session.state.subscriptions),
    globalShard: session.state.shard,
    session: session.state.id,
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
    prime: primes(session.state.version),
  });
}

export async function endSession(exchange: HttpExchange): Promise<Response> {
  if (!exchange.request.headers.has(HEADER.sessionId) || !exchange.config.legacy.enabled) throw methodNotAllowed();
  const session = (await loadSession(exchange))!;
  await session.stub.end();
  return new Response(null, { status: 204 });
}
