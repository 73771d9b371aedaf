/**
 * @module encoding
 * The byte-level helpers the whole engine shares: base64url, random tokens (ids that must be unguessable), and the
 * size of a value as UTF-8 JSON (the unit most stored limits are counted in).
 */

const encoder = new TextEncoder();

export const base64url = (bytes: Uint8Array | ArrayBuffer) => new Uint8Array(bytes).toBase64({ alphabet: "base64url", omitPadding: true });

/** `byteLength` random bytes from the platform's CSPRNG, base64url. */
export const randomToken = (byteLength: number) => base64url(crypto.getRandomValues(new Uint8Array(byteLength)));

/** The size of a value as UTF-8 JSON, in bytes. */
export const jsonBytes = (value: unknown) => encoder.encode(JSON.stringify(value)).byteLength;
