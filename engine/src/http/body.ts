/**
 * @module http/body
 * Reads a request body as JSON without letting a hostile body hurt the isolate: the size cap is enforced while
 * reading (never buffering past it), bytes must be valid UTF-8, and nesting depth, member and element counts are
 * checked by a linear scan before `JSON.parse` runs.
 */
import { decodeUtf8Strict } from "../util/encoding";
import { ErrorCode, HttpError, RpcError } from "../wire/errors";

export interface BodyLimits {
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  /** Deepest nesting of objects and arrays accepted. */
  maxDepth: number;
  /** Most object members (keys) accepted in the whole message. */
  maxMembers: number;
  /** Most array elements accepted in the whole message, all arrays together. */
  maxElements: number;
  /**
   * Read (and drop) a bounded rest of a refused chunked body instead of cancelling it at once. Development only:
   * wrangler dev's proxy reuses the connection of a half-read body, and its next request fails (see discardRest).
   */
  drainRefused?: boolean;
}

/** A parsed body, and whether it may hold lone surrogates (see `scanJson`): then its text is checked where it is used. */
export interface JsonBody {
  value: unknown;
  surrogateEscapes: boolean;
}

export async function readJsonBody(request: Request, limits: BodyLimits): Promise<JsonBody> {
  const text = decodeUtf8(await readCapped(request, limits.maxBytes, limits.drainRefused ?? false));
  const shape = scanJson(text, limits);
  // Why: JSON.parse and every validator after it recurse; a pre-scan keeps hostile nesting away from them.
  if (shape.refused === "too-deep") throw new RpcError(ErrorCode.ParseError, `Parse error: nesting deeper than ${limits.maxDepth}`);
  if (shape.refused === "too-many-members") {
    throw new RpcError(ErrorCode.ParseError, `Parse error: more than ${limits.maxMembers} object members`);
  }
  if (shape.refused === "too-many-elements") {
    throw new RpcError(ErrorCode.ParseError, `Parse error: more than ${limits.maxElements} array elements`);
  }
  try {
    return { value: JSON.parse(text), surrogateEscapes: shape.surrogateEscapes };
  } catch {
    throw new RpcError(ErrorCode.ParseError, "Parse error: body is not valid JSON");
  }
}

/** Reads at most `maxBytes`; a declared or actual larger body is refused with 413 as soon as it is known. */
async function readCapped(request: Request, maxBytes: number, drainRefused: boolean): Promise<Uint8Array> {
  const declared = request.headers.get("content-length");
  // Why: a declared length over the cap is refused before a single byte is read.
  if (declared !== null && Number(declared) > maxBytes) throw tooLarge(maxBytes);
  // A declared length within the cap is enforced by HTTP framing, so the body can be read in one native call (and
  // `request.body`, whose stream object costs the runtime work to make, is never touched).
  if (declared !== null && /^[0-9]+$/.test(declared)) {
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes);
    return bytes;
  }
  if (!request.body) return new Uint8Array();
  const reader = request.body.getReader();
  const bytes = await readAtMost(reader, maxBytes);
  if (!bytes) {
    if (drainRefused) await discardRest(reader);
    await reader.cancel().catch(() => {});
    throw tooLarge(maxBytes);
  }
  return bytes;
}

/**
 * Reads a stream to its end, or returns `undefined` (the rest left unread, for the caller to cancel or drain) as
 * soon as more than `maxBytes` arrived. Why: a body of undeclared length is only known to be too large while
 * reading it; bytes past the cap are never kept.
 */
export async function readAtMost(reader: ReadableStreamDefaultReader<Uint8Array>, maxBytes: number): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) return undefined;
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Past the cap, at most this many more bytes are read (and dropped) before the body is cancelled... */
const DRAIN_MAX_BYTES = 8 * 1024 * 1024;
/** ...and for at most this long, so a client trickling bytes cannot hold the 413 back. */
const DRAIN_MAX_MS = 1_000;

/**
 * Reads the rest of a refused body without keeping it. Why: under `wrangler dev` (4.86.0) a response sent with the
 * body partly read makes the runtime close that connection, while wrangler's proxy, which already wrote the whole
 * body, reuses it, so the NEXT request from any client fails with 503 "Your worker restarted mid-request"
 * (workers-sdk#15709). A body read to its end leaves the connection reusable. Production has no such proxy, so
 * there the body is cancelled at once. Bounded in bytes and time; past either bound the caller cancels.
 */
async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const expired = new Promise<"expired">((resolve) => {
    timer = setTimeout(() => resolve("expired"), DRAIN_MAX_MS);
  });
  let drained = 0;
  try {
    while (drained <= DRAIN_MAX_BYTES) {
      const next = await Promise.race([reader.read(), expired]);
      if (next === "expired" || next.done) return;
      drained += next.value.byteLength;
    }
  } catch {
    // The body failed (the client went away): nothing left to read.
  } finally {
    clearTimeout(timer);
  }
}

/** A refused request's body is read and dropped only up to this declared size; larger ones are left unread. */
const UNREAD_DISCARD_MAX_BYTES = 64 * 1024;

/**
 * Reads and drops the body of a request refused before its body was read (401, 403, 406, 415, 429), when it
 * declares a small length. Why: workerd closes a keep-alive connection whose request body was left unread, so the
 * client's NEXT request on it fails with a reset (or, behind wrangler dev's proxy, a 503) instead of an answer. A
 * body of known small size costs little to read; a large or chunked one is still never read for a refused caller.
 */
export async function discardUnreadBody(request: Request): Promise<void> {
  if (!request.body || request.bodyUsed) return;
  const declared = request.headers.get("content-length");
  if (declared === null || !/^[0-9]+$/.test(declared) || Number(declared) > UNREAD_DISCARD_MAX_BYTES) return;
  await request.arrayBuffer().catch(() => {});
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError(413, `Request body is larger than ${maxBytes} bytes`);
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return decodeUtf8Strict(bytes);
  } catch {
    throw new RpcError(ErrorCode.ParseError, "Parse error: body is not valid UTF-8");
  }
}

/**
 * One pass over the text, skipping string contents, counting nesting depth, object members and array elements. Why
 * elements too: a parsed value costs far more than its text (`[{},{},...]` is 3 bytes an object), so a body within
 * the byte cap could still fill the isolate's memory once parsed; members alone never count `[{},{}]`. It also notes any
 * `\uD800`-`\uDFFF` escape: the bytes are strict UTF-8, so only such an escape can put a lone surrogate in a
 * string, and the (rare) bodies that have one are the only ones whose text is checked after parsing.
 */
export function scanJson(
  text: string,
  limits: Pick<BodyLimits, "maxDepth" | "maxMembers" | "maxElements">,
): { refused?: "too-deep" | "too-many-members" | "too-many-elements"; surrogateEscapes: boolean } {
  let depth = 0;
  let members = 0;
  let elements = 0;
  /** Whether each open container is an array (by depth), and whether one was just opened (its first element is next). */
  const isArray = new Uint8Array(limits.maxDepth + 2);
  let arrayOpened = false;
  let inString = false;
  let surrogateEscapes = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (arrayOpened && !inString && c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) {
      // The first element of an array, unless it is empty; the others follow a comma.
      arrayOpened = false;
      if (c !== 0x5d && ++elements > limits.maxElements) return { refused: "too-many-elements", surrogateEscapes };
    }
    if (inString) {
      if (c === 0x5c) {
        // backslash: skip the escaped character, noting a \uD8xx-\uDFxx escape (u, then d or D, then 8-9 or a-f)
        if (text.charCodeAt(i + 1) === 0x75 && (text.charCodeAt(i + 2) | 0x20) === 0x64 && isHighHexDigit(text.charCodeAt(i + 3)))
          surrogateEscapes = true;
        i++;
      } else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limits.maxDepth) return { refused: "too-deep", surrogateEscapes };
      isArray[depth] = c === 0x5b ? 1 : 0;
      arrayOpened = c === 0x5b;
    } else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x3a && ++members > limits.maxMembers) return { refused: "too-many-members", surrogateEscapes };
    else if (c === 0x2c && isArray[depth] === 1 && ++elements > limits.maxElements)
      return { refused: "too-many-elements", surrogateEscapes };
  }
  return { surrogateEscapes };
}

/** 8, 9, a-f or A-F: the second hex digit of a surrogate code unit (D800-DFFF). */
function isHighHexDigit(c: number): boolean {
  return c === 0x38 || c === 0x39 || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
}
