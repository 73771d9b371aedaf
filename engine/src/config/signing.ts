/**
 * @module config/signing
 * Signed state tokens (the `requestState` of multi round-trip requests): HMAC-SHA256 through WebCrypto, a key id
 * covered by the MAC so keys can rotate, a purpose label, a binding to the request, and an expiry.
 *
 * Wire format: `v2.<kid>.<payload>.<mac>`, where payload is base64url JSON `{e, x}` (expiry in ms, body) and mac is
 * base64url HMAC-SHA256 over `v2.<kid>.<payload>`, a newline, and the purpose and binding as canonical JSON. Why
 * the purpose and binding are in the MAC and not in the payload: one HMAC per seal and per open (a retry pays for
 * one), the bound values never travel (a guessable user id cannot be confirmed from a token), and a token used
 * with another purpose or binding fails exactly as a tampered one does.
 *
 * The token is signed, not encrypted: the client can read the body, so never put secrets in it.
 */
import { base64url as b64url, decodeBase64urlStrict as decodeB64url, decodeUtf8Strict } from "../util/encoding";

/**
 * Why a token was refused, for the server's log. "mac" covers a token altered, signed with another key, or
 * presented with another purpose or binding (tool, arguments, principal): the one MAC cannot tell these apart.
 * "version" is a well-formed token of another format version (one minted before an engine update).
 */
export type RejectReason = "malformed" | "version" | "kid" | "mac" | "expired";
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

const VERSION = "v2";
/** Why: the shape is checked before any crypto, so junk costs a regex, not an HMAC. Any version parses, to be named. */
const TOKEN = /^(v[0-9]{1,4})\.([A-Za-z0-9_-]{1,16})\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/;
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
  const claims = { e: now + options.ttlMs, x: options.body };
  const signed = `${VERSION}.${kid}.${b64url(encoder.encode(JSON.stringify(claims)))}`;
  const mac = await crypto.subtle.sign("HMAC", key, macInput(signed, options));
  return `${signed}.${b64url(mac)}`;
}

/**
 * Verifies a token. Order matters: size and alphabet first (no crypto for junk), then the version and the key id,
 * then the MAC over the token with the purpose and binding expected here (so every later reason is reachable only
 * for a token we minted for this use), then expiry.
 * The reason is for the server's log only; clients get one fixed message whatever it is.
 */
export async function open(ring: KeyRing, token: string, options: OpenOptions): Promise<OpenResult> {
  if (token.length > options.maxLength) return { ok: false, reason: "malformed" };
  const match = TOKEN.exec(token);
  if (!match) return { ok: false, reason: "malformed" };
  const [, version, kid, payload, mac] = match as unknown as [string, string, string, string, string];
  if (version !== VERSION) return { ok: false, reason: "version" };
  // Why: an unknown key id fails closed; it never falls back to "try every key".
  const key = ring.byId.get(kid);
  if (!key) return { ok: false, reason: "kid" };
  const macBytes = decodeB64url(mac);
  if (!macBytes) return { ok: false, reason: "malformed" };
  // crypto.subtle.verify compares in constant time.
  const valid = await crypto.subtle.verify("HMAC", key, macBytes, macInput(`${VERSION}.${kid}.${payload}`, options));
  if (!valid) return { ok: false, reason: "mac" };

  const claims = claimsOf(payload);
  if (claims === undefined || typeof claims.e !== "number") return { ok: false, reason: "malformed" };
  if ((options.now ?? Date.now()) >= claims.e) return { ok: false, reason: "expired" };
  return { ok: true, body: claims.x };
}

/**
 * The body a token carries, read WITHOUT verifying anything (its MAC, expiry, purpose or binding), or `undefined`
 * when the token is not readable. Only for choosing what to verify it against (oauth/machine-token.ts: which
 * client's credential its binding must hold): `open` is what says whether the token is good.
 */
export function unverifiedBody(token: string): unknown {
  const match = TOKEN.exec(token);
  return match ? claimsOf(match[3]!)?.x : undefined;
}

/** A token's payload (base64url JSON `{e, x}`) as an object, or `undefined` when it is not one. */
function claimsOf(payload: string): { e?: unknown; x?: unknown } | undefined {
  const bytes = decodeB64url(payload);
  if (!bytes) return undefined;
  try {
    const claims: unknown = JSON.parse(decodeUtf8Strict(bytes));
    return typeof claims === "object" && claims !== null ? claims : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What the MAC covers: the signed part of the token, a newline, then the purpose and the binding (method, tool,
 * principal, the arguments as canonical JSON) as one JSON array with the binding's names sorted, so that their
 * order never matters. Why this spelling cannot be confused: the signed part is base64url and dots only, so the
 * first newline ends it, and JSON leaves no two bindings spelled alike.
 */
function macInput(signed: string, { purpose, bind }: { purpose: string; bind: Record<string, string> }): Uint8Array {
  const binding = Object.keys(bind)
    .sort()
    .map((name) => [name, bind[name]]);
  return encoder.encode(`${signed}\n${JSON.stringify([purpose, binding])}`);
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
