/**
 * @module oauth/client-assertion
 * A machine client's JWT assertion (RFC 7523 §2.2, `private_key_jwt`): signed by the client's key, verified with the
 * engine's one JWT check (auth/jwt.ts) against the key set its configuration names (inline or fetched,
 * auth/jwks.ts). What it must say, and why each:
 *
 * - `iss` and `sub`: the client's id (RFC 7523 §3): it is the client speaking for itself, not for someone else;
 * - `aud`: this authorization server, as its issuer or its token endpoint, and nothing else (a string, or an array
 *   of that one value): an assertion made for another server, or for several, cannot be replayed here;
 * - `exp`, and at most `MAX_ASSERTION_LIFE_S` ahead: a leaked assertion is useful for minutes, not days, and the
 *   memory of used ids (`jti`) need only last as long;
 * - `nbf` and `iat` not in the future (beyond the 30 s clock tolerance): auth/jwt.ts;
 * - `jti`: an id used once; the client's object remembers it until the assertion expires (state.ts), so a replay is
 *   refused from every isolate. Recorded last, once everything else about the request holds, so a refused request
 *   stores nothing.
 */

import { JWKS_COOLDOWN_MS, type KeySet, localKeySet, remoteKeySet } from "../auth/jwks";
import { CLOCK_TOLERANCE_S, type TokenKind, verifyJwt } from "../auth/jwt";
import type { MachineClient } from "../config/machine-clients";
import { base64url } from "../util/encoding";
import { memoize } from "../util/memo";
import type { AssertionUse } from "./state";
import { type OAuthStateNamespace, objectNamed } from "./state-store";

export const ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/** The algorithms an assertion may be signed with: those the provider takes from metadata-document clients too. */
export const ASSERTION_ALGORITHMS = ["RS256", "ES256"];

/** The longest an assertion may live, `exp` minus now, in seconds: 5 minutes (the official clients' default). */
export const MAX_ASSERTION_LIFE_S = 300;

/** The most assertion ids one client's object remembers at once: over 30 token requests a second, for 5 minutes. */
export const MAX_REMEMBERED_ASSERTIONS = 10_000;

/** The longest `jti` taken: real ones are UUIDs. */
const MAX_JTI_LENGTH = 256;

/**
 * An assertion's `typ`, when it has one: `JWT` as most clients send, or the explicit type the successor of RFC 7523
 * gives assertions (`client-authentication+jwt`), so an access or ID token of the same keys does not pass as one.
 */
const ASSERTION: TokenKind = { types: ["jwt", "application/jwt", "client-authentication+jwt", "application/client-authentication+jwt"] };

/**
 * The client's keys, once per client per isolate (a fetched set is cached and refetched as auth/jwks.ts says). A
 * failed fetch is remembered for `JWKS_COOLDOWN_MS` (30 s): anyone may post an assertion naming the client, and must
 * not make this server fetch a failing `jwks_uri` at every request.
 */
const keysOf = memoize((client: MachineClient): KeySet => {
  if (client.auth.method !== "private_key_jwt") throw new Error("this client has no keys");
  return client.auth.jwks ? localKeySet(client.auth.jwks) : remoteKeySet(client.auth.jwksUri!, { failureCooldownMs: JWKS_COOLDOWN_MS });
});

/** A verified assertion: its id, as this server remembers it, and until when. */
export interface VerifiedAssertion {
  /** A hash of the client id and the `jti`: the id is the client's to choose, so it is never stored as sent. */
  id: string;
  /** When it can no longer be used (ms): its `exp`, plus the clock tolerance auth/jwt.ts grants. */
  expiresAt: number;
}

/**
 * Verifies `assertion` as `client`'s, for this server (`audiences`: its issuer, with and without a trailing slash,
 * and its token endpoint). Throws when anything about it is wrong; the caller answers each the same, `invalid_client`,
 * but a `KeySetUnavailable` (auth/jwks.ts): the client's keys could not be fetched, which says nothing of the assertion.
 */
export async function verifyAssertion(assertion: string, client: MachineClient, audiences: readonly string[]): Promise<VerifiedAssertion> {
  const claims = await verifyJwt(
    assertion,
    keysOf(client),
    { issuer: client.id, audience: audiences, algorithms: ASSERTION_ALGORITHMS },
    ASSERTION,
  );
  if (claims.sub !== client.id) throw new Error("invalid assertion: sub is not the client");
  // Why one audience only (RFC 7523bis): an assertion listing this server among others was made to be shown to those
  // others too, and any of them could replay it here; one naming only this server cannot be.
  if (Array.isArray(claims.aud) && claims.aud.length !== 1) throw new Error("invalid assertion: more than one audience");
  const exp = claims.exp as number;
  // Why a bound on the life: the longer an assertion lives, the longer a leaked one works, and the longer its id
  // must be remembered. The tolerance absorbs a client clock running ahead.
  if (exp - Date.now() / 1000 > MAX_ASSERTION_LIFE_S + CLOCK_TOLERANCE_S) throw new Error("invalid assertion: lives too long");
  const { jti } = claims;
  if (typeof jti !== "string" || jti.length === 0 || jti.length > MAX_JTI_LENGTH) throw new Error("invalid assertion: jti");
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${client.id}\n${jti}`));
  return { id: base64url(digest), expiresAt: (exp + CLOCK_TOLERANCE_S) * 1000 };
}

/** Records the assertion's single use in its client's object: its first use, a replay, or a full memory. */
export function useAssertion(state: OAuthStateNamespace, client: MachineClient, verified: VerifiedAssertion): Promise<AssertionUse> {
  return objectNamed(state, `assertions:${client.id}`).useAssertionId(verified.id, verified.expiresAt, MAX_REMEMBERED_ASSERTIONS);
}
