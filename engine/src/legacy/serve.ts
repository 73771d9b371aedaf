/**
 * @module legacy/serve
 * Serves one 2025-era message (2025-11-25, 2025-06-18, 2025-03-26), as modern/serve.ts serves a 2026-07-28 one: the
 * session it names (`session-handle.ts`), the revision, then by its kind: a client's answer to a server request goes
 * to its session, a notification is accepted (a cancellation reaches its request), a batch is 2025-03-26's
 * (`batch.ts`), and a request is dispatched (`dispatch.ts`: the handshake, the methods, each revision's shapes).
 *
 * Sessions: with the LEGACY_SESSIONS binding every client gets an `Mcp-Session-Id` on its InitializeResult, and
 * only there (2025-11-25). The id is a signed token (`session-token.ts`); its state is stored (`session.ts`) at
 * initialize only for a client that can be asked things, else on first use of `logging/setLevel` or
 * `resources/subscribe`. Requests of a session that stored nothing touch no Durable Object. Without the binding
 * every client is served per request, and what needs a session is neither offered nor served.
 */

import type { HttpExchange } from "../http/exchange";
import { Reply } from "../http/reply";
import type { McpServer } from "../server/server";
import { targetOf } from "../server/trace";
import { logRequest } from "../util/log";
import { isObject, parseMessage, readableId } from "../wire/envelope";
import { ErrorCode, RpcError } from "../wire/errors";
import { methodName } from "../wire/messages";
import { HEADER, isLegacyVersion, STATELESS_VERSION } from "../wire/types";
import { serveBatch } from "./batch";
import { answer } from "./dispatch";
import { deliverAnswer } from "./live-answers";
import { responseJournal } from "./resume";
import { loadSession } from "./session-handle";

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
    // Only a session stored at initialize is ever asked anything (see live-answers.ts).
    if (!session?.live)
      throw new RpcError(ErrorCode.InvalidRequest, "Invalid Request: a response needs the session that asked", undefined, 400);
    await deliverAnswer(session.live, message);
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
  // Only a tool or prompt the server has: any other name is whatever the client typed (see server/trace.ts targetOf).
  record.name = targetOf(server, message.method, message.params);
  const reply = new Reply(exchange.request, {
    headers: { [HEADER.requestId]: exchange.traceId },
    onFinish: (status, code) => logRequest(record, status, code),
    // 2025: a disconnect is not cancellation (the client sends notifications/cancelled), so the handler runs on;
    // a stored session's response stream carries event ids and is kept for the client to resume once it has gone.
    disconnectCancels: false,
    ...(session?.live && { journal: responseJournal(session.live, exchange) }),
  });
  // A slow answer streams with keep-alive comments (Reply.keepAliveWhileRunning): a stream the client left is then
  // noticed and kept for it to resume, and a call waiting for the user's answer is not cut as idle. Not initialize:
  // its session id header is set once the session is made, and an SSE response's headers are already sent.
  if (message.method !== "initialize" && server.waits(message.method))
    reply.keepAliveWhileRunning(exchange.config.limits.request.streamAfterMs);
  const done = answer(server, exchange, message, version, session, reply, true);
  exchange.execution.waitUntil(done);
  return reply.response;
}
