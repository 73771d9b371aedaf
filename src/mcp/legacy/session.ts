/**
 * @module session
 * The stored state of 2025-era sessions, only where a session needs some: stored at initialize for a client that
 * declared elicitation, sampling or roots (the server must send it requests), or on first use of
 * `resources/subscribe` or `logging/setLevel` by any other session. The session id itself is a signed token
 * (`session-token.ts`); a session that never needs stored state never touches this object.
 *
 * One Durable Object per session holds its state (version, capabilities, principal, log level, subscriptions)
 * and is the meeting point for server-to-client requests: the Worker running a tool sends the request on its
 * SSE stream and waits here; the client's answer arrives as a separate POST, in any isolate, and is delivered
 * here to the waiting tool. State ends by alarm: when idle, and at the token's expiry. Nothing here is ever read
 * by the 2026-07-28 path.
 */
import { DurableObject } from "cloudflare:workers";
import type { SubscriptionHub } from "../listen/hub";
import { sessionHubs } from "../listen/publish";
import type { ClientCapabilities, Implementation, JsonObject, LegacyVersion, LogLevel, RequestId } from "../protocol/wire";

export interface SessionState {
  id: string;
  version: LegacyVersion;
  capabilities: ClientCapabilities;
  clientInfo?: Implementation;
  /** The principal that created the session; any other principal is told the session does not exist. */
  principal: string;
  logLevel?: LogLevel;
  subscriptions: string[];
  /** The global hub shard its notification stream joins. */
  shard: number;
  idleMs: number;
  lastSeen: number;
  /** The session token's expiry: the state never outlives the id that names it. */
  expiresAt: number;
}

/** A session id: 32 random bytes, base64url (43 visible ASCII characters). */
export const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

export function newSessionId(): string {
  return crypto.getRandomValues(new Uint8Array(32)).toBase64({ alphabet: "base64url", omitPadding: true });
}

interface Waiter {
  clientRequestId: RequestId;
  resolve: (message: JsonObject) => void;
  timer: ReturnType<typeof setTimeout>;
}

/** Touching a session writes storage; within this window a request does not write again. */
const TOUCH_INTERVAL_MS = 60_000;

/**
 * When a session's state ends: after `idleMs` without a request, and at its token's expiry at the latest. State
 * stored before sessions had an expiry ends at once (no token can name it any more).
 */
const endOf = (session: SessionState) => Math.min(session.lastSeen + session.idleMs, session.expiresAt ?? 0);

export class LegacySession extends DurableObject<{ SUBSCRIPTIONS?: DurableObjectNamespace<SubscriptionHub> }> {
  private readonly waiters = new Map<string, Waiter>();

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

  async update(changes: Partial<Pick<SessionState, "logLevel" | "subscriptions">>): Promise<SessionState | null> {
    const session = await this.ctx.storage.get<SessionState>("session");
    if (!session) return null;
    const updated = { ...session, ...changes };
    await this.ctx.storage.put("session", updated);
    return updated;
  }

  /** Ends the session: its state is deleted, its notification stream closed, and waiting tools released. */
  async end(): Promise<void> {
    for (const [id, waiter] of this.waiters) this.settle(id, waiter, "The session ended");
    const session = await this.ctx.storage.get<SessionState>("session");
    await this.ctx.storage.deleteAll();
    await this.ctx.storage.deleteAlarm();
    if (session) await Promise.all(sessionHubs(this.env.SUBSCRIPTIONS, session).map((hub) => hub.closeSession(session.id)));
  }

  /**
   * Waits for the client's response to the server-to-client request `id` (sent by the caller on its stream).
   * After `timeoutMs`, when the client cancels `clientRequestId`, or when the session ends, it resolves with a
   * JSON-RPC error response instead (resolving, not rejecting: a rejected RPC is logged as an uncaught error).
   */
  awaitResponse(id: string, clientRequestId: RequestId, timeoutMs: number): Promise<JsonObject> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle(id, this.waiters.get(id), "The client did not answer in time"), timeoutMs);
      this.waiters.set(id, { clientRequestId, resolve, timer });
    });
  }

  /** Delivers a client's JSON-RPC response; false when no tool is waiting for that id. */
  async deliver(message: JsonObject): Promise<boolean> {
    const id = String(message.id);
    const waiter = this.waiters.get(id);
    if (!waiter) return false;
    this.settle(id, waiter, message);
    return true;
  }

  /** The client cancelled one of its requests: stop waiting on its behalf. */
  async cancel(clientRequestId: RequestId): Promise<void> {
    for (const [id, waiter] of this.waiters) {
      if (waiter.clientRequestId === clientRequestId) this.settle(id, waiter, "The client cancelled the request");
    }
  }

  async alarm(): Promise<void> {
    const session = await this.ctx.storage.get<SessionState>("session");
    if (!session) return;
    if (Date.now() >= endOf(session)) await this.end();
    else await this.ctx.storage.setAlarm(endOf(session));
  }

  /** Hands the waiting tool the client's response, or (given a reason) an error response in its place. */
  private settle(id: string, waiter: Waiter | undefined, outcome: JsonObject | string): void {
    if (!waiter) return;
    clearTimeout(waiter.timer);
    this.waiters.delete(id);
    waiter.resolve(typeof outcome === "string" ? { jsonrpc: "2.0", id, error: { code: -32603, message: outcome } } : outcome);
  }
}
