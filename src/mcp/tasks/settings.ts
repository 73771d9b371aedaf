/**
 * @module tasks/settings
 * The limits every task runs under. Fixed, not configurable yet: each follows from a platform limit (noted).
 * How long a question waits for its answer follows from none (it is how long a person may take), so it is a
 * setting instead: TASK_INPUT_TIMEOUT_SECONDS (config.ts), stored with each task when it is created.
 */
export const TASK_SETTINGS = {
  /**
   * How long a task and its result are kept after creation (the wire's `ttlMs`), and the longest it may work:
   * a task still working when this elapses is stopped and deleted with everything it held.
   */
  ttlMs: 60 * 60_000,
  /**
   * Tasks one caller (principal, or client IP when anonymous) may have in progress (working or input_required) at
   * once; finished tasks do not count. Over it, tools/call answers a tool error the model can read.
   */
  maxActivePerCaller: 10,
  /** Suggested polling interval for `tasks/get`. */
  pollIntervalMs: 1_000,
  /**
   * Wall time one run of the handler may use before `ctx.checkpoint()` ends the run and schedules the next one.
   * Why: an alarm invocation has 30 s of CPU by default (and 15 min wall); CPU time is at most wall time.
   */
  sliceMs: 20_000,
  /**
   * If a run stops without a word (isolate evicted, `wrangler dev` restarted), the alarm set before it fires after
   * this long and runs the handler again from its last checkpoint. Longer than any healthy run between checkpoints.
   */
  leaseMs: 60_000,
  /** Largest result kept, as stored (UTF-8 JSON). Why: a SQLite Durable Object value holds at most 2 MB. */
  maxResultBytes: 1_000_000,
  /** Largest `ctx.state` kept between runs, as stored (UTF-8 JSON). */
  maxStateBytes: 128 * 1024,
  /**
   * Largest `notifications/tasks` sent with its payload (result, error or inputRequests), as UTF-8 JSON; a larger
   * one goes without it, and the client reads it with tasks/get. Why: it crosses the hub's WebSocket and may be
   * kept in a 64 KiB replay buffer.
   */
  maxNotificationBytes: 16 * 1024,
  /** Largest `tasks/update` answers taken at once, as stored (UTF-8 JSON). */
  maxAnswerBytes: 256 * 1024,
} as const;
