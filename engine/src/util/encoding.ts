/**
 * @module util/encoding
 * The byte-level helpers the whole engine shares: base64url, random tokens (ids that must be unguessable), and the
 * size of a value as UTF-8 JSON (the unit most stored limits are counted in), and strict base64url and UTF-8 decoding.
 */

const encoder = new TextEncoder();
// One strict decoder for the isolate: constructing one costs about as much as decoding a small body with it, and a
// decoder used without `stream` keeps no state between calls.
const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

export const base64url = (bytes: Uint8Array | ArrayBuffer) => new Uint8Array(bytes).toBase64({ alphabet: "base64url", omitPadding: true });

/**
 * Decodes unpadded base64url, accepting only the canonical spelling (no padding, whitespace or other alphabet).
 * Why: unused low bits in the last character would otherwise let several strings decode to the same bytes, making a
 * signed token mutable without detection.
 */
export function decodeBase64urlStrict(value: string): Uint8Array | undefined {
  // The canonical spelling, checked without encoding the bytes again: only the alphabet (no padding, no whitespace,
  // which the decoder would skip), no length of 4n+1 (no such encoding), and the last character's unused low bits
  // zero (4 of them after 2n+2 characters, 2 after 3n+3): exactly the strings that encoding the bytes gives back.
  if (!BASE64URL.test(value) || value.length % 4 === 1) return undefined;
  const unusedBits = value.length % 4 === 2 ? 0b1111 : value.length % 4 === 3 ? 0b11 : 0;
  if (unusedBits && BASE64URL_ALPHABET.indexOf(value[value.length - 1]!) & unusedBits) return undefined;
  try {
    return Uint8Array.fromBase64(value, { alphabet: "base64url", lastChunkHandling: "loose" });
  } catch {
    return undefined;
  }
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;
const BASE64URL_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** `byteLength` random bytes from the platform's CSPRNG, base64url. */
export const randomToken = (byteLength: number) => base64url(crypto.getRandomValues(new Uint8Array(byteLength)));

/** The size of a value as UTF-8 JSON, in bytes. */
export const jsonBytes = (value: unknown) => encoder.encode(JSON.stringify(value)).byteLength;

/** Bytes as UTF-8 text; throws a TypeError on any invalid sequence instead of substituting U+FFFD. */
export const decodeUtf8Strict = (bytes: Uint8Array) => strictDecoder.decode(bytes);

/**
 * Where `value` (parsed JSON) first holds a string or key that is not well-formed Unicode (a lone surrogate,
 * U+D800 to U+DFFF, without its pair), as a path (`title`, `tags[2]`), or undefined when it holds none.
 * Why it matters: such a string cannot be stored as UTF-8 (SQLite, KV, a signed token) without becoming U+FFFD, so
 * a write acknowledged with it would not be what is stored.
 */
export function illFormedTextAt(value: unknown, path = ""): string | undefined {
  if (typeof value === "string") return value.isWellFormed() ? undefined : path || "(the value)";
  if (typeof value !== "object" || value === null) return undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = illFormedTextAt(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  for (const key in value) {
    // The key itself is never echoed when it is the ill-formed one.
    if (!key.isWellFormed()) return `${path ? `${path}.` : ""}(a key)`;
    const found = illFormedTextAt((value as Record<string, unknown>)[key], path ? `${path}.${key}` : key);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The message for a refused ill-formed string, naming where it is and what to do. */
export function illFormedTextMessage(where: string): string {
  // A path is made of the client's own keys: bounded, and cut on a character boundary.
  const named = where.length > 200 ? `${where.slice(0, 200).toWellFormed()}...` : where;
  return `${named} is not well-formed Unicode: it holds a lone surrogate (U+D800 to U+DFFF, half of a pair); send the text as valid UTF-8`;
}
