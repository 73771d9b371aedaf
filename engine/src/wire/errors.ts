/**
 * @module wire/errors
 * JSON-RPC and MCP error codes, and `RpcError`, the one error type the engine throws for protocol problems.
 *
 * Protocol problems (unknown method, malformed params, bad `_meta`, tampered `requestState`) become JSON-RPC
 * errors. Failures while running a tool are *results* with `isError: true`, never an `RpcError`.
 */

export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** 2025-era "resource not found"; only the legacy path emits it. */
  ResourceNotFound: -32002,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
  /** Over a rate limit: the draft SEP-3304, sent only with the `rateLimitError: "sep-3304"` option. */
  RateLimited: -32023,
} as const;

/**
 * The HTTP status for an error that the transport or envelope produced (spec 2026-07-28, Streamable HTTP).
 * Errors raised while a method runs (unknown tool, bad cursor, tampered state) stay in-band with 200,
 * as the official SDK does; the spec leaves their status open.
 */
function defaultHttpStatus(code: number): number {
  switch (code) {
    case ErrorCode.MethodNotFound:
      return 404;
    case ErrorCode.ParseError:
    case ErrorCode.InvalidRequest:
    case ErrorCode.HeaderMismatch:
    case ErrorCode.MissingRequiredClientCapability:
    case ErrorCode.UnsupportedProtocolVersion:
      return 400;
    default:
      return 200;
  }
}

export class RpcError extends Error {
  readonly httpStatus: number;

  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    httpStatus?: number,
  ) {
    super(message);
    this.name = "RpcError";
    this.httpStatus = httpStatus ?? defaultHttpStatus(code);
  }
}

/** An HTTP-level refusal that happens before there is a JSON-RPC message to answer (405, 413, 415, ...). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
    /** The JSON-RPC error the answer carries, when another than -32600 (a rate limit's -32023, SEP-3304). */
    readonly rpc?: { code: number; data?: unknown },
  ) {
    super(message);
    this.name = "HttpError";
  }
}

/** The generic text every internal fault shows the client; the detail goes to the log only. */
export const INTERNAL_ERROR_MESSAGE = "Internal error";

/** Unknown resource URI: -32602 with `data.uri` on 2026-07-28 (SEP-2164); the legacy path turns it into -32002. */
export class ResourceNotFound extends RpcError {
  constructor(readonly uri: string) {
    super(ErrorCode.InvalidParams, "Resource not found", { uri });
  }
}

export const invalidParams = (message: string, data?: unknown) => new RpcError(ErrorCode.InvalidParams, message, data);
export const methodNotFound = (method: string) => new RpcError(ErrorCode.MethodNotFound, `Method not found: ${truncate(method, 100)}`);
export const headerMismatch = (message: string) => new RpcError(ErrorCode.HeaderMismatch, message);
/** -32022 (HTTP 400): `requested` is not served here; `data.supported` names every revision that is. */
export const unsupportedVersion = (requested: string, supported: string[], message = "Unsupported protocol version") =>
  new RpcError(ErrorCode.UnsupportedProtocolVersion, message, { supported, requested });

/** Keeps client-supplied text short when it is echoed back in an error message. */
export function truncate(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, max)}...` : value;
}
