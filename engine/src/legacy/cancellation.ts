/**
 * @module legacy/cancellation
 * `notifications/cancelled` for 2025 sessions. On 2025 revisions a dropped connection is not cancellation; the
 * client sends the notification instead, as a separate POST that may reach any isolate while the request runs in
 * another. The session's Durable Object is where the two meet: it remembers the cancelled ids, and a handler still
 * running after `WATCH_DELAY_MS` asks it (one pending call at a time, up to `WATCH_WAIT_MS` each) to be told. A
 * handler that finishes sooner costs nothing; one that was cancelled before it asked learns it at once.
 *
 * Session-less clients have no such meeting point, and their request ids are only unique per session: their
 * `notifications/cancelled` cannot reach the request, which runs to completion.
 */
import type { HttpExchange } from "../http/exchange";
import type { Reply } from "../http/reply";
import { describeError, log } from "../util/log";
import type { RequestId } from "../wire/types";
import type { LiveSession } from "./live-answers";

/** Most requests finish within this; only longer ones watch for their cancellation. */
const WATCH_DELAY_MS = 1_000;
/** The longest one watch call is held open in the session's Durable Object before it is renewed. */
const WATCH_WAIT_MS = 30_000;

/** Cancels `reply` when the client cancels `requestId`; the returned function stops watching (call it when done). */
export function watchCancellation(
  session: Pick<LiveSession, "stub">,
  requestId: RequestId,
  reply: Reply,
  exchange: HttpExchange,
): () => void {
  let watching = true;
  let pending = false;
  const watch = async () => {
    try {
      while (watching) {
        pending = true;
        const cancelled = await session.stub.watchCancellation(requestId, WATCH_WAIT_MS);
        pending = false;
        if (cancelled && watching) {
          reply.cancel();
          return;
        }
      }
    } catch (error) {
      log({ traceId: exchange.traceId, requestId }, "error", "watching for cancellation failed", describeError(error));
    }
  };
  const timer = setTimeout(watch, WATCH_DELAY_MS);
  return () => {
    watching = false;
    clearTimeout(timer);
    // Releases the call held open in the Durable Object now, rather than when it times out.
    if (pending) exchange.execution.waitUntil(session.stub.unwatchCancellation(requestId).catch(() => undefined));
  };
}
