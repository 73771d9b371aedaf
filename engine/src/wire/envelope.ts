/**
 * @module wire/envelope
 * JSON-RPC 2.0 message parsing, the 2026-07-28 per-request `_meta`, and era detection (stateless 2026-07-28 vs 2025 legacy).
 * The envelope is loose on purpose: unknown extra fields are ignored, as the spec asks.
 */
import { illFormedTextAt, illFormedTextMessage } from "../util/encoding";
import { ErrorCode, RpcError, truncate } from "./errors";
import {
  type ClientCapabilities,
  type Implementation,
  isLegacyVersion,
  type JsonObject,
  LOG_LEVELS,
  type LogLevel,
  META,
  type RequestId,
} from "./types";

export type Message =
  | { kind: "request"; id: RequestId; method: string; params: JsonObject }
  | { kind: "notification"; method: string; params: JsonObject }
  | { kind: "response"; id: RequestId; result?: unknown; error?: unknown };

export interface RequestMeta {
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
  clientInfo?: Implementation;
  logLevel?: LogLevel;
  progressToken?: string | number;
}

export const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The longest string request id (or progress token) served, in bytes of its UTF-8. Why a bound: neither JSON-RPC nor
 * MCP sets one, and an id is echoed in every message of its request's answer (each progress notification, each event
 * of a kept stream), written to the log and its span, stored with a task and remembered by a 2025 session once
 * cancelled; a client that sends a 100 KB id would have all of that copied 100 KB at a time. Real clients use
 * integers or short strings (a UUID is 36 bytes). Why bytes: what each copy costs.
 */
export const MAX_ID_BYTES = 1_024;

const utf8 = new TextEncoder();

/** Whether a string id fits `MAX_ID_BYTES`: encoded only when its length alone cannot tell (UTF-8 takes 1 to 3 bytes a unit). */
const fitsIdBytes = (id: string) =>
  id.length * 3 <= MAX_ID_BYTES || (id.length <= MAX_ID_BYTES && utf8.encode(id).byteLength <= MAX_ID_BYTES);

/** What a usable request id is, for the messages that refuse one. */
const ID_RULE = `a string of at most ${MAX_ID_BYTES} bytes (UTF-8) or an integer`;

/**
 * A request id we can echo: a string of at most `MAX_ID_BYTES` or a safe integer (MCP forbids null, and floats are
 * not integers). Anything else cannot be echoed: its refusal carries no id.
 */
export function readableId(value: unknown): RequestId | undefined {
  if (typeof value === "string") return fitsIdBytes(value) ? value : undefined;
  if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  return undefined;
}

/**
 * Classifies one parsed JSON value as a request, a notification or a response, or throws -32600. `checkText`: the
 * body may hold lone surrogates (it has `\uD800`-`\uDFFF` escapes, see `http/body.ts`), so a request's params are
 * checked for them first.
 */
export function parseMessage(value: unknown, checkText = false): Message {
  if (Array.isArray(value)) {
    throw new RpcError(ErrorCode.InvalidRequest, "Invalid Request: batches are not supported; send one message per POST");
  }
  if (!isObject(value)) throw new RpcError(ErrorCode.InvalidRequest, "Invalid Request: expected a JSON-RPC object");
  const id = readableId(value.id);
  const invalid = (message: string) => new RpcError(ErrorCode.InvalidRequest, `Invalid Request: ${message}`, undefined, 400);
  if (value.jsonrpc !== "2.0") throw withId(invalid('"jsonrpc" must be "2.0"'), id);
  if (!("method" in value)) {
    if (id !== undefined && ("result" in value || "error" in value)) {
      return { kind: "response", id, result: value.result, error: value.error };
    }
    throw withId(invalid('missing "method"'), id);
  }
  if (typeof value.method !== "string" || value.method === "") throw withId(invalid('"method" must be a non-empty string'), id);
  if ("params" in value && value.params !== undefined && !isObject(value.params)) {
    throw withId(new RpcError(ErrorCode.InvalidParams, 'Invalid params: "params" must be an object', undefined, 400), id);
  }
  const params = (value.params as JsonObject | undefined) ?? {};
  if (!("id" in value)) return { kind: "notification", method: value.method, params };
  if (id === undefined) throw invalid(`"id" must be ${ID_RULE}${value.id === null ? ", never null" : ""}`);
  if (checkText) refuseIllFormedText(value.method, params, id);
  return { kind: "request", id, method: value.method, params };
}

/**
 * -32602 for params holding text that is not well-formed Unicode: it would be stored, or signed into state, as
 * something other than what was sent. A tool's arguments are left to the tool call, which answers with an `isError`
 * result the model can act on (`parseArguments`).
 */
function refuseIllFormedText(method: string, params: JsonObject, id: RequestId): void {
  for (const key in params) {
    if (method === "tools/call" && key === "arguments") continue;
    const at = key.isWellFormed() ? illFormedTextAt(params[key], key) : "(a key)";
    if (at !== undefined) throw withId(new RpcError(ErrorCode.InvalidParams, `Invalid params: ${illFormedTextMessage(at)}`), id);
  }
}

/** Attaches the request id to an error thrown before dispatch, so the client can match the answer. */
export function withId(error: RpcError, id: RequestId | undefined): RpcError {
  return Object.assign(error, { requestId: id });
}

export function idOf(error: unknown): RequestId | undefined {
  return (error as { requestId?: RequestId } | undefined)?.requestId;
}

/**
 * Era detection (spec 2026-07-28 "Backward Compatibility"): a request that claims the 2026-07-28 revision in `_meta`
 * or in its `MCP-Protocol-Version` header is stateless (2026-07-28); a legacy header with no claim, or no header and no claim
 * (2025-03-26 clients send none), is legacy. A header naming an unknown revision is not legacy either: the stateless
 * path answers it (-32022 without a claim in `_meta`).
 */
function isStatelessRequest(params: JsonObject, headerVersion: string | undefined): boolean {
  if (claimsStateless(params)) return true;
  if (headerVersion === undefined) return false;
  return !isLegacyVersion(headerVersion);
}

/** Whether `params._meta` claims the 2026-07-28 wire: it has the version or the capabilities key, well formed or not. */
export function claimsStateless(params: JsonObject): boolean {
  const meta = params._meta;
  return isObject(meta) && (META.protocolVersion in meta || META.clientCapabilities in meta);
}

/**
 * The client's self-reported name and version (2026-07-28 `_meta`, 2025 `initialize`), bounded in length; a
 * malformed one is ignored rather than refused, since nothing depends on it.
 */
export function readClientInfo(value: unknown): Implementation | undefined {
  if (!isObject(value) || typeof value.name !== "string" || typeof value.version !== "string") return undefined;
  return { name: truncate(value.name, 200), version: truncate(value.version, 100) };
}

const metaError = (message: string) => new RpcError(ErrorCode.InvalidParams, `Invalid params: ${message}`, undefined, 400);

/** Reads the required and optional per-request `_meta` keys; a missing required key is -32602 with HTTP 400. */
export function parseRequestMeta(params: JsonObject): RequestMeta {
  const meta = params._meta;
  if (!isObject(meta)) throw metaError("missing params._meta (every 2026-07-28 request carries it)");
  const protocolVersion = meta[META.protocolVersion];
  if (typeof protocolVersion !== "string") throw metaError(`missing _meta["${META.protocolVersion}"]`);
  const clientCapabilities = meta[META.clientCapabilities];
  if (!isObject(clientCapabilities)) throw metaError(`missing _meta["${META.clientCapabilities}"]`);
  const result: RequestMeta = { protocolVersion, clientCapabilities };

  const clientInfo = readClientInfo(meta[META.clientInfo]);
  if (clientInfo) result.clientInfo = clientInfo;
  const logLevel = meta[META.logLevel];
  if (logLevel !== undefined) {
    if (!(LOG_LEVELS as readonly unknown[]).includes(logLevel)) {
      throw metaError(`_meta["${META.logLevel}"] must be one of ${LOG_LEVELS.join(", ")}`);
    }
    result.logLevel = logLevel as LogLevel;
  }
  if (meta.progressToken !== undefined) {
    // A progress token is a string or an integer, the same values a request id may take.
    const progressToken = readableId(meta.progressToken);
    if (progressToken === undefined) throw metaError(`_meta.progressToken must be ${ID_RULE}`);
    result.progressToken = progressToken;
  }
  return result;
}

/**
 * Era detection (spec 2026-07-28, "Backward Compatibility"): a message with a 2026-07-28 claim is served statelessly
 * as 2026-07-28; `initialize`, a 2025 version header without a claim, or no header and no claim at all (2025-03-26
 * clients send none) is a 2025-era message. Batches exist only in 2025-03-26.
 */
export function isLegacyMessage(body: unknown, headerVersion: string | undefined): boolean {
  if (Array.isArray(body)) return headerVersion === undefined || headerVersion === "2025-03-26";
  return isObject(body) && !isStatelessRequest(isObject(body.params) ? body.params : {}, headerVersion);
}
