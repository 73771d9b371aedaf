/**
 * @module legacy/resume
 * Event ids and resumption for the streams of a 2025 session (2025-11-25 transports: "Resumability and
 * Redelivery"). A session-less client gets no ids: without a session nothing could resume its stream (a GET
 * without one is 405), and its request ids are only unique per session.
 *
 * Event ids name their stream, so they are unique within the session and a `Last-Event-ID` says which stream to
 * resume (12 random base64url characters per stream connection):
 * - a response stream: `post:<stream>:<n>`, n counting its events (0 is the priming event, 1 the first message);
 * - the GET stream: `get:<stream>:<principal>:<global>`, the positions of the two hubs it listens to (see
 *   `listen/hub-stream.ts`). Its resumption is the hubs' replay buffer; the `<stream>` part only keeps ids unique.
 *
 * A response stream is kept only when its client goes away mid-call: its events so far (held in memory meanwhile)
 * and every later one, up to the final response, go to the session's Durable Object, where a GET with one of its
 * ids fetches the rest. A stream that ended while its client held it is not stored at all.
 */

import type { HttpExchange } from "../http/exchange";
import type { StreamJournal } from "../http/reply";
import { SseStream } from "../http/sse";
import type { HubPositions } from "../listen/hub-stream";
import { randomToken } from "../util/encoding";
import { describeError, log } from "../util/log";
import { HttpError } from "../wire/errors";
import { HEADER, type JsonObject, type LegacyVersion } from "../wire/types";
import type { LiveSession } from "./live-answers";
import type { KeptEvent, KeptStream } from "./session";

export type EventCursor = { kind: "post"; stream: string; index: number } | { kind: "get"; positions: HubPositions };

const POST_ID = /^post:([A-Za-z0-9_-]{12}):(\d{1,9})$/;
const GET_ID = /^get:([A-Za-z0-9_-]{12}):(\d{1,15}):(\d{1,15})$/;

export const postEventId = (stream: string, index: number) => `post:${stream}:${index}`;
export const getEventId = (stream: string, positions: HubPositions) => `get:${stream}:${positions.principal}:${positions.global}`;

/** A new stream's part of its event ids: 9 random bytes. */
export function newStreamKey(): string {
  return randomToken(9);
}

/** What a `Last-Event-ID` header points at; undefined for anything this server did not issue (a fresh start). */
export function parseEventId(header: string | null): EventCursor | undefined {
  if (header === null) return undefined;
  const post = POST_ID.exec(header);
  if (post) return { kind: "post", stream: post[1]!, index: Number(post[2]) };
  const get = GET_ID.exec(header);
  if (get) return { kind: "get", positions: { principal: Number(get[2]), global: Number(get[3]) } };
  return undefined;
}

/** Why the priming event only from 2025-11-25: earlier clients parse every event's data, and an empty one fails. */
export const primes = (version: LegacyVersion) => version === "2025-11-25";

/** How many events a response stream holds in memory while its client is connected, should it go away. */
const HISTORY_EVENTS = 256;

/** The journal of one response stream in a session: ids for its events, and keeping them once the client is gone. */
export function responseJournal(session: LiveSession, exchange: HttpExchange): StreamJournal {
  const stream = newStreamKey();
  let index = 0;
  let detached = false;
  let ended = false;
  let endKept = false;
  const history: KeptEvent[] = [];
  let unkept: KeptEvent[] = [];
  let keeping: Promise<void> | undefined;

  // One write at a time, in order; events recorded meanwhile go with the next write.
  async function keepAll(): Promise<void> {
    try {
      while (unkept.length > 0 || (ended && !endKept)) {
        const events = unkept.splice(0);
        const finished = ended;
        await session.stub.keepStream(stream, events, finished);
        endKept = finished;
      }
    } catch (error) {
      log(exchange, "error", "keeping a response stream failed", describeError(error));
      unkept = [];
      endKept = true;
    }
    keeping = undefined;
  }
  const keep = () => {
    if (keeping) return;
    keeping = keepAll();
    exchange.execution.waitUntil(keeping);
  };

  return {
    primingId: primes(session.state.version) ? postEventId(stream, 0) : undefined,
    record(message) {
      // Everything a Reply sends is a JSON-RPC message object.
      const event = { index: ++index, message: message as JsonObject };
      if (detached) {
        unkept.push(event);
        keep();
      } else {
        history.push(event);
        if (history.length > HISTORY_EVENTS) history.shift();
      }
      return postEventId(stream, event.index);
    },
    detach() {
      if (detached) return;
      detached = true;
      unkept = history.splice(0);
      keep();
    },
    end() {
      if (ended) return;
      ended = true;
      if (detached) keep();
    },
  };
}

/** The RPC types cannot express JSON values (`unknown`), so the stub's result is typed here. */
const readKept = (session: LiveSession, stream: string, after: number, waitMs: number) =>
  session.stub.readStream(stream, after, waitMs) as Promise<KeptStream | null>;

/** How long a resuming client waits for a stream that its old connection has not yet been found to have left. */
const RESUME_GRACE_MS = 2_000;

/**
 * Answers a GET whose Last-Event-ID names a response stream: what the client has not seen of it, then (unless it
 * is over) the rest as it comes, ending with the final response. 405 when the session has nothing (more) of that
 * stream: it ended while the client held it, expired, or never was.
 */
export async function resumeResponseStream(exchange: HttpExchange, session: LiveSession, stream: string, after: number) {
  const first = await readKept(session, stream, after, RESUME_GRACE_MS);
  if (!first || (first.finished && first.events.length === 0)) {
    throw new HttpError(405, "Method Not Allowed: nothing is left to resume for this Last-Event-ID", { allow: "GET, POST, DELETE" });
  }
  const { keepAliveMs, maxLifetimeMs } = exchange.config.limits.listen;
  const sse = new SseStream();
  exchange.request.signal.addEventListener("abort", () => sse.close(), { once: true });
  let last = after;
  const send = (kept: KeptStream) => {
    for (const event of kept.events) sse.send(event.message, postEventId(stream, event.index));
    last = kept.events.at(-1)?.index ?? last;
    if (kept.finished) sse.close();
  };
  send(first);
  if (sse.isOpen) {
    const deadline = Date.now() + maxLifetimeMs;
    (async () => {
      while (sse.isOpen && Date.now() < deadline) {
        const next = await readKept(session, stream, last, Math.min(keepAliveMs, deadline - Date.now()));
        if (!next) break;
        if (next.events.length === 0 && !next.finished) sse.comment();
        send(next);
      }
      sse.close();
    })().catch((error: unknown) => {
      log(exchange, "error", "resuming a response stream failed", describeError(error));
      sse.close();
    });
  }
  return sse.response({ [HEADER.requestId]: exchange.traceId });
}
