/**
 * @module legacy/batch
 * 2025-03-26's batches: an array of messages, each answered by the same dispatch as a single request (its own reply,
 * which cannot stream), all answered together as one array (202 when it held no request).
 */
import type { HttpExchange } from "../http/exchange";
import { checkRateLimit } from "../http/rate-limit";
import { jsonResponse, NO_ANSWER, Reply } from "../http/reply";
import type { McpServer } from "../server/server";
import { logRequest } from "../util/log";
import { isObject, type Message, parseMessage, readableId } from "../wire/envelope";
import { ErrorCode, RpcError } from "../wire/errors";
import { errorMessage, failureMessage } from "../wire/messages";
import { HEADER, type LegacyVersion } from "../wire/types";
import { answer } from "./dispatch";
import type { SessionHandle } from "./session-handle";

/** 2025-03-26 only: an array of messages, answered with an array of responses (202 if it held none). */
export async function serveBatch(
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
