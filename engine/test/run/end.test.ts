/**
 * How a handler's run ends, decided in one place (src/run/end.ts `Run.until`): by its own return, or by the ending a
 * context call recorded before it threw the run's signal, even when the handler caught that signal and went on. The
 * paths that switch on the ending are tested where they are (rounds, 2025 requests, tasks).
 */
import { describe, expect, it } from "vitest";
import { isRunEnding, Run, runUntilEnd } from "../../src/run/end";

describe("Run.until", () => {
  it("answers the handler's value as done when nothing ended the run", async () => {
    expect(await new Run().until(async () => 42)).toEqual({ kind: "done", value: 42 });
  });

  it("answers the ending a context call recorded, and the signal it threw is the run's own", async () => {
    const run = new Run();
    let thrown: unknown;
    const ended = await run.until(async () => {
      try {
        run.end({ kind: "yields" });
      } catch (signal) {
        thrown = signal;
        throw signal;
      }
    });
    expect(ended).toEqual({ kind: "yields" });
    expect(isRunEnding(thrown)).toBe(true);
    expect(isRunEnding(new Error("a handler's own"))).toBe(false);
  });

  it("ends the way it was asked to when the handler catches the signal and returns a value anyway", async () => {
    const run = new Run();
    const ended = await run.until(async () => {
      try {
        run.end({ kind: "hands-over" });
      } catch {
        // a careless handler
      }
      return "should not be answered";
    });
    expect(ended).toEqual({ kind: "hands-over" });
  });

  it("keeps the first ending when a run is ended twice", async () => {
    const run = new Run();
    const ended = await run.until(async () => {
      try {
        run.end({ kind: "yields" });
      } catch {
        run.end({ kind: "hands-over" });
      }
    });
    expect(ended).toEqual({ kind: "yields" });
  });

  it("lets the handler's own error through when nothing ended the run", async () => {
    await expect(new Run().until(async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
  });

  it("answers cancelled, with the value, for a run that returned after it was cancelled (a task's)", async () => {
    expect(
      await runUntilEnd(
        async () => "how far it got",
        () => true,
      ),
    ).toEqual({ kind: "cancelled", value: "how far it got" });
    expect(
      await runUntilEnd(
        async () => "all of it",
        () => false,
      ),
    ).toEqual({ kind: "done", value: "all of it" });
  });
});
