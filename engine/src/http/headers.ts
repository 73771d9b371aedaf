/**
 * @module http/headers
 * The 2026-07-28 HTTP headers that mirror the body (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`): read them
 * with the spec's value encoding and refuse any missing or mismatching one with 400 and -32020 (HeaderMismatch).
 */
import { decodeUtf8Strict } from "../util/encoding";
import { headerMismatch, truncate } from "../wire/errors";

const SENTINEL_PREFIX = "=?base64?";
const SENTINEL_SUFFIX = "?=";
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Returns a header's value with surrounding whitespace removed and the `=?base64?...?=` form decoded, or
 * `undefined` when the header is absent. Why decode first: clients encode any value that is not safe ASCII,
 * so comparing the raw header with the body would reject legitimate non-ASCII tool names and URIs.
 */
export function readMcpHeader(request: Request, name: string, maxLength: number): string | undefined {
  const raw = request.headers.get(name);
  if (raw === null) return undefined;
  const value = raw.trim();
  // Why: header values are echoed into error messages and compared; bound their size first.
  if (value.length > maxLength) throw headerMismatch(`Header mismatch: ${name} header is longer than ${maxLength} characters`);
  if (!value.startsWith(SENTINEL_PREFIX) || !value.endsWith(SENTINEL_SUFFIX) || value.length < 11) return value;
  const encoded = value.slice(SENTINEL_PREFIX.length, -SENTINEL_SUFFIX.length);
  if (!BASE64.test(encoded)) throw headerMismatch(`Header mismatch: ${name} header has a malformed base64 value`);
  try {
    const bytes = Uint8Array.from(atob(encoded), (char) => char.charCodeAt(0));
    return decodeUtf8Strict(bytes);
  } catch {
    throw headerMismatch(`Header mismatch: ${name} header has a malformed base64 value`);
  }
}

/** Throws -32020 unless the header is present and equals the body's value. */
export function expectHeader(request: Request, name: string, bodyValue: string, maxLength: number): void {
  const headerValue = readMcpHeader(request, name, maxLength);
  if (headerValue === undefined) throw headerMismatch(`Header mismatch: missing required ${name} header`);
  if (headerValue !== bodyValue) {
    throw headerMismatch(
      `Header mismatch: ${name} header value '${truncate(headerValue, 100)}' does not match body value '${truncate(bodyValue, 100)}'`,
    );
  }
}
