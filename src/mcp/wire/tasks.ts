/**
 * @module tasks/wire
 * The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on the wire: its identifier, the Task shapes,
 * and the -32021 error for clients that did not declare it. Small on purpose: the request path imports it.
 */
import { isObject } from "./envelope";
import { ErrorCode, RpcError } from "./errors";
import type { ClientCapabilities, JsonObject } from "./types";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** The extension's methods (`tasks/result` and `tasks/list` are gone in SEP-2663: unknown methods, -32601). */
export const TASK_METHODS = ["tasks/get", "tasks/update", "tasks/cancel"] as const;
export type TaskMethod = (typeof TASK_METHODS)[number];

/** How a tool runs as a task: never, when the client can take one, or only as one (named as in 2025-11-25). */
export type TaskSupport = "forbidden" | "optional" | "required";

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

export const TERMINAL: readonly TaskStatus[] = ["completed", "failed", "cancelled"];

/** Whether this request's capabilities declare the extension (per request: an earlier declaration does not count). */
export function declaresTasks(capabilities: ClientCapabilities): boolean {
  const extensions = (capabilities as JsonObject).extensions;
  return isObject(extensions) && isObject(extensions[TASKS_EXTENSION]);
}

/** -32021 naming the extension, for `tasks/*` and task-only tools from clients that did not declare it. */
export function tasksRequired(): RpcError {
  return new RpcError(ErrorCode.MissingRequiredClientCapability, `Missing required client capability: extensions.${TASKS_EXTENSION}`, {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
}
