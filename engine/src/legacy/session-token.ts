/**
 * @module legacy/session-token
 * A 2025 session id that carries what a request needs to know about its session: a signed token (the
 * `requestState` codec under the same STATE_KEYS, with its own purpose) naming the session's own random id, the
 * negotiated version, whether its state was stored at initialize, and when it ends; bound to the principal.
 * Reading one costs an HMAC, never storage, so a forged, expired or another principal's id is turned away before
 * any Durable Object is touched, and a session that stores nothing costs nothing to keep.
 *
 * Signed, not encrypted: the client can read its session's id, version and expiry (nothing secret). The principal
 * is bound as a keyed digest only, so the token does not say who the caller is.
 */
import type { Config } from "../config/config";
import { keyRing } from "../config/key-ring";
import { open, seal } from "../config/signing";
import { isLegacyVersion, type LegacyVersion } from "../wire/types";
import { newSessionId, SESSION_ID } from "./session";

export interface SessionClaims {
  /** The session's own random id: names its Durable Object and its notification stream in the hubs. */
  id: string;
  version: LegacyVersion;
  /**
   * True when the session's state was stored at initialize (a client that can be asked things): every request
   * then reads it. False: nothing is read until a feature needs stored state.
   */
  stored: boolean;
  /** When the session ends (ms since the epoch); no request can extend it. */
  expiresAt: number;
}

/** Why a purpose of its own: a `requestState` token must never pass as a session id, nor the other way round. */
const PURPOSE = "mcp.legacySession";
/** A real token is about 300 characters (320 with a 16-character key id); anything longer is refused before any crypto. */
const MAX_LENGTH = 512;

/** A new session for `principal`; the token is its `Mcp-Session-Id`, sent on the InitializeResult only. */
export async function newSession(
  config: Config,
  principal: string,
  version: LegacyVersion,
  stored: boolean,
  now = Date.now(),
): Promise<{ token: string; claims: SessionClaims }> {
  const ttlMs = config.limits.sessions.lifetimeMs;
  const claims: SessionClaims = { id: newSessionId(), version, stored, expiresAt: now + ttlMs };
  const token = await seal(await keyRing(config), { purpose: PURPOSE, bind: { principal }, ttlMs, body: claims, now });
  return { token, claims };
}

/**
 * The session `token` names, or undefined when it is malformed, forged, expired, signed with a retired key, or
 * another principal's: the caller answers all of these alike (404), so nobody learns which it was.
 */
export async function readSession(config: Config, principal: string, token: string): Promise<SessionClaims | undefined> {
  const opened = await open(await keyRing(config), token, { purpose: PURPOSE, bind: { principal }, maxLength: MAX_LENGTH });
  return opened.ok && isClaims(opened.body) ? opened.body : undefined;
}

function isClaims(body: unknown): body is SessionClaims {
  const claims = body as Partial<SessionClaims> | null;
  return (
    typeof claims === "object" &&
    claims !== null &&
    typeof claims.id === "string" &&
    SESSION_ID.test(claims.id) &&
    isLegacyVersion(claims.version) &&
    typeof claims.stored === "boolean" &&
    typeof claims.expiresAt === "number"
  );
}
