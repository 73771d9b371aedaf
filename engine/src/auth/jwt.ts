/**
 * @module auth/jwt
 * Verifies the access tokens of the resource-server mode (AUTH_ISSUER) with WebCrypto: a compact JWS (RFC 7515)
 * signed with an algorithm from the allow-list by one of the issuer's keys (`jwks.ts`), whose claims (RFC 7519,
 * RFC 9068) name this issuer, this audience, a subject and a live expiry. Evaluating it only defines functions, so a
 * server with authorization off pays nothing for it. Every failure throws; the caller turns each into one 401.
 *
 * One function per kind of token, over one core (`verifyJwt`: the signature, and the claims every kind shares):
 * `verifyAccessToken` here, and the upstream login's `verifyIdToken` (oauth/oauth-client.ts), whose ID tokens have
 * rules of their own (RFC 8725 §3.11-3.12: explicit typing, and different checks per kind).
 */
import { decodeBase64urlStrict, decodeUtf8Strict } from "../util/encoding";
import { isObject } from "../wire/envelope";
import type { JsonObject } from "../wire/types";
import { jwsAlgorithm, type KeySet, verificationKey } from "./jwks";
import { namesClientWithoutSubject } from "./machine-claims";

export { keySetOf } from "./jwks";

/** What a token must satisfy besides its signature. */
export interface JwtRules {
  /** The `iss` the token must carry, exactly. */
  issuer: string;
  /** The `aud` the token must carry (alone, or among others); of several, any one (a client assertion's, RFC 7523). */
  audience: string | readonly string[];
  /** JWS algorithms accepted (asymmetric ones only: `jwsAlgorithm` knows no other). */
  algorithms: readonly string[];
}

/** The rules of one kind of token: the `typ` values its header may carry (lower case), besides none at all. */
export interface TokenKind {
  types: readonly string[];
  /** Whether a token of this kind may name no subject (an empty `sub`); by default it may not. */
  subjectOptional?: (claims: JsonObject) => boolean;
}

export type VerifiedClaims = JsonObject & { sub: string };

/** Clock difference allowed between the issuer and this server on `exp`, `nbf` and `iat`, in seconds. */
export const CLOCK_TOLERANCE_S = 30;

/**
 * An access token of the resource-server mode (AUTH_ISSUER). Its `typ` (compared case-insensitively, RFC 7515
 * §4.1.9): why check it at all: an issuer signs other JWTs with the same keys (DPoP proofs `dpop+jwt`, logout tokens
 * `logout+jwt`, security events `secevent+jwt`); explicit typing keeps those from passing as access tokens (RFC 8725
 * §3.11). Why these: RFC 9068 access tokens say `at+jwt`, most issuers still say `JWT`, and the `application/` prefix
 * may be spelled out. No `typ` is accepted, as many issuers send none. So `typ` cannot tell an ID token (also `JWT`
 * or none) from an access token here: what keeps an ID token out is its audience, a client id, never this server's
 * URL (RFC 8707, `checkClaims`).
 */
const ACCESS_TOKEN: TokenKind = {
  types: ["jwt", "application/jwt", "at+jwt", "application/at+jwt"],
  // Cloudflare Access service tokens name their client in `common_name` and no one in `sub` (machine-claims.ts).
  subjectOptional: namesClientWithoutSubject,
};

/** The verified claims of an access token for this server; throws when anything about it is wrong. */
export const verifyAccessToken = (token: string, keys: KeySet, rules: JwtRules): Promise<VerifiedClaims> =>
  verifyJwt(token, keys, rules, ACCESS_TOKEN);

const invalid = (why: string) => new Error(`invalid token: ${why}`);

/**
 * The core every kind of token shares: the verified claims of the token, of the kind `kind` says; throws when
 * anything about it is wrong. Call it through a kind's own function (`verifyAccessToken`, `verifyIdToken`).
 */
export async function verifyJwt(token: string, keys: KeySet, rules: JwtRules, kind: TokenKind): Promise<VerifiedClaims> {
  const segments = token.split(".");
  // Why exactly three: a compact JWS is header.payload.signature; five would be an encrypted JWE, which is not ours.
  if (segments.length !== 3) throw invalid("not three segments");
  const [headerPart, payloadPart, signaturePart] = segments as [string, string, string];
  const header = jsonObject(headerPart);
  const { alg, kid, typ } = header;
  // Why an allow-list: the token names its own algorithm, so an attacker would choose the weakest; only those the
  // operator chose are used. `jwsAlgorithm` is the second guard: it never knows `none` or HMAC.
  const spec = typeof alg === "string" && rules.algorithms.includes(alg) ? jwsAlgorithm(alg) : undefined;
  if (!spec) throw invalid("algorithm not allowed");
  // Why refuse any `crit`: it names header extensions the verifier MUST understand (RFC 7515 §4.1.11); this one
  // understands none, so ignoring them would accept a token under rules its issuer did not mean.
  if (header.crit !== undefined) throw invalid("crit");
  // Why: an unencoded payload (RFC 7797, b64 false) is not a JWT (RFC 7797 §7).
  if (header.b64 !== undefined && header.b64 !== true) throw invalid("b64");
  if (typ !== undefined && (typeof typ !== "string" || !kind.types.includes(typ.toLowerCase()))) throw invalid("typ");
  if (kid !== undefined && typeof kid !== "string") throw invalid("kid");
  // The header's jwk, jku, x5u and x5c are ignored on purpose: a key the token brings (or points to) proves nothing;
  // keys come only from the configured set.
  const signature = decodeBase64urlStrict(signaturePart);
  // Why the exact length: ECDSA and Ed25519 signatures have a fixed size (JWS ECDSA is r || s, RFC 7518 §3.4, not
  // DER); any other length is a malformed or foreign signature.
  if (!signature || (spec.signatureBytes !== undefined && signature.byteLength !== spec.signatureBytes))
    throw invalid("signature malformed");
  const jwk = await keys(alg as string, kid);
  const key = await verificationKey(jwk, alg as string, spec);
  const signed = new TextEncoder().encode(`${headerPart}.${payloadPart}`);
  if (!(await crypto.subtle.verify(spec.verifyAs, key, signature, signed))) throw invalid("signature");
  // The payload is read only once the signature holds: nothing unsigned is looked at.
  const claims = jsonObject(payloadPart);
  checkClaims(claims, rules, Date.now() / 1000, kind);
  return claims as VerifiedClaims;
}

/** A segment as a JSON object: canonical base64url, strict UTF-8, an object (RFC 7515 §5.2, RFC 7519 §7.2). */
function jsonObject(segment: string): JsonObject {
  const bytes = decodeBase64urlStrict(segment);
  let value: unknown;
  try {
    value = bytes && JSON.parse(decodeUtf8Strict(bytes));
  } catch {
    // Not UTF-8 or not JSON: refused below.
  }
  if (!isObject(value)) throw invalid("segment is not a JSON object");
  return value;
}

function checkClaims(claims: JsonObject, rules: JwtRules, now: number, kind: TokenKind): void {
  // Why: a token from another issuer was not issued under this server's trust, even if a key happens to fit.
  if (claims.iss !== rules.issuer) throw invalid("iss");
  // Why (RFC 8707, RFC 9068 §4): a token issued for another resource must not be replayed here.
  const accepted: readonly unknown[] = typeof rules.audience === "string" ? [rules.audience] : rules.audience;
  const { aud } = claims;
  if (!(Array.isArray(aud) ? aud : [aud]).some((one) => accepted.includes(one))) throw invalid("aud");
  // Why exp is required: a token that never expires cannot be contained once leaked. The tolerance absorbs clock skew.
  if (!isTime(claims.exp) || now >= claims.exp + CLOCK_TOLERANCE_S) throw invalid("exp");
  // Why: a token not valid yet was issued for later; using it now is outside what the issuer allowed.
  if (claims.nbf !== undefined && (!isTime(claims.nbf) || now < claims.nbf - CLOCK_TOLERANCE_S)) throw invalid("nbf");
  // There is no maximum token age, but a malformed iat means a malformed token, and one from the future (beyond the
  // tolerance nbf gets: one rule for the clock) was not issued yet: a wrong clock at the issuer, or a forged time.
  if (claims.iat !== undefined && (!isTime(claims.iat) || now < claims.iat - CLOCK_TOLERANCE_S)) throw invalid("iat");
  // Why sub is required: it becomes the principal's id; a token without one names no one. Unless its kind names the
  // caller elsewhere (a Cloudflare Access service token, by its client): then `sub` is a string, perhaps empty.
  const subjectOptional = kind.subjectOptional?.(claims) === true;
  if (typeof claims.sub !== "string" || (claims.sub === "" && !subjectOptional)) throw invalid("sub");
}

/** A NumericDate (RFC 7519 §2): a finite number of seconds. */
const isTime = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
