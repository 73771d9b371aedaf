/**
 * @module state
 * Signed state tokens (the `requestState` of multi round-trip requests): HMAC-SHA256 through WebCrypto, a key id
 * covered by the MAC so keys can rotate, a purpose label, a binding to the request, and an expiry.
 *
 * Wire format: `v1.<kid>.<payload>.<mac>`, where payload is base64url JSON `{p, b, e, x}` (purpose, binding tag,
 * expiry in ms, body) and mac is base64url HMAC-SHA256 over `v1.<kid>.<payload>`.
 *
 * The token is signed, not encrypted: the client can read the body, so never put secrets in it.
 */
import { base64url as b64url, decodeBase64urlStrict as decodeB64url, decodeUtf8Strict } from "../util/encoding";

export type RejectReason = "malformed" | "kid" | "mac" | "expired" | "bind";
export type OpenResult = { ok: true; body: unknown } | { ok: false; reason: RejectReason };

export interface SigningKey {
  kid: string;
  key: CryptoKey;
}

/** Verification keys by id; the first is the current key used to mint. */
export interface KeyRing {
  current: SigningKey;
  byId: ReadonlyMap<string, CryptoKey>;
}

export interface SealOptions {
  purpose: string;
  /** Facts about the request the token may be used with; only a keyed digest of them is embedded. */
  bind: Record<string, string>;
  ttlMs: number;
  body: unknown;
  now?: number;
}

export interface OpenOptions {
  purpose: string;
  bind: Record<string, string>;
  maxLength: number;
  now?: number;
}

const VERSION = "v1";
/** Why: the shape is checked before any crypto, so junk costs a regex, not an HMAC. */
const TOKEN = /^v1\.([A-Za-z0-9_-]{1,16})\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/;
const encoder = new TextEncoder();

/** Imports the keys as non-extractable HMAC keys. Call once per isolate and keep the ring. */
export async function importKeyRing(keys: { kid: string; bytes: Uint8Array }[]): Promise<KeyRing> {
  const imported = await Promise.all(
    keys.map(async ({ kid, bytes }) => ({
      kid,
      key: await crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]),
    })),
  );
  return { current: imported[0]!, byId: new Map(imported.map(({ kid, key }) => [kid, key])) };
}

export async function seal(ring: KeyRing, options: SealOptions): Promise<string> {
  const { kid, key } = ring.current;
  const now = options.now ?? Date.now();
  const claims = { p: options.purpose, b: await bindTag(key, options.bind), e: now + options.ttlMs, x: options.body };
  const signed = `${VERSION}.${kid}.${b64url(encoder.encode(JSON.stringify(claims)))}`;
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(signed));
  return `${signed}.${b64url(mac)}`;
}

/**
 * Verifies a token. Order matters: size and alphabet first (no crypto for junk), then the key id, then the MAC
 * (so every later reason is reachable only for a token we minted), then expiry, purpose and binding.
 * The reason is for the server's log only; clients get one fixed message whatever it is.
 */
export async function open(ring: KeyRing, token: string, options: OpenOptions): Promise<OpenResult> {
  if (token.length > options.maxLength) return { ok: false, reason: "malformed" };
  const match = TOKEN.exec(token);
  if (!match) return { ok: false, reason: "malformed" };
  const [, kid, payload, mac] = match as unknown as [string, string, string, string];
  // Why: an unknown key id fails closed; it never falls back to "try every key".
  const key = ring.byId.get(kid);
  if (!key) return { ok: false, reason: "kid" };
  const macBytes = decodeB64url(mac);
  if (!macBytes) return { ok: false, reason: "malformed" };
  // crypto.subtle.verify compares in constant time.
  const valid = await crypto.subtle.verify("HMAC", key, macBytes, encoder.encode(`${VERSION}.${kid}.${payload}`));
  if (!valid) return { ok: false, reason: "mac" };

  const payloadBytes = decodeB64url(payload);
  if (!payloadBytes) return { ok: false, reason: "malformed" };
  let claims: { p?: unknown; b?: unknown; e?: unknown; x?: unknown };
  try {
    claims = JSON.parse(decodeUtf8Strict(payloadBytes));
  } catch {
    return { ok: false, reason: "malformed" };
  }
  if (typeof claims !== "object" || claims === null || typeof claims.e !== "number") return { ok: false, reason: "malformed" };
  if ((options.now ?? Date.now()) >= claims.e) return { ok: false, reason: "expired" };
  if (claims.p !== options.purpose || claims.b !== (await bindTag(key, options.bind))) return { ok: false, reason: "bind" };
  return { ok: true, body: claims.x };
}

/**
 * A keyed, domain-separated digest of the binding (method, tool, principal, and the arguments as canonical JSON):
 * one HMAC, so a retry costs no separate hash of its arguments. Keyed so that a guessable value (a user id) cannot
 * be confirmed offline from a token; canonical (sorted keys) so that key order never matters.
 */
async function bindTag(key: CryptoKey, bind: Record<string, string>): Promise<string> {
  const canonical = JSON.stringify(
    Object.keys(bind)
      .sort()
      .map((name) => [name, bind[name]]),
  );
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(`mcp.bind.v2\n${canonical}`));
  return b64url(new Uint8Array(mac).subarray(0, 16));
}

/** JSON with object keys sorted at every level (and undefined members left out): one spelling per value. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    const entries = Object.keys(record)
      .filter((name) => record[name] !== undefined)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonicalJson(record[name])}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
