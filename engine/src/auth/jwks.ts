/**
 * @module auth/jwks
 * The issuer's signing keys, for the JWT resource server (AUTH_ISSUER): which key may verify which algorithm, the
 * import of a key into WebCrypto (public members only, cached), and the two key sets: inline (AUTH_JWKS) and
 * fetched (AUTH_JWKS_URL: cached per isolate, refetched when a token names a key the cached set lacks). The upstream
 * login's ID tokens are verified against a fetched set too: its provider's `jwks_uri` (oauth/oauth-client.ts).
 */
import type { AuthSettings } from "../config/config";
import { readAtMost } from "../http/body";
import { decodeUtf8Strict } from "../util/encoding";
import { memoize } from "../util/memo";
import { isObject } from "../wire/envelope";
import type { JsonObject } from "../wire/types";

/** A JSON Web Key as published (RFC 7517): untrusted shape, every member checked before use. */
export type Jwk = JsonObject;

/** How one JWS algorithm is verified with WebCrypto, and the key it needs. */
export interface JwsAlgorithm {
  kty: "RSA" | "EC" | "OKP";
  crv?: string;
  importAs: SubtleCryptoImportKeyAlgorithm;
  verifyAs: SubtleCryptoSignAlgorithm;
  /** The exact signature length in bytes, where it is fixed (ECDSA, Ed25519); RSA's is the modulus length. */
  signatureBytes?: number;
}

/**
 * The algorithms this server can verify (RFC 7518 §3, RFC 8037), by their JWS name; `undefined` for any other.
 * Why `none` and HMAC (HS*) are absent, whatever the settings say: with `none` anyone can mint a token, and with HMAC
 * the verification key is the issuer's PUBLIC key used as a shared secret, so anyone could sign with it.
 */
export function jwsAlgorithm(alg: string): JwsAlgorithm | undefined {
  if (alg === "EdDSA") {
    // Ed25519 only: workerd has no Ed448, and an Ed448 key never fits (so such a token is refused, not mis-verified).
    return { kty: "OKP", crv: "Ed25519", importAs: { name: "Ed25519" }, verifyAs: { name: "Ed25519" }, signatureBytes: 64 };
  }
  const match = /^(RS|PS|ES)(256|384|512)$/.exec(alg);
  if (!match) return undefined;
  const bits = Number(match[2]);
  const hash = `SHA-${bits}`;
  if (match[1] === "RS") return { kty: "RSA", importAs: { name: "RSASSA-PKCS1-v1_5", hash }, verifyAs: { name: "RSASSA-PKCS1-v1_5" } };
  // RFC 7518 §3.5: the PSS salt is as long as the hash output.
  if (match[1] === "PS") return { kty: "RSA", importAs: { name: "RSA-PSS", hash }, verifyAs: { name: "RSA-PSS", saltLength: bits / 8 } };
  // RFC 7518 §3.4: ES512 is P-521 (not P-512), and the signature is r || s, each as long as a coordinate.
  const crv = `P-${bits === 512 ? 521 : bits}`;
  return {
    kty: "EC",
    crv,
    importAs: { name: "ECDSA", namedCurve: crv },
    verifyAs: { name: "ECDSA", hash },
    signatureBytes: 2 * Math.ceil((bits === 512 ? 521 : bits) / 8),
  };
}

/** Whether the key may verify a signature made with `alg`. */
function fits(jwk: Jwk, alg: string, spec: JwsAlgorithm): boolean {
  return (
    // Why kty and crv: a key of another type or curve cannot verify this algorithm's signatures; never "convert" it.
    jwk.kty === spec.kty &&
    (spec.crv === undefined || jwk.crv === spec.crv) &&
    // Why: a key that names its algorithm is for that algorithm only (RFC 7517 §4.4), not for whichever the token asks.
    (jwk.alg === undefined || jwk.alg === alg) &&
    // Why: an encryption key (use "enc") or a key limited to other operations is not a signing key (RFC 7517 §4.2-4.3).
    (jwk.use === undefined || jwk.use === "sig") &&
    (jwk.key_ops === undefined || (Array.isArray(jwk.key_ops) && jwk.key_ops.includes("verify"))) &&
    // Why: a private key in a published set is a leaked key; this server never touches private material.
    jwk.d === undefined
  );
}

/**
 * The key for a token: the one with the token's `kid` (when it names one) that fits the algorithm; `undefined` when
 * none does. Why refuse several: without a kid there is no telling which key the issuer meant, and trying each would
 * let one token cost many verifications (jose refuses too: "multiple matching keys").
 */
export function pickKey(keys: readonly Jwk[], alg: string, kid: string | undefined): Jwk | undefined {
  const spec = jwsAlgorithm(alg);
  const candidates = keys.filter((jwk) => spec && (kid === undefined || jwk.kid === kid) && fits(jwk, alg, spec));
  if (candidates.length > 1) throw new Error("several keys fit the token");
  return candidates[0];
}

/** The members of a public key per key type; anything else in the JWK (d, p, q, use, alg, ...) is never imported. */
const PUBLIC_MEMBERS = { RSA: ["n", "e"], EC: ["crv", "x", "y"], OKP: ["crv", "x"] };

/** Imported keys per JWK object and algorithm: importing costs more than verifying. */
const imported = memoize((_jwk: Jwk) => new Map<string, Promise<CryptoKey>>());

/** The key as a WebCrypto verification key for `alg` (the JWK must fit it: `pickKey`). */
export function verificationKey(jwk: Jwk, alg: string, spec: JwsAlgorithm): Promise<CryptoKey> {
  const byAlg = imported(jwk);
  let key = byAlg.get(alg);
  if (!key) {
    key = importPublicKey(jwk, spec);
    byAlg.set(alg, key);
  }
  return key;
}

async function importPublicKey(jwk: Jwk, spec: JwsAlgorithm): Promise<CryptoKey> {
  const members = PUBLIC_MEMBERS[spec.kty].map((name) => [name, jwk[name]]);
  const publicKey = { kty: spec.kty, ...Object.fromEntries(members) } as JsonWebKey;
  const key = await crypto.subtle.importKey("jwk", publicKey, spec.importAs, false, ["verify"]);
  // Why: RSA keys under 2048 bits are within reach of factoring (RFC 7518 §3.3 requires at least 2048).
  if (spec.kty === "RSA" && (key.algorithm as { modulusLength?: number }).modulusLength! < 2048) {
    throw new Error("RSA key shorter than 2048 bits");
  }
  return key;
}

/** Finds the key for a token's algorithm and `kid`; rejects when no key fits. */
export type KeySet = (alg: string, kid: string | undefined) => Promise<Jwk>;

/** The key set of the settings: inline (AUTH_JWKS) or fetched from AUTH_JWKS_URL. */
export const keySetOf = (settings: AuthSettings): KeySet => (settings.jwks ? localKeySet(settings.jwks) : remoteKeySet(settings.jwksUrl));

/** The keys of a JWK Set. Why refuse a malformed set whole (as jose does): half a key set hides the mistake. */
function keysOf(jwks: unknown): Jwk[] {
  if (!isObject(jwks) || !Array.isArray(jwks.keys) || !jwks.keys.every(isObject)) throw new Error("not a JWK Set");
  return jwks.keys as Jwk[];
}

export function localKeySet(jwks: unknown): KeySet {
  const keys = keysOf(jwks);
  return async (alg, kid) => {
    const jwk = pickKey(keys, alg, kid);
    if (!jwk) throw new Error("no key fits the token");
    return jwk;
  };
}

/** A fetched set is used for this long before it is fetched again (jose's default cacheMaxAge). */
const JWKS_MAX_AGE_MS = 600_000;
/** A token naming an unknown key refetches the set, at most once per this long (jose's default cooldownDuration). */
export const JWKS_COOLDOWN_MS = 30_000;
/** Largest JWK Set accepted, in bytes as received; real sets are a few KiB. */
export const JWKS_MAX_BYTES = 256 * 1024;
const JWKS_TIMEOUT_MS = 5_000;

/** A key set that could not be fetched: the endpoint failed, not the token. `retryAt` (ms): when it is fetched again. */
export class KeySetUnavailable extends Error {
  constructor(
    message: string,
    readonly retryAt: number,
  ) {
    super(message);
  }
}

export interface RemoteKeySetOptions {
  /**
   * How long a failed fetch is remembered, during which every lookup fails at once, with a `KeySetUnavailable`,
   * without fetching (default 0: the next lookup fetches again, and the fetch's own error is thrown). The machine
   * clients' key sets remember it for `JWKS_COOLDOWN_MS`: their lookups are made by whoever posts to /token,
   * unauthenticated.
   */
  failureCooldownMs?: number;
}

export function remoteKeySet(url: string, options: RemoteKeySetOptions = {}): KeySet {
  const failureCooldownMs = options.failureCooldownMs ?? 0;
  let keys: Jwk[] | undefined;
  let fetchedAt = 0;
  let inFlight: Promise<void> | undefined;
  let failure: KeySetUnavailable | undefined;
  // Why one fetch in flight: a burst of requests on a cold isolate, or of tokens with an unknown kid, waits for one
  // answer instead of becoming a burst of fetches to the issuer. Why a failure is remembered when asked (and only
  // then): while the endpoint fails, callers who need not authenticate must not make this server fetch it again and
  // again; the issuer's own set (AUTH_ISSUER) is fetched again at the next request, as it always was.
  const refresh = () => {
    if (failure && Date.now() < failure.retryAt) return Promise.reject(failure);
    inFlight ??= fetchKeys(url)
      .then(
        (fetched) => {
          keys = fetched;
          fetchedAt = Date.now();
          failure = undefined;
        },
        (error: unknown) => {
          // Without a cooldown the error is thrown as it was: the upstream login logs an engine message whole and
          // only the class of anything else (oauth/upstream.ts), which a wrapper would blur.
          if (failureCooldownMs === 0) throw error;
          failure = new KeySetUnavailable(String((error as Error)?.message), Date.now() + failureCooldownMs);
          throw failure;
        },
      )
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  };
  return async (alg, kid) => {
    if (!keys || Date.now() - fetchedAt >= JWKS_MAX_AGE_MS) await refresh();
    let jwk = pickKey(keys!, alg, kid);
    // Why refetch on a miss: the issuer may have rotated in a new key. Why the cooldown: tokens with made-up kids
    // (anyone can send them) must not make this server fetch the issuer's keys more than once per 30 s.
    if (!jwk && Date.now() - fetchedAt >= JWKS_COOLDOWN_MS) {
      await refresh();
      jwk = pickKey(keys!, alg, kid);
    }
    if (!jwk) throw new Error("no key fits the token");
    return jwk;
  };
}

async function fetchKeys(url: string): Promise<Jwk[]> {
  // Why no redirects: the keys come from the URL the operator configured, not from wherever it points (jose does the
  // same). Why the timeout: an issuer that hangs must not hold requests open.
  const response = await fetch(url, {
    redirect: "manual",
    signal: AbortSignal.timeout(JWKS_TIMEOUT_MS),
    headers: { accept: "application/json" },
  }).catch((error: unknown) => {
    // Why a message of its own: the failure is logged by the upstream login, and the runtime's message is not this
    // code's to vouch for; the host and what happened are enough.
    const host = new URL(url).host;
    const what = (error as Error)?.name === "TimeoutError" ? `did not answer within ${JWKS_TIMEOUT_MS} ms` : "could not be reached";
    throw new Error(`JWK Set not fetched (${host} ${what})`);
  });
  const reader = response.body?.getReader();
  // Why 200 only: an error page or a redirect is not the key set, whatever its body says.
  // Why the size cap (declared, then while reading): the set is held in memory; a broken endpoint must not fill it.
  const bytes =
    response.status === 200 && reader && !(Number(response.headers.get("content-length")) > JWKS_MAX_BYTES)
      ? await readAtMost(reader, JWKS_MAX_BYTES)
      : undefined;
  if (!bytes) {
    await reader?.cancel().catch(() => {});
    throw new Error(`JWK Set not fetched (HTTP ${response.status}, or over ${JWKS_MAX_BYTES} bytes)`);
  }
  let jwks: unknown;
  try {
    jwks = JSON.parse(decodeUtf8Strict(bytes));
  } catch {
    // Why not the parser's own error: its message quotes the body.
    throw new Error("the JWK Set is not UTF-8 JSON");
  }
  return keysOf(jwks);
}
