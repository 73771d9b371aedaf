/**
 * @module listen/stored-size
 * What a value costs once stored as a hibernatable WebSocket's attachment. The hub keeps each listener's filter
 * there, V8 serialises it, and the platform refuses an attachment over 16 KiB. UTF-8 JSON is the wrong unit for
 * that limit: V8 stores a string one byte per character only when every character is Latin-1 (at most U+00FF),
 * otherwise two bytes per UTF-16 code unit (four for a character above U+FFFF, a surrogate pair).
 *
 * One measure for every check of a stored filter: the Worker refuses a filter with -32602 before it reaches a hub,
 * and the hub measures the whole attachment again before it accepts a socket or stores a new filter.
 */

import { invalidParams } from "../wire/errors";

/** The platform's limit on one socket attachment, in V8-serialised bytes. */
export const MAX_ATTACHMENT_BYTES = 16_384;

/**
 * The serialisation header (a tag and the format version), and the framing one value can take around its content:
 * a type tag, a length or count (a varint of up to 5 bytes), a padding byte that aligns a two-byte string, and for
 * an object or array an end tag with two more counts. Both are upper bounds, so the measure never undercounts.
 */
const HEADER_BYTES = 6;
const FRAMING_BYTES_PER_VALUE = 17;

/** An upper bound on the bytes `value` (JSON data: no cycles, no functions) takes when V8 serialises it. */
export function storedSize(value: unknown): number {
  return HEADER_BYTES + valueSize(value);
}

function valueSize(value: unknown): number {
  if (typeof value === "string") return FRAMING_BYTES_PER_VALUE + stringContentBytes(value);
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + valueSize(item), FRAMING_BYTES_PER_VALUE);
  if (typeof value === "object" && value !== null) {
    return Object.entries(value).reduce((sum, [key, item]) => sum + valueSize(key) + valueSize(item), FRAMING_BYTES_PER_VALUE);
  }
  // A boolean, null or undefined is a tag; a number at most a tag and 8 bytes.
  return FRAMING_BYTES_PER_VALUE;
}

/** One byte per character when every character is Latin-1, else two per UTF-16 code unit (as V8 stores it). */
function stringContentBytes(text: string): number {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0xff) return text.length * 2;
  return text.length;
}

/**
 * Why these caps: the filter is stored on a hibernatable socket, whose attachment is limited to 16 KiB as V8
 * serialises it (see `stored-size.ts`); the rest of the attachment (the principal) needs room too.
 */
export const MAX_RESOURCE_SUBSCRIPTIONS = 64;
/** Longest resource URI a filter or a 2025 session subscription takes, in UTF-16 units. */
export const MAX_URI_LENGTH = 2_048;
export const MAX_FILTER_BYTES = 12_000;
/** Task ids one listen request may follow. */
export const MAX_TASK_SUBSCRIPTIONS = 64;

/**
 * Refuses (-32602) a filter a hub could not store. Why measured as stored and checked here: a hub that accepted a
 * socket and then failed to store its filter would hold a listener it cannot read; the caller must learn it
 * in-band, before anything is accepted or saved. Used for listen filters and for a 2025 session's subscriptions.
 */
export function assertFilterStorable(filter: object): void {
  if (storedSize(filter) > MAX_FILTER_BYTES) {
    throw invalidParams(
      `Invalid params: the subscription filter takes more than ${MAX_FILTER_BYTES} bytes as stored ` +
        "(1 byte per character for Latin-1 URIs, 2 per UTF-16 unit for others)",
    );
  }
}
