/**
 * @module run
 * How the engine ends a handler's run early, the same way on every path: it throws an `EndRun` from inside a
 * context call (`ask`, `checkpoint`, a task's first `progress`), and the path that runs the handler catches it.
 * Handlers should let it pass; one that catches it anyway still ends the way it was asked to, because each path
 * records why it ended before throwing.
 */

/** Ends a run: the path that started it knows what comes next (questions to ask, a task that takes over...). */
export class EndRun extends Error {
  override name = "EndRun";
}

/**
 * The run was cancelled: the client closed the stream (2026-07-28), sent `notifications/cancelled` (2025 sessions),
 * or called `tasks/cancel`. `ctx.checkpoint()` throws it once `ctx.signal` has aborted, so a handler that checks in
 * before each write stops before the next one.
 */
export class Cancelled extends EndRun {
  override name = "Cancelled";
}

/** `ctx.checkpoint()` outside a task: ends a cancelled run, does nothing otherwise. */
export function cancellationCheckpoint(signal: () => AbortSignal): () => Promise<void> {
  return async () => {
    if (signal().aborted) throw new Cancelled("The request was cancelled");
  };
}
