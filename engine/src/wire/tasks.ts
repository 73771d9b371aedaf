/**
 * @module wire/tasks
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

/**
 * How a tool runs as a task (`ToolDefinition.taskSupport`, named as in 2025-11-25): `"forbidden"` (never, the
 * default), `"optional"` (as a task for a client that declared the Tasks extension, synchronously for the others),
 * or `"required"` (only as a task; other clients get -32021, and 2025 clients an `isError` result saying why). A
 * task is created at the handler's first `ctx.progress()` (or `ctx.checkpoint()`); each run starts the handler from
 * the top, resuming from `ctx.state`, saved at every `ctx.checkpoint()`. Needs the TASKS binding.
 *
 * @example
 * ```ts
 * export const reindex = defineTool({
 *   name: "reindex",
 *   description: "Rebuild the search index, 100 pages.",
 *   input: z.strictObject({}),
 *   taskSupport: "optional",
 *   async handler(_args, ctx) {
 *     const state = ctx.state as { done?: number };
 *     ctx.progress(state.done ?? 0, 100, "Indexing"); // a task starts at the first progress report
 *     while ((state.done ?? 0) < 100) {
 *       if (ctx.signal.aborted) return toolError(`Cancelled after ${state.done ?? 0} pages.`);
 *       // ...index page state.done...
 *       state.done = (state.done ?? 0) + 1;
 *       ctx.progress(state.done, 100, `Indexed ${state.done} of 100 pages`);
 *       await ctx.checkpoint(); // saves ctx.state; a run that used its slice ends here, and the next one resumes
 *     }
 *     return { content: [text("Reindexed 100 pages.")] };
 *   },
 * });
 * ```
 */
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
