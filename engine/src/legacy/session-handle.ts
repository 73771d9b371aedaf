/**
 * @module legacy/session-handle
 * The 2025 session a request names: its `Mcp-Session-Id` checked (a signed token, `session-token.ts`) before any
 * storage is read, its stored state loaded where it has one, and stored on first use of a feature that needs it.
 */
import type { HttpExchange } from "../http/exchange";
import { ErrorCode, methodNotFound, RpcError } from "../wire/errors";
import { ANONYMOUS } from "../wire/principal";
import { HEADER } from "../wire/types";
import type { LiveSession } from "./live-answers";
import { type LegacySession, type SessionState, sessionsOf } from "./session";
import { readSession, type SessionClaims } from "./session-token";

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

/** A session's state as first stored: at initialize, or on first use of a feature that needs it. */
export function initialState(
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
export async function storedSession(exchange: HttpExchange, session: SessionHandle | undefined, method: string): Promise<LiveSession> {
  if (!sessionsOf(exchange.env)) throw methodNotFound(method);
  if (!session) throw new RpcError(ErrorCode.InvalidRequest, `${method} needs the session from initialize: send its Mcp-Session-Id`);
  if (session.live) return session.live;
  const initial = initialState(exchange, session.claims, { capabilities: {} });
  const state = asSessionState(await session.stub.loadOrOpen((exchange.principal ?? ANONYMOUS).id, initial));
  if (!state) throw sessionNotFound();
  return { state, stub: session.stub, timeoutMs: exchange.config.limits.sessions.inputTimeoutMs };
}
