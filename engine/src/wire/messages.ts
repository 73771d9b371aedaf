/**
 * @module wire/messages
 * JSON-RPC response bodies, and the one place that maps an error to a JSON-RPC code and an HTTP status.
 */

import { describeError, type LogScope, log } from "../util/log";
import { ErrorCode, HttpError, INTERNAL_ERROR_MESSAGE, RpcError } from "./errors";
import { TASK_METHODS } from "./tasks";
import type { RequestId } from "./types";

/** What an MCP method name looks like; anything else is recorded as `_OTHER` (as HTTP spans do for odd methods). */
const METHOD_NAME = /^[A-Za-z0-9_./-]{1,64}$/;

/**
 * The method as a span or the access log may show it: a client can send any text as a method, so odd ones become
 * `_OTHER`.
 */
export function methodName(method: string): string {
  return METHOD_NAME.test(method) ? method : "_OTHER";
}

export function resultMessage(id: RequestId, result: unknown) {
  return { jsonrpc: "2.0", id, result };
}

/**
 * `JSON.stringify(resultMessage(id, result))` from the result's own JSON text, already serialized: the same bytes,
 * without serializing the result again. For answers kept per isolate (see `reusable`).
 */
export function resultMessageJson(id: RequestId, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`;
}

/** Results marked by `reusable`: the same object answers every request it is kept for, and is never changed. */
const REUSABLE = new WeakSet<object>();

/**
 * Marks a method's result as one kept per isolate and given to every request it fits (a list's first page for
 * callers who see the same entries): frozen, so nothing changes it, and its serialization may be kept with it.
 */
export function reusable<T extends object>(result: T): T {
  REUSABLE.add(Object.freeze(result));
  return result;
}

export const isReusable = (result: object): boolean => REUSABLE.has(result);

/**
 * An error response; `id` is left out when the request's id could not be read: MCP's schema makes it optional and
 * never null (`id?: RequestId`), where JSON-RPC 2.0 alone would write `"id": null`.
 */
export function errorMessage(id: RequestId | undefined, code: number, message: string, data?: unknown) {
  return {
    jsonrpc: "2.0",
    ...(id !== undefined && { id }),
    error: { code, message, ...(data !== undefined && { data }) },
  };
}

/**
 * Protocol errors keep their code and status. Anything else is an internal fault: the client gets -32603 and a
 * generic message, and the detail is logged with the trace id the client sees in `X-Request-Id`.
 */
export function failureMessage(error: unknown, id: RequestId | undefined, scope: LogScope | undefined) {
  if (error instanceof RpcError)
    return { body: errorMessage(id, error.code, error.message, error.data), status: error.httpStatus, headers: {} };
  if (error instanceof HttpError) {
    const { code, data } = error.rpc ?? { code: ErrorCode.InvalidRequest };
    return { body: errorMessage(id, code, error.message, data), status: error.status, headers: error.headers };
  }
  log(scope, "error", "internal error", describeError(error));
  return { body: errorMessage(id, ErrorCode.InternalError, INTERNAL_ERROR_MESSAGE), status: 500, headers: {} };
}

/**
 * The request methods whose target is mirrored in `Mcp-Name`: `params.name`, `params.uri`, or (Tasks extension)
 * `params.taskId` on `tasks/get`, `tasks/update` and `tasks/cancel`.
 */
export function mcpNameOf(method: string, params: Record<string, unknown>): string | undefined {
  const value =
    method === "tools/call" || method === "prompts/get"
      ? params.name
      : method === "resources/read"
        ? params.uri
        : (TASK_METHODS as readonly string[]).includes(method)
          ? params.taskId
          : undefined;
  return typeof value === "string" ? value : undefined;
}
