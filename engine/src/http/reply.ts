/**
 * @module http/reply
 * Answers one JSON-RPC request over HTTP. The answer is plain `application/json` unless the handler sends a
 * notification (progress, log) before it finishes, or is still running after `limits.request.streamAfterMs` (see
 * `keepAliveWhileRunning`); then the response turns into an SSE stream that carries the notifications, a keep-alive
 * comment in every `KEEPALIVE_MS` without one, and ends with the final response.
 *
 * What the client going away means depends on the revision: on 2026-07-28 closing the stream IS cancellation; on
 * 2025 revisions it is not (the client sends `notifications/cancelled`), so the handler runs on, and a resumable
 * stream (a 2025 session's, see `StreamJournal`) keeps its events for the client to fetch with `Last-Event-ID`.
 */
import { STREAM_AFTER_MS } from "../config/options";
import { accepts } from "./guards";
import { SseStream } from "./sse";

// The default of `limits.request.streamAfterMs`, for tests that time a Reply alone.
export { STREAM_AFTER_MS } from "../config/options";

/**
 * How often such a stream carries a keep-alive comment while its method runs (none in an interval that carried a
 * notification: that write does the same). Why 500 ms: under `wrangler dev` a Worker learns that its client closed
 * the connection only when a write fails (with writes this often: 1.5 s after the client left, on a minimal Worker;
 * 0.1 to 0.6 s for the template's retag_notebook aborted by the official client), so a hang-up reaches the method's
 * signal within about two seconds; and it is far below the ~100 s of silence after which Cloudflare's edge cuts a
 * stream. 13 bytes a write.
 */
export const KEEPALIVE_MS = 500;

export interface ReplyOptions {
  /** Headers of the HTTP response, whichever form it takes: an object of the caller's own, which the Reply adds to. */
  headers?: Record<string, string>;
  /** False for requests inside a batch: their answers are collected, so nothing can stream. Default: true. */
  canStream?: boolean;
  /** Told the HTTP status and JSON-RPC error code (if any) once the final response is sent. */
  onFinish?: (status: number, code: number | undefined) => void;
  /**
   * Whether the client going away cancels the request. True on 2026-07-28 (the spec says so); false on 2025
   * revisions, where a disconnect SHOULD NOT be taken as cancellation. Default: true.
   */
  disconnectCancels?: boolean;
  /** Event ids for the SSE form, and what becomes of its events once the client has gone. Default: none. */
  journal?: StreamJournal;
}

/**
 * Numbers a resumable response stream's events and keeps them once its client has gone (2025 sessions; see
 * `legacy/resume.ts`). The Reply tells it every message it sends; the journal decides what to keep.
 */
export interface StreamJournal {
  /** The priming event's id, sent first when the stream opens; undefined sends none (older 2025 revisions). */
  readonly primingId: string | undefined;
  /** Takes one message sent (or, after `detach`, that would have been sent) on the stream; returns its event id. */
  record(message: unknown): string;
  /** The client went away mid-stream: from now on the stream's events are kept for it to resume. */
  detach(): void;
  /** The stream is over: its final response was recorded, or the request was cancelled. */
  end(): void;
}

/** The status of a cancelled request's reply inside a batch: there is no answer to collect. */
export const NO_ANSWER = 204;

export class Reply {
  /** Resolves with the HTTP response as soon as its form is known. */
  readonly response: Promise<Response>;
  private resolve!: (response: Response) => void;
  /** Made on the first read of `signal`: most requests never look at it. */
  private abort: AbortController | undefined;
  private cancelled = false;
  private stream: SseStream | undefined;
  private done = false;
  /** The final JSON-RPC message, once `finish` has been called. */
  private final: unknown;
  /** The client went away, but the request runs on (2025). */
  private detached = false;

  private readonly headers: Record<string, string>;
  private readonly canStream: boolean;
  private readonly onFinish?: ReplyOptions["onFinish"];
  private readonly disconnectCancels: boolean;
  private readonly journal: StreamJournal | undefined;
  private readonly request: Request | undefined;
  private watchingClient = false;
  /** Until the method has run `streamAfterMs`: the timer that starts the keep-alive. */
  private keepAliveStart: ReturnType<typeof setTimeout> | undefined;
  /** Then: the timer that writes its comments. */
  private keepAlive: ReturnType<typeof setInterval> | undefined;

  /** `request` is the HTTP request answered: its signal (read only when needed, see `signal`) tells of a disconnect. */
  constructor(request: Request | undefined, options: ReplyOptions = {}) {
    this.headers = options.headers ?? {};
    this.canStream = options.canStream ?? true;
    this.onFinish = options.onFinish;
    this.disconnectCancels = options.disconnectCancels ?? true;
    this.journal = options.journal;
    this.response = new Promise((resolve) => (this.resolve = resolve));
    this.request = request;
    // 2025: a disconnect must be noticed whether or not anyone watches the signal (a resumable stream keeps its events).
    if (!this.disconnectCancels) this.watchClient();
  }

  /**
   * Aborted when the request is cancelled (on 2026-07-28 also when the client goes away).
   *
   * Why the client is watched only from the first read: reading and subscribing to the request's signal costs the
   * runtime work on every request, and a method that never looks at its signal has nothing to stop; a streamed answer
   * learns of a disconnect from its own stream.
   */
  get signal(): AbortSignal {
    this.watchClient();
    if (!this.abort) {
      this.abort = new AbortController();
      if (this.cancelled) this.abort.abort(cancellation());
    }
    return this.abort.signal;
  }

  /** Whether the answer turned into an SSE stream, whose method may still be running after the response started. */
  get streaming(): boolean {
    return this.stream !== undefined;
  }

  /** Sends a notification related to this request, switching the response to SSE if it is not already. */
  notify(message: unknown): void {
    if (this.done || this.cancelled || !this.canStream) return;
    if (this.detached) {
      // Only a stream the client holds an event id of can be resumed; anything else is lost with the client.
      if (this.stream) this.journal?.record(message);
      return;
    }
    this.openStream().send(message, this.journal?.record(message));
  }

  /**
   * Called when the method starts (2025) or once it is pending (2026-07-28: a method answered without a promise never
   * arms it, a timer could not have fired before it finished, since a timer runs only once the isolate is idle): if it
   * is still running after `afterMs` (`limits.request.streamAfterMs`), the answer turns into an SSE stream (if a
   * notification has not already made it one) with a comment now and every `KEEPALIVE_MS` (but in an interval that
   * carried a notification) until the reply finishes, is cancelled or loses its client. Why: a write is how the
   * Worker learns that the client has gone (under `wrangler dev` it is the only way; the failed write cancels the
   * stream, which aborts `signal` on 2026-07-28), and a stream with no byte for ~100 s is cut by Cloudflare's edge (a
   * 2025 call waiting for the user's answer to a question, say). A method that finishes sooner answers JSON as it
   * always did, and its timer is cleared.
   *
   * Not for a client whose Accept does not admit SSE (its answer stays JSON, and only the platform's `request.signal`
   * tells of its disconnect), nor inside a batch (`canStream: false`), nor where a header is still to be set after
   * the method ran (the 2025 handshake's session id): an SSE response's headers are sent when it starts.
   */
  keepAliveWhileRunning(afterMs = STREAM_AFTER_MS): void {
    if (!this.canStream || this.done || this.cancelled || this.detached) return;
    if (this.keepAliveStart !== undefined || this.keepAlive !== undefined) return;
    this.keepAliveStart = setTimeout(() => this.startKeepAlive(), afterMs);
  }

  /**
   * Sends the final response; anything sent afterwards is dropped (notifications MUST stop on completion). A
   * cancelled request gets none (the receiver of a cancellation SHOULD NOT respond). `serialized`: the message's JSON
   * text when the caller has it already (an answer kept per isolate), sent as the JSON body in place of serializing.
   */
  finish(message: unknown, httpStatus: number, headers: Record<string, string> = {}, serialized?: string): void {
    if (this.done) return;
    this.done = true;
    this.stopKeepAlive();
    this.final = message;
    const code = (message as { error?: { code?: number } }).error?.code;
    this.onFinish?.(this.stream ? 200 : httpStatus, code);
    if (this.cancelled) return;
    if (this.stream) {
      const id = this.journal?.record(message);
      this.stream.send(message, id);
      this.stream.close();
      this.journal?.end();
    } else {
      this.resolve(jsonBody(serialized ?? JSON.stringify(message), httpStatus, this.headers, headers));
    }
  }

  /** Adds a response header; only effective before the response has started. */
  setHeader(name: string, value: string): void {
    this.headers[name] = value;
  }

  get finished(): boolean {
    return this.done;
  }

  /** The final JSON-RPC message (sent or not: a cancelled request's is not), once finished; tracing reads how it ended. */
  get finalMessage(): unknown {
    return this.final;
  }

  /**
   * Cancels the request: the handler's signal aborts and no response follows. An open stream ends; a response
   * not yet started becomes an empty stream (the HTTP request still needs an answer, the JSON-RPC one must not),
   * or, inside a batch, 204 (`NO_ANSWER`: the batch leaves it out).
   */
  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.stopKeepAlive();
    this.abort?.abort(cancellation());
    this.journal?.end();
    if (this.stream) {
      this.stream.close();
    } else if (this.canStream) {
      const empty = new SseStream();
      empty.close();
      this.resolve(empty.response(this.headers));
    } else {
      this.resolve(new Response(null, { status: NO_ANSWER }));
    }
  }

  /** The response as an SSE stream, opened (with a resumable stream's priming event) on first use. */
  private openStream(): SseStream {
    if (!this.stream) {
      this.stream = new SseStream(() => this.clientGone());
      if (this.journal?.primingId !== undefined) this.stream.prime(this.journal.primingId);
      this.resolve(this.stream.response(this.headers));
    }
    return this.stream;
  }

  private startKeepAlive(): void {
    this.keepAliveStart = undefined;
    if (this.done || this.cancelled || this.detached) return;
    // Read only now: a method that finished before it streams never pays for parsing the header.
    if (!this.request || !accepts(this.request, "text/event-stream")) return;
    const stream = this.openStream();
    stream.keepAlive();
    this.keepAlive = setInterval(() => stream.keepAlive(), KEEPALIVE_MS);
  }

  private stopKeepAlive(): void {
    if (this.keepAliveStart !== undefined) clearTimeout(this.keepAliveStart);
    if (this.keepAlive !== undefined) clearInterval(this.keepAlive);
    this.keepAliveStart = undefined;
    this.keepAlive = undefined;
  }

  private watchClient(): void {
    if (this.watchingClient) return;
    this.watchingClient = true;
    // Reading `request.signal` is itself work for the runtime (it makes the signal object), hence only here.
    const signal = this.request?.signal;
    if (signal?.aborted) this.clientGone();
    else signal?.addEventListener("abort", () => this.clientGone(), { once: true });
  }

  /** The connection closed or the client dropped the stream. */
  private clientGone(): void {
    if (this.disconnectCancels) {
      this.cancel();
      return;
    }
    if (this.detached || this.done) return;
    this.detached = true;
    // Nothing more can reach the client.
    this.stopKeepAlive();
    this.stream?.close();
    if (this.stream) this.journal?.detach();
  }
}

const cancellation = () => new DOMException("The client cancelled the request", "AbortError");

/**
 * A JSON-RPC answer as `application/json`. Why not `Response.json()`: in workerd it measured a few microseconds
 * slower per answer than serializing first (bench, in-process loop), and every answer takes this path.
 */
export function jsonResponse(body: unknown, status: number, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

/** A JSON text as `application/json`, with the reply's headers and then the finish's own, in one headers object. */
function jsonBody(text: string, status: number, headers: Record<string, string>, more: Record<string, string>): Response {
  return new Response(text, { status, headers: { "content-type": "application/json", ...headers, ...more } });
}
