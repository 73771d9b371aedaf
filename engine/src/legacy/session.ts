/**
 * @module legacy/session
 * The stored state of 2025-era sessions, only where a session needs some: stored at initialize for a client that
 * declared elicitation, sampling or roots (the server must send it requests), or on first use of
 * `resources/subscribe` or `logging/setLevel` by any other session. The session id itself is a signed token
 * (`session-token.ts`); a session that never needs stored state never touches this object.
 *
 * One Durable Object per session holds its state (version, capabilities, principal, log level, subscriptions)
 * and is the meeting point for server-to-client requests: the Worker running a tool opens its question here (the
 * session mints its id), sends it on its SSE stream and waits here; the client's answer arrives as a separate POST,
 * in any isolate, and is delivered here to the waiting tool, as JSON text. State ends by alarm: when idle, and at
 * the token's expiry. Nothing here is ever read by the 2026-07-28 path.
 */

import { DurableObject } from "cloudflare:workers";
import type { HubBindings } from "../listen/hub";
import { sessionHubs } from "../listen/publish";
import { assertFilterStorable, MAX_RESOURCE_SUBSCRIPTIONS } from "../listen/stored-size";
import { jsonBytes, randomToken } from "../util/encoding";
import { Wakers } from "../util/wake";
import type { ClientCapabilities, Implementation, JsonObject, LegacyVersion, LogLevel, RequestId } from "../wire/types";
import { WaitingLedger } from "./waiting";

export interface SessionState {
  id: string;
  version: LegacyVersion;
  capabilities: ClientCapabilities;
  clientInfo?: Implementation;
  /** The principal that created the session; any other principal is told the session does not exist. */
  principal: string;
  logLevel?: LogLevel;
  subscriptions: string[];
  idleMs: number;
  lastSeen: number;
  /** The session token's expiry: the state never outlives the id that names it. */
  expiresAt: number;
}

/** A session id: 32 random bytes, base64url (43 visible ASCII characters). */
export const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

export function newSessionId(): string {
  return randomToken(32);
}

/**
 * A server-to-client request this session sent (or is about to send), open until its tool has an outcome: the
 * client's response, or an error response in its place. Responses travel as JSON text (see `deliver`).
 */
interface OpenQuestion {
  /** The client's request whose tool asked: cancelling that request closes the question. */
  clientRequestId: RequestId;
  /**
   * The wait it belongs to (one `ctx.ask` of one call, named by the Worker): the session counts waiting calls by it,
   * never by the client's request id, which the client chooses (and could repeat to make many calls count as one).
   */
  call: string;
  /** Closes the question after its timeout, whether or not its tool is waiting yet. */
  timer: ReturnType<typeof setTimeout>;
  /** The tool's wait (`awaitResponse`), once it waits. */
  waiting?: (response: string) => void;
  /**
   * The outcome that came before the tool waited: the response's JSON text, and what it counts against
   * `MAX_EARLY_ANSWER_BYTES` (the client's answers count; the engine's own short error responses do not).
   */
  early?: { response: string; bytes: number };
}

/** A question's id, as the session mints it (`openQuestion`): any other id was never asked. */
export const QUESTION_ID = /^srv-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** One event of a response stream kept for resumption: its position in the stream (1 is the first message). */
export interface KeptEvent {
  index: number;
  message: JsonObject;
}

/** What a resuming client can still fetch of a response stream, and whether its final message is among it. */
export interface KeptStream {
  events: KeptEvent[];
  finished: boolean;
}

interface StoredStream extends KeptStream {
  bytes: number;
  /** When it was last written: kept streams expire after `KEPT_STREAMS.ttlMs`. */
  updated: number;
}

/** Touching a session writes storage; within this window a request does not write again. */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * When a session's state ends: after `idleMs` without a request, and at its token's expiry at the latest. State
 * stored before sessions had an expiry ends at once (no token can name it any more).
 */
const endOf = (session: SessionState) => Math.min(session.lastSeen + session.idleMs, session.expiresAt ?? 0);

/**
 * Response streams whose client went away mid-call are kept for it to resume (GET with Last-Event-ID). Why these
 * bounds: a stored value may hold 2 MB at most, and a string may be stored as UTF-16; a client that has not come
 * back within minutes will not, and the session's storage must not grow with every dropped call.
 */
export const KEPT_STREAMS = { maxBytes: 512 * 1024, maxStreams: 16, ttlMs: 10 * 60_000 } as const;

/** How many cancelled request ids a session remembers (a handler may start watching after the cancellation came). */
const MAX_CANCELLED = 256;

/**
 * The most memory a session spends on answers that came before their tool waited for them (see `deliver`), counted
 * as 2 bytes per UTF-16 unit of their JSON text (the most a string costs in memory). Why 4 MiB: only answers to this
 * session's own open questions are kept, each for the moments between asking and waiting, so two whole answers of
 * the default 1 MiB request body fit; the object's isolate has 128 MB, which other sessions' objects may share.
 */
export const MAX_EARLY_ANSWER_BYTES = 4 * 1024 * 1024;

/** What a session did with a client's answer (`deliver`). */
export type Delivery =
  /** Handed to the tool waiting for it. */
  | "delivered"
  /** Kept for the tool about to wait for it. */
  | "kept"
  /** Not kept: it would take the session's early answers over `MAX_EARLY_ANSWER_BYTES`; its tool gets an error response. */
  | "too-large"
  /** Not kept: no open question of this session has that id (never asked, already answered, timed out, or ended). */
  | "unknown";

/** What a string costs in memory, at most: V8 keeps a string in 1 byte per unit when it can, else 2. */
const inMemory = (text: string) => 2 * text.length;

/** Request ids are a string or a number, and "1" is not 1. */
const requestKey = (id: RequestId) => `${typeof id}:${id}`;

/** The binding 2025 sessions need (wrangler.toml `LEGACY_SESSIONS`); without it 2025 clients are served statelessly. */
export interface SessionBindings {
  LEGACY_SESSIONS?: DurableObjectNamespace<LegacySession>;
}

/** The session objects, when the Worker has them. */
export const sessionsOf = (env: object) => (env as SessionBindings).LEGACY_SESSIONS;

/**
 * The Durable Object of 2025 sessions that need stored state: one per session, created only for a client that
 * declared elicitation, sampling or roots (the server sends it requests and waits here for the answers), or that
 * uses `resources/subscribe` or `logging/setLevel`. Every other session is a signed token and stores nothing; the
 * 2026-07-28 path never reads this object.
 *
 * Yours to bind, not to call: export `createMcpWorker`'s `LegacySession` from the Worker's entry module and bind it
 * in wrangler.toml as `LEGACY_SESSIONS` (`class_name = "LegacySession"`, a SQLite class in `migrations`). Without
 * the binding, 2025 clients are served statelessly only.
 */
export class LegacySession extends DurableObject<HubBindings> {
  /** The questions this session asked and whose outcome no tool has taken yet, by id. */
  private readonly questions = new Map<string, OpenQuestion>();
  /** Ids of requests the client cancelled (oldest first), for handlers that ask after the fact. */
  private readonly cancelledRequests = new Set<string>();
  /** Handlers (in any isolate) waiting to learn that their request was cancelled, by request. */
  private readonly cancelWatchers = new Wakers<string>();
  /** Resuming clients waiting for more of a kept stream, by stream. */
  private readonly streamReaders = new Wakers<string>();
  /** The ledger role: an object named `waiting:<caller>` counts that caller's waiting calls (legacy/waiting.ts). */
  private readonly waiting = new WaitingLedger(this.ctx.storage);

  async open(state: Omit<SessionState, "lastSeen">): Promise<void> {
    const session: SessionState = { ...state, lastSeen: Date.now() };
    await this.ctx.storage.put("session", session);
    await this.ctx.storage.setAlarm(endOf(session));
  }

  /** The session's state for `principal`, or null when it does not exist, has expired, or is not theirs. */
  async load(principal: string): Promise<SessionState | null> {
    const session = await this.ctx.storage.get<SessionState>("session");
    if (!session || session.principal !== principal) return null;
    const now = Date.now();
    if (now >= endOf(session)) {
      await this.end();
      return null;
    }
    if (now - session.lastSeen > TOUCH_INTERVAL_MS) {
      session.lastSeen = now;
      await this.ctx.storage.put("session", session);
      await this.ctx.storage.setAlarm(endOf(session));
    }
    return session;
  }

  /**
   * The session's state for `principal`, stored first as `initial` when the session has none yet (its first use
   * of a feature that needs stored state). Null when the state there is another principal's or has ended.
   */
  async loadOrOpen(principal: string, initial: Omit<SessionState, "lastSeen">): Promise<SessionState | null> {
    if (!(await this.ctx.storage.get("session"))) await this.open(initial);
    return this.load(principal);
  }

  async update(changes: Partial<Pick<SessionState, "logLevel">>): Promise<SessionState | null> {
    const session = await this.ctx.storage.get<SessionState>("session");
    if (!session) return null;
    const updated = { ...session, ...changes };
    await this.ctx.storage.put("session", updated);
    return updated;
  }

  /**
   * Adds or removes one resource subscription and returns the new set, or why it was refused (nothing saved). Why
   * here: this object handles one change at a time, so two subscribes sent at once both count.
   */
  async changeSubscription(
    uri: string,
    add: boolean,
    support: ListChangeSupport,
  ): Promise<{ subscriptions: string[] } | { refused: string }> {
    const session = await this.ctx.storage.get<SessionState>("session");
    if (!session) return { refused: "Invalid params: the session has ended" };
    const current = new Set(session.subscriptions);
    if (add) current.add(uri);
    else current.delete(uri);
    if (current.size > MAX_RESOURCE_SUBSCRIPTIONS) {
      return { refused: `Invalid params: a session can subscribe to at most ${MAX_RESOURCE_SUBSCRIPTIONS} resources` };
    }
    const subscriptions = [...current];
    // Why before saving: the whole set becomes the filter of the session's stream, stored on a hub socket; a set the
    // hub cannot store is refused here, with nothing saved (removing a URI never makes it larger).
    try {
      if (add) assertFilterStorable(sessionFilter(support, subscriptions));
    } catch (error) {
      return { refused: (error as Error).message };
    }
    await this.ctx.storage.put("session", { ...session, subscriptions });
    return { subscriptions };
  }

  /** Ends the session: its state is deleted, its notification stream closed, and waiting tools released. */
  async end(): Promise<void> {
    for (const id of [...this.questions.keys()]) this.finish(id, failure(id, "The session ended"));
    this.cancelWatchers.wakeAll();
    this.streamReaders.wakeAll();
    const session = await this.ctx.storage.get<SessionState>("session");
    await this.ctx.storage.deleteAll();
    await this.ctx.storage.deleteAlarm();
    if (session) await Promise.all(sessionHubs(this.env.SUBSCRIPTIONS, session).map((hub) => hub.closeSession(session.id)));
  }

  /**
   * Opens a question (a server-to-client request) for the tool of the client's request `clientRequestId`, in its
   * wait `call`, and returns the id to send it with; undefined, opening nothing, when `call` is not waiting yet and
   * `maxWaitingCalls` calls of this session are (`limits.sessions.maxWaitingPerSession`). Why the session mints the
   * id, before the question is sent: the client's answer can arrive before the tool waits for it (see `deliver`), and
   * only an answer to a question this session asked may be kept; an id the session never minted is refused. After
   * `timeoutMs` the question closes, answered or not.
   */
  async openQuestion(clientRequestId: RequestId, timeoutMs: number, call: string, maxWaitingCalls: number): Promise<string | undefined> {
    // Why here: a waiting call holds a Worker invocation and its stream for as long as the client takes, and a
    // client can start calls as fast as the rate limit lets it; counted where the questions are, a call stops
    // counting when its last question closes (answered, timed out, cancelled), whatever became of its Worker.
    const calls = new Set([...this.questions.values()].map((question) => question.call));
    if (!calls.has(call) && calls.size >= maxWaitingCalls) return undefined;
    const id = `srv-${crypto.randomUUID()}`;
    const timer = setTimeout(() => this.finish(id, failure(id, "The client did not answer in time")), timeoutMs);
    this.questions.set(id, { clientRequestId, call, timer });
    return id;
  }

  /** Ledger role: counts the wait `call` in, until `expiresAt` at the latest, unless `max` calls of the caller wait. */
  async admitWaiting(call: string, expiresAt: number, max: number): Promise<boolean> {
    return this.waiting.admit(call, expiresAt, max);
  }

  /** Ledger role: the wait `call` is over. */
  async releaseWaiting(call: string): Promise<void> {
    await this.waiting.release(call);
  }

  /**
   * Waits for the outcome of the open question `id`: the client's response as JSON text, or a JSON-RPC error
   * response in its place when it times out, its request is cancelled, or the session ends (resolving, not
   * rejecting: a rejected RPC is logged as an uncaught error). An outcome that came first is handed over at once.
   */
  awaitResponse(id: string): Promise<string> {
    const question = this.questions.get(id);
    if (!question || question.waiting) return Promise.resolve(failure(id, "The question is not open"));
    if (question.early) {
      const { response } = question.early;
      this.finish(id, response);
      return Promise.resolve(response);
    }
    return new Promise((resolve) => {
      question.waiting = resolve;
    });
  }

  /**
   * Delivers a client's answer (its JSON-RPC response, as JSON text the Worker wrote from the POST) to the open
   * question `id`. Why text: a parsed answer would be copied into this object's isolate as objects, and JSON of many
   * empty objects costs more than ten times its length that way (`[{},{},...]`: 1 MB of it held about 17 MB); text
   * costs its length, and is parsed only by the tool that takes it. Why an answer is kept: the Worker opens its question here, sends it on the call's stream and then
   * calls `awaitResponse`, while the answer comes by another path (the client's POST, in any isolate); nothing
   * orders the two calls, so a quick client's answer can arrive first, and dropping it would leave the tool
   * waiting until `inputTimeoutMs`. Only an answer to an open question of this session is kept, the first one only,
   * and only while the early answers together stay within `MAX_EARLY_ANSWER_BYTES`; one that does not fit is
   * dropped, and its tool gets an error response at once instead of waiting out its timeout.
   */
  async deliver(id: string, response: string): Promise<Delivery> {
    const question = this.questions.get(id);
    // Why the first outcome wins: a question has one answer; a second would only take memory.
    if (!question || question.early) return "unknown";
    if (question.waiting) {
      this.finish(id, response);
      return "delivered";
    }
    const bytes = inMemory(response);
    if (this.earlyAnswerBytes() + bytes > MAX_EARLY_ANSWER_BYTES) {
      const message = `The client's answer did not fit in the ${MAX_EARLY_ANSWER_BYTES} bytes a session keeps for tools about to wait`;
      question.early = { response: failure(id, message), bytes: 0 };
      return "too-large";
    }
    question.early = { response, bytes };
    return "kept";
  }

  /**
   * The client cancelled one of its requests (`notifications/cancelled`, which may arrive in any isolate): stop
   * waiting on its behalf, and tell the handler running it, now or whenever it asks.
   */
  async cancel(clientRequestId: RequestId): Promise<void> {
    for (const [id, question] of this.questions) {
      if (question.clientRequestId !== clientRequestId) continue;
      const cancelled = failure(id, "The client cancelled the request", true);
      // A tool not yet waiting gets the cancellation when it waits; it replaces any early answer.
      if (question.waiting) this.finish(id, cancelled);
      else question.early = { response: cancelled, bytes: 0 };
    }
    const key = requestKey(clientRequestId);
    this.cancelledRequests.delete(key);
    this.cancelledRequests.add(key);
    // Why a bound: the ids come from the client. Request ids are not reused within a session, so the oldest go first.
    for (const oldest of this.cancelledRequests) {
      if (this.cancelledRequests.size <= MAX_CANCELLED) break;
      this.cancelledRequests.delete(oldest);
    }
    this.cancelWatchers.wake(key);
  }

  /**
   * Resolves true once the client cancels `clientRequestId` (at once if it already has); false after `waitMs`, or
   * when the handler stops watching (`unwatchCancellation`).
   */
  async watchCancellation(clientRequestId: RequestId, waitMs: number): Promise<boolean> {
    const key = requestKey(clientRequestId);
    if (this.cancelledRequests.has(key)) return true;
    // Woken by the cancellation, the handler's unwatch or the session's end: only the first is a cancellation.
    await this.cancelWatchers.wait(key, waitMs);
    return this.cancelledRequests.has(key);
  }

  /**
   * The handler finished: release its pending watch. (A client that reuses a request id while the first request
   * runs, against the spec, releases both; each renews its watch.)
   */
  async unwatchCancellation(clientRequestId: RequestId): Promise<void> {
    this.cancelWatchers.wake(requestKey(clientRequestId));
  }

  /**
   * Appends events of a response stream whose client went away (`finished` once its final message is among them).
   * Only the newest `KEPT_STREAMS.maxBytes` (JSON, as stored) are kept; a final message larger than that alone is
   * replaced by an error response saying so, so a resuming client is never left waiting for it.
   */
  async keepStream(key: string, events: KeptEvent[], finished: boolean): Promise<void> {
    // Why: a write that lands after the session ended would leave storage that nothing ever deletes.
    if (!(await this.exists())) return;
    const stored = (await this.ctx.storage.get<StoredStream>(`stream:${key}`)) ?? { events: [], finished: false, bytes: 0, updated: 0 };
    stored.updated = Date.now();
    for (const event of events) {
      stored.events.push(event);
      stored.bytes += jsonBytes(event);
    }
    stored.finished ||= finished;
    while (stored.bytes > KEPT_STREAMS.maxBytes && stored.events.length > 1) stored.bytes -= jsonBytes(stored.events.shift()!);
    const only = stored.events[0];
    if (only && stored.bytes > KEPT_STREAMS.maxBytes) {
      const id = (only.message.id as RequestId | undefined) ?? null;
      const message = `The response was larger than the ${KEPT_STREAMS.maxBytes} bytes kept for resumption`;
      stored.events = [{ index: only.index, message: { jsonrpc: "2.0", id, error: { code: -32603, message } } }];
      stored.bytes = jsonBytes(stored.events[0]);
    }
    const index = await this.keptStreamIndex(key);
    await this.ctx.storage.put({ [`stream:${key}`]: stored, streams: index });
    this.streamReaders.wake(key);
  }

  /**
   * What a resuming client has not seen of a kept stream (events after `after`), or null when the session keeps
   * no such stream. When there is nothing new yet, waits up to `waitMs` for more (or for the stream to be kept:
   * a client may come back before its old connection is known to be gone).
   */
  async readStream(key: string, after: number, waitMs: number): Promise<KeptStream | null> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const found = await this.ctx.storage.get<StoredStream>(`stream:${key}`);
      const stored = found && Date.now() - found.updated <= KEPT_STREAMS.ttlMs ? found : undefined;
      const events = stored?.events.filter((event) => event.index > after) ?? [];
      const left = deadline - Date.now();
      if ((stored && (events.length > 0 || stored.finished)) || left <= 0) return stored ? { events, finished: stored.finished } : null;
      await this.streamReaders.wait(key, left);
      if (!(await this.exists())) return null;
    }
  }

  override async alarm(): Promise<void> {
    const session = await this.ctx.storage.get<SessionState>("session");
    // A ledger's alarm (legacy/waiting.ts): what lost releases left has expired.
    if (!session) {
      await this.waiting.prune();
      return;
    }
    if (Date.now() >= endOf(session)) await this.end();
    else await this.ctx.storage.setAlarm(endOf(session));
  }

  /**
   * Forgets the open question `id`, handing `response` (its outcome, as JSON text) to its tool if it waits. A
   * question that times out before its tool waits is forgotten with whatever it kept: no tool is coming for it.
   */
  private finish(id: string, response: string): void {
    const question = this.questions.get(id);
    if (!question) return;
    clearTimeout(question.timer);
    this.questions.delete(id);
    question.waiting?.(response);
  }

  /** What the early answers of this session's open questions hold in memory, counted as `MAX_EARLY_ANSWER_BYTES` is. */
  private earlyAnswerBytes(): number {
    let total = 0;
    for (const question of this.questions.values()) total += question.early?.bytes ?? 0;
    return total;
  }

  /** Whether the session still exists (it may have ended while a call ran on). */
  private async exists(): Promise<boolean> {
    return (await this.ctx.storage.get("session")) !== undefined;
  }

  /** The index of kept streams after (re)keeping `key`: expired ones and the oldest beyond the cap are deleted. */
  private async keptStreamIndex(key: string): Promise<Record<string, number>> {
    const now = Date.now();
    const index = { ...(await this.ctx.storage.get<Record<string, number>>("streams")), [key]: now };
    const newestFirst = Object.entries(index).sort(([, a], [, b]) => b - a);
    const gone = newestFirst.filter(([, kept], position) => now - kept > KEPT_STREAMS.ttlMs || position >= KEPT_STREAMS.maxStreams);
    for (const [old] of gone) delete index[old];
    if (gone.length > 0) await this.ctx.storage.delete(gone.map(([old]) => `stream:${old}`));
    return index;
  }
}

/**
 * A JSON-RPC error response to the question `id`, as text: what its tool gets in place of the client's answer. One
 * marked `cancelled` tells the tool that the client cancelled the request it runs for.
 */
function failure(id: string, message: string, cancelled = false): string {
  const error = { code: -32603, message, ...(cancelled && { data: { cancelled: true } }) };
  return JSON.stringify({ jsonrpc: "2.0", id, error });
}

/** Which notifications the server can deliver to a 2025 session (see `ListenSupport`). */
export type ListChangeSupport = { tools: boolean; prompts: boolean; resources: boolean };

/** What a legacy session's notification stream receives: every list change offered, and its subscriptions. */
export function sessionFilter(support: ListChangeSupport, subscriptions: string[]) {
  return {
    ...(support.tools && { toolsListChanged: true }),
    ...(support.prompts && { promptsListChanged: true }),
    ...(support.resources && { resourcesListChanged: true }),
    ...(support.resources && subscriptions.length > 0 && { resourceSubscriptions: subscriptions }),
  };
}
