/**
 * @module tasks/host
 * One task's Durable Object at work: its record in storage, its state machine, and its alarm.
 *
 * The alarm does everything that happens after the HTTP request ended: it runs the handler (first run, the run
 * after the last answer came, the next slice after a checkpoint), fails a task whose questions went unanswered
 * for the input timeout, and deletes the task when its ttlMs has passed.
 * Before each run it is set `leaseMs` ahead, so a run that dies with its isolate (eviction, deploy, a restart of
 * `wrangler dev`) is run again, from the handler's last checkpoint, when that alarm fires.
 */

import { acceptAnswer } from "../ask/answers";
import { resolveOptions } from "../config/options";
import { hubsOf } from "../listen/hub";
import { publishTaskStatus } from "../listen/publish";
import { jsonBytes } from "../util/encoding";
import { describeError, log } from "../util/log";
import { isObject } from "../wire/envelope";
import { ErrorCode, RpcError } from "../wire/errors";
import { TERMINAL } from "../wire/tasks";
import type { JsonObject } from "../wire/types";
import { usedKeys } from "./keys";
import { detailedTask, type TaskInit, type TaskRecord, taskFields } from "./record";
import type { UpdateOutcome } from "./rpc";
import { tasksOf } from "./rpc";
import { type RunOutcome, runTask } from "./run";
import type { TaskServers } from "./servers";

const KEY = "task";
const DEFAULT_TASK_LIMITS = resolveOptions().limits.tasks;

export class TaskHost {
  /** The run in progress in this instance, if any: cancelling aborts its signal. */
  private run?: AbortController;

  constructor(
    private readonly state: DurableObjectState,
    private readonly env: object,
    private readonly servers: TaskServers,
  ) {}

  async create(init: TaskInit): Promise<JsonObject> {
    // Why: ids are 128 random bits; a collision means a bug, and must never hand one caller another's task.
    if (this.load()) throw new Error("Task id already in use");
    const now = Date.now();
    const record: TaskRecord = {
      ...init,
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: init.limits.ttlMs,
      pollIntervalMs: init.limits.pollIntervalMs,
      pending: {},
    };
    this.save(record);
    await this.state.storage.setAlarm(now);
    return taskFields(record);
  }

  async get(principal: string): Promise<JsonObject | undefined> {
    const record = await this.owned(principal);
    return record && detailedTask(record);
  }

  /**
   * Keeps the answers to questions still outstanding; others (never asked, answered already) are ignored, as
   * the spec says. Once none is outstanding the task works again, in a new run.
   */
  async update(principal: string, responses: JsonObject): Promise<UpdateOutcome> {
    const record = await this.owned(principal);
    if (!record) return { kind: "unknown" };
    // Why an error, where answers to a task that no longer waits are otherwise ignored: this client answered a
    // question it was shown, and must learn that its answer came too late and was not used.
    if (record.inputExpired) return { kind: "invalid", message: `Too late for answers. ${String(record.error?.message)}` };
    if (record.status !== "input_required") return { kind: "ok" };
    // By the handler's key (what its ctx.ask() reads), from the key each question carried (keys.ts).
    const answers: JsonObject = {};
    const answered: string[] = [];
    for (const [key, answer] of Object.entries(responses)) {
      const question = record.pending[key];
      if (!question) continue;
      // The one answer check (ask/answers.ts), against the form the client was shown. A malformed answer is
      // refused whole (-32602) before anything is kept: the task keeps waiting with its question.
      try {
        answers[question.key ?? key] = acceptAnswer(
          key,
          { kind: question.kind, requestedSchema: requestedSchemaOf(question.request) },
          answer,
        );
        answered.push(key);
      } catch (error) {
        if (error instanceof RpcError) return { kind: "invalid", message: error.message };
        throw error;
      }
    }
    if (answered.length === 0) return { kind: "ok" };
    for (const key of answered) delete record.pending[key];
    record.answers = { ...record.answers, ...answers };
    record.lastUpdatedAt = Date.now();
    if (Object.keys(record.pending).length === 0) {
      record.status = "working";
      delete record.statusMessage;
      delete record.inputDeadline;
    }
    this.save(record);
    if (record.status === "working") {
      this.announce(record);
      await this.state.storage.setAlarm(Date.now());
    }
    return { kind: "ok" };
  }

  /** Cancels now: the status is final at once, and a run in progress sees its signal abort. */
  async cancel(principal: string): Promise<boolean> {
    const record = await this.owned(principal);
    if (!record) return false;
    if (TERMINAL.includes(record.status)) return true;
    // The handler's last report stays visible: how far it got before the cancellation.
    const last = record.statusMessage ? ` (last reported: ${record.statusMessage})` : "";
    this.finish(record, { status: "cancelled", statusMessage: `Cancelled by the client${last}` });
    this.run?.abort(new DOMException("The task was cancelled", "AbortError"));
    await this.state.storage.setAlarm(expiry(record));
    return true;
  }

  async alarm(): Promise<void> {
    const record = this.load();
    if (!record || Date.now() >= expiry(record)) return this.release();
    if (await this.expireUnanswered(record)) return;
    if (record.status !== "working") return this.state.storage.setAlarm(nextAlarm(record));
    // A second alarm while this instance runs the handler (it should not happen): keep the watchdog set.
    if (this.run) return this.state.storage.setAlarm(Date.now() + record.limits.leaseMs);
    await this.runOnce(record);
  }

  private async runOnce(record: TaskRecord): Promise<void> {
    const controller = new AbortController();
    this.run = controller;
    await this.state.storage.setAlarm(Date.now() + record.limits.leaseMs);
    let outcome: RunOutcome;
    try {
      outcome = await runTask(record, {
        server: this.servers(record.server),
        env: this.env,
        signal: controller.signal,
        waitUntil: (promise) => this.state.waitUntil(promise),
        statusMessage: (message) => this.patchWorking({ statusMessage: message }),
        saveState: (state) => {
          this.patchWorking({ state });
          // A checkpoint renews the watchdog: a run that dies after it resumes from it one lease later.
          this.state.waitUntil(this.state.storage.setAlarm(Date.now() + record.limits.leaseMs));
        },
      });
    } catch (error) {
      // The run machinery itself failed (not the handler): the task fails with an internal error.
      log({ traceId: record.traceId }, "error", "task run failed", { tool: record.tool, ...describeError(error) });
      outcome = { kind: "failed", error: { code: -32603, message: "Internal error" } };
    } finally {
      this.run = undefined;
    }
    const current = this.load();
    // Cancelled while it ran: the task stays cancelled, and what the handler said when it stopped (how far it got)
    // becomes its statusMessage. Deleted while it ran: nothing is kept.
    if (current?.status === "cancelled" && outcome.kind === "cancelled" && outcome.report) {
      this.save({ ...current, statusMessage: `Cancelled by the client: ${outcome.report}`, lastUpdatedAt: Date.now() });
      this.announce(this.load()!);
      return;
    }
    if (current?.status !== "working") return;
    switch (outcome.kind) {
      case "completed":
        this.finish(current, { status: "completed", result: outcome.result });
        break;
      case "failed":
        this.finish(current, { status: "failed", error: outcome.error, statusMessage: `Failed: ${outcome.error.message}` });
        break;
      case "input_required": {
        // Before any answer is dropped: a task stored by an older engine lists its used keys only through them.
        const used = usedKeys(current);
        // Kept answers the handler's own schema refused are dropped, and their questions asked again.
        const refused = Object.entries(outcome.refused);
        for (const [key] of refused) delete current.answers[key];
        const why = refused.map(([, message]) => message).join("; ");
        this.finish(current, {
          status: "input_required",
          pending: outcome.pending,
          // Why kept: a key once asked is never asked again (keys.ts), even after its question was answered.
          usedKeys: [...new Set([...used, ...Object.keys(outcome.pending)])],
          state: outcome.state,
          ...(why && { statusMessage: `${why}: answer again` }),
        });
        break;
      }
      case "cancelled":
        // Cancelled without tasks/cancel (the run's own signal): nothing to keep but the cancellation.
        this.finish(current, { status: "cancelled", statusMessage: "Cancelled" });
        break;
      case "yield":
        // The next slice runs at once, from the state just saved.
        this.save({ ...current, state: outcome.state, lastUpdatedAt: Date.now() });
        return this.state.storage.setAlarm(Date.now());
    }
    await this.state.storage.setAlarm(nextAlarm(current));
  }

  /** Applies a change to a working task (a run's progress or checkpoint); nothing once it is final. */
  private patchWorking(change: Partial<TaskRecord>): void {
    const record = this.load();
    if (record?.status !== "working") return;
    this.save({ ...record, ...change, lastUpdatedAt: Date.now() });
  }

  private finish(record: TaskRecord, change: Partial<TaskRecord>): void {
    Object.assign(record, change, { lastUpdatedAt: Date.now() });
    if (record.status === "input_required") {
      record.inputDeadline = record.lastUpdatedAt + record.limits.inputTimeoutMs;
    } else {
      record.pending = {};
      delete record.inputDeadline;
    }
    this.save(record);
    this.announce(record);
    if (TERMINAL.includes(record.status)) this.releaseQuota(record);
  }

  /** The task stops counting against its caller's quota. Best effort: a lost release expires with the task. */
  private releaseQuota(record: TaskRecord): void {
    const ledger = tasksOf(this.env)?.getByName(record.quota);
    if (!ledger) return;
    this.state.waitUntil(
      ledger
        .release(record.taskId)
        .catch((error: unknown) => log({ traceId: record.traceId }, "error", "task quota release failed", describeError(error))),
    );
  }

  /**
   * Sends the task's new status to its principal's `subscriptions/listen` streams (`taskIds` filter). Best effort,
   * after the change is stored: a client that misses it still sees the status on its next tasks/get.
   */
  private announce(record: TaskRecord): void {
    let task = detailedTask(record);
    // Why: hub messages travel over a WebSocket and may sit in a replay buffer; a big result is fetched by tasks/get.
    if (jsonBytes(task) > record.limits.maxNotificationBytes) task = taskFields(record);
    const sent = publishTaskStatus(hubsOf(this.env), record.principal, record.taskId, task).catch((error: unknown) =>
      log({ traceId: record.traceId }, "error", "task status publish failed", describeError(error)),
    );
    this.state.waitUntil(sent);
  }

  /** The task, when it exists, has not expired, and belongs to `principal` (anyone else is told it is unknown). */
  private async owned(principal: string): Promise<TaskRecord | undefined> {
    const record = this.load();
    if (!record) return undefined;
    if (Date.now() >= expiry(record)) {
      await this.release();
      return undefined;
    }
    if (record.principal.id !== principal) return undefined;
    // Why here too: an alarm may fire late; the owner never sees a task still waiting past its deadline.
    await this.expireUnanswered(record);
    return record;
  }

  /**
   * Fails the task when its questions went unanswered by their deadline, and says whether it did. Why: a client
   * that declared the extension but cannot answer (the TypeScript SDK 2.4.0 client throws on a task result) would
   * otherwise hold one of its caller's tasks in progress for the whole ttlMs. `finish` tells listeners and gives
   * the caller's quota slot back; the failed task is kept, like any other, until its ttlMs.
   */
  private async expireUnanswered(record: TaskRecord): Promise<boolean> {
    if (record.status !== "input_required" || record.inputDeadline === undefined || Date.now() < record.inputDeadline) return false;
    const asked = Object.keys(record.pending).length;
    const message = `${asked === 1 ? "The question" : `The ${asked} questions`} went unanswered within ${duration(record.limits.inputTimeoutMs)}, so the task stopped waiting. Call the tool again to start over.`;
    this.finish(record, {
      status: "failed",
      error: { code: ErrorCode.InternalError, message },
      statusMessage: `Failed: ${message}`,
      inputExpired: true,
    });
    await this.state.storage.setAlarm(expiry(record));
    return true;
  }

  /** Deletes everything the task held: its record and its alarm; a run in progress is stopped. */
  private async release(): Promise<void> {
    this.run?.abort(new DOMException("The task expired", "AbortError"));
    const record = this.load();
    if (record && !TERMINAL.includes(record.status)) this.releaseQuota(record);
    await this.state.storage.deleteAlarm();
    await this.state.storage.deleteAll();
  }

  private load(): TaskRecord | undefined {
    const record = this.state.storage.kv.get<TaskRecord>(KEY);
    // A task stored by an engine before 1.3.0 has no limits of its own: it runs under today's defaults.
    if (record && !record.limits) record.limits = DEFAULT_TASK_LIMITS;
    return record;
  }

  private save(record: TaskRecord): void {
    this.state.storage.kv.put(KEY, record);
  }
}

const expiry = (record: TaskRecord) => record.createdAt + record.ttlMs;

/** The next time the alarm has work: the questions' deadline while the task waits for input, else its expiry. */
const nextAlarm = (record: TaskRecord) =>
  record.status === "input_required" && record.inputDeadline !== undefined
    ? Math.min(record.inputDeadline, expiry(record))
    : expiry(record);

/** "5 minutes", "1 minute", "90 seconds": the input timeout as a person reads it. */
function duration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  const [count, unit] = seconds % 60 === 0 ? [seconds / 60, "minute"] : [seconds, "second"];
  return `${count} ${unit}${count === 1 ? "" : "s"}`;
}

/** The `requestedSchema` of a form question, as the task stored its wire form (`elicitation/create` params). */
function requestedSchemaOf(request: JsonObject): JsonObject | undefined {
  const params = request.params;
  return isObject(params) && isObject(params.requestedSchema) ? params.requestedSchema : undefined;
}
