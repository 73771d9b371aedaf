/**
 * @module run/end
 * How a handler's run ends, decided in one place. A run ends by returning, or early, when a context call ends it:
 * `ctx.ask()` with questions the run cannot answer now, `ctx.checkpoint()` once cancelled or once a task's slice is
 * used, a task's first `ctx.progress()` on the Worker. Those calls record why through the `EndRun` they were given
 * and throw a signal only this module knows; `Run.until` catches it and returns how the run ended, so every path
 * (a multi round-trip round, a 2025 live request, a task's first slice, a task's later runs) switches on a value.
 */
import type { InputRequest } from "../ask/questions";

/** How a run ended, other than by the handler's own return. */
export type Ending =
  /** With questions the run could not answer now: a round answers `input_required`, a task waits for `tasks/update`. */
  | { kind: "asks"; questions: Record<string, InputRequest> }
  /** A task's run used its time slice: the next run starts the handler again from its saved `ctx.state`. */
  | { kind: "yields" }
  /** A task takes the call over (its first progress on the Worker): the work goes on in the task's object. */
  | { kind: "hands-over" }
  /** The run was cancelled: the client went away, sent `notifications/cancelled`, or called `tasks/cancel`. */
  | { kind: "cancelled" };

/** How a run ended: its handler's value, or an `Ending` (a cancelled run may have returned a value after all). */
export type RunEnd<T> = { kind: "done"; value: T } | Exclude<Ending, { kind: "cancelled" }> | { kind: "cancelled"; value?: T };

/** Ends the run it was given to (never returns): what a context call uses to end a run early. */
export type EndRun = (ending: Ending) => never;

/** The signal an `EndRun` throws through the handler. Private: no path catches it but `Run.until`. */
class RunEnded extends Error {
  override name = "RunEnded";
}

/**
 * Whether `error` is a run ending early: code that catches errors around a handler (turning crashes into tool errors)
 * must let it pass, as `runTool` does.
 */
export const isRunEnding = (error: unknown): boolean => error instanceof RunEnded;

/**
 * One run of a handler: its `end`, which the run's context calls use (so what asks or checks in can be built before
 * the run starts), and `until`, the one function that runs it and says how it ended.
 */
export class Run {
  private ending: Ending | undefined;

  /** Ends this run (never returns). Why the ending is recorded before the signal is thrown: see `until`. */
  readonly end: EndRun = (why) => {
    this.ending ??= why;
    throw new RunEnded(why.kind);
  };

  /**
   * Runs `body` to its end and says how it ended. A handler that catches the end's signal and goes on (or returns)
   * still ends the way it was asked to: the ending was recorded first, and it is decided here and nowhere else.
   * A body that returns a value (not a promise) is answered at once, without a promise: a plain call that never
   * waits pays for no async frame here (see `modern/serve.ts`, which arms a keep-alive only for a pending answer).
   *
   * @param body - Runs the handler, whose context calls end the run through `end`.
   * @param cancelled - Whether the run was cancelled meanwhile: a handler that returned after cancellation (with how
   *   far it got) ended cancelled. Only a task asks; a request's cancellation ends it through `ctx.checkpoint()`.
   */
  until<T>(body: () => T | Promise<T>, cancelled?: () => boolean): RunEnd<T> | Promise<RunEnd<T>> {
    let value: T | Promise<T>;
    try {
      value = body();
    } catch (error) {
      return this.endedBy(error);
    }
    if (!(value instanceof Promise)) return this.endedWith(value, cancelled);
    return value.then(
      (settled) => this.endedWith(settled, cancelled),
      (error: unknown) => this.endedBy(error),
    );
  }

  /** How a run that returned `value` ended: as it was asked to end, if it was; cancelled; or done. */
  private endedWith<T>(value: T, cancelled?: () => boolean): RunEnd<T> {
    if (this.ending) return this.ending;
    if (cancelled?.()) return { kind: "cancelled", value };
    return { kind: "done", value };
  }

  /** How a run that threw ended: as it was asked to end, if it was (the throw is the end's signal); else the throw. */
  private endedBy(error: unknown): RunEnd<never> {
    if (this.ending) return this.ending;
    throw error;
  }
}

/** A run of `body`, given its `end`, to its end (`Run.until`): for what needs nothing built before it runs. */
export function runUntilEnd<T>(body: (end: EndRun) => T | Promise<T>, cancelled?: () => boolean): RunEnd<T> | Promise<RunEnd<T>> {
  const run = new Run();
  return run.until(() => body(run.end), cancelled);
}

/** `ctx.checkpoint()` outside a task: ends a cancelled run, does nothing otherwise. */
export function cancellationCheckpoint(signal: () => AbortSignal, end: EndRun): () => Promise<void> {
  return async () => {
    if (signal().aborted) end({ kind: "cancelled" });
  };
}
