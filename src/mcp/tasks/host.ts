/**
 * @module tasks/host
 * One task's Durable Object at work: its record in storage, its state machine, and its alarm.
 *
 * The alarm does everything that happens after the HTTP request ended: it runs the handler (first run, the run
 * after the last answer came, the next slice after a checkpoint), and deletes the task when its ttlMs has passed.
 * Before each run it is set `leaseMs` ahead, so a run that dies with its isolate (eviction, deploy, a restart of
 * `wrangler dev`) is run again, from the handler's last checkpoint, when that alarm fires.
 */
import type { EngineBindings } from "../bindings";
import { describeIssues } from "../define/schema";
import { jsonBytes } from "../encoding";
import { responseSchemas } from "../input/ask";
import { publishTaskStatus } from "../listen/publish";
import { describeError, log } from "../log";
import type { JsonObject } from "../protocol/wire";
import { detailedTask, type TaskInit, type TaskRecord, taskFields } from "./record";
import type { UpdateOutcome } from "./rpc";
import { type RunOutcome, runTask } from "./run";
import { TASK_SETTINGS } from "./settings";
import { TERMINAL } from "./wire";

const KEY = "task";

export class TaskHost {
  /** The run in progress in this instance, if any: cancelling aborts its signal. */
  private run?: AbortController;

  constructor(
    private readonly state: DurableObjectState,
    private readonly env: EngineBindings,
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
      ttlMs: TASK_SETTINGS.ttlMs,
      pollIntervalMs: TASK_SETTINGS.pollIntervalMs,
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
    if (record.status !== "input_required") return { kind: "ok" };
    const answers: JsonObject = {};
    for (const [key, answer] of Object.entries(responses)) {
      const question = record.pending[key];
      if (!question) continue;
      // A malformed answer is refused whole (-32602), before anything is kept.
      const parsed = responseSchemas()[question.kind].safeParse(answer);
      if (!parsed.success) return { kind: "invalid", message: `Invalid inputResponses: ${describeIssues(parsed.error, key)}` };
      answers[key] = parsed.data;
    }
    if (Object.keys(answers).length === 0) return { kind: "ok" };
    for (const key of Object.keys(answers)) delete record.pending[key];
    record.answers = { ...record.answers, ...answers };
    record.lastUpdatedAt = Date.now();
    if (Object.keys(record.pending).length === 0) {
      record.status = "working";
      delete record.statusMessage;
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
    this.finish(record, { status: "cancelled", statusMessage: "Cancelled by the client" });
    this.run?.abort(new DOMException("The task was cancelled", "AbortError"));
    await this.state.storage.setAlarm(expiry(record));
    return true;
  }

  async alarm(): Promise<void> {
    const record = this.load();
    if (!record || Date.now() >= expiry(record)) return this.release();
    if (record.status !== "working") return this.state.storage.setAlarm(expiry(record));
    // A second alarm while this instance runs the handler (it should not happen): keep the watchdog set.
    if (this.run) return this.state.storage.setAlarm(Date.now() + TASK_SETTINGS.leaseMs);
    await this.runOnce(record);
  }

  private async runOnce(record: TaskRecord): Promise<void> {
    const controller = new AbortController();
    this.run = controller;
    await this.state.storage.setAlarm(Date.now() + TASK_SETTINGS.leaseMs);
    let outcome: RunOutcome;
    try {
      outcome = await runTask(record, {
        env: this.env,
        signal: controller.signal,
        waitUntil: (promise) => this.state.waitUntil(promise),
        statusMessage: (message) => this.patchWorking({ statusMessage: message }),
        saveState: (state) => {
          this.patchWorking({ state });
          // A checkpoint renews the watchdog: a run that dies after it resumes from it one lease later.
          this.state.waitUntil(this.state.storage.setAlarm(Date.now() + TASK_SETTINGS.leaseMs));
        },
      });
    } catch (error) {
      // The run machinery itself failed (not the handler): the task fails with an internal error.
      log({ traceId: record.traceId }, "error", "task run failed", { tool: record.tool, ...describeError(error) });
      outcome = { kind: "failed", error: { code: -32603, message: "Internal error" } };
    } finally {
      this.run = undefined;
    }
    // Cancelled or deleted while it ran: what the run produced is dropped.
    const current = this.load();
    if (current?.status !== "working") return;
    switch (outcome.kind) {
      case "completed":
        this.finish(current, { status: "completed", result: outcome.result });
        break;
      case "failed":
        this.finish(current, { status: "failed", error: outcome.error, statusMessage: `Failed: ${outcome.error.message}` });
        break;
      case "input_required":
        this.finish(current, { status: "input_required", pending: outcome.pending, state: outcome.state });
        break;
      case "yield":
        // The next slice runs at once, from the state just saved.
        this.save({ ...current, state: outcome.state, lastUpdatedAt: Date.now() });
        return this.state.storage.setAlarm(Date.now());
    }
    await this.state.storage.setAlarm(expiry(current));
  }

  /** Applies a change to a working task (a run's progress or checkpoint); nothing once it is final. */
  private patchWorking(change: Partial<TaskRecord>): void {
    const record = this.load();
    if (record?.status !== "working") return;
    this.save({ ...record, ...change, lastUpdatedAt: Date.now() });
  }

  private finish(record: TaskRecord, change: Partial<TaskRecord>): void {
    Object.assign(record, change, { lastUpdatedAt: Date.now() });
    if (record.status !== "input_required") record.pending = {};
    this.save(record);
    this.announce(record);
    if (TERMINAL.includes(record.status)) this.releaseQuota(record);
  }

  /** The task stops counting against its caller's quota. Best effort: a lost release expires with the task. */
  private releaseQuota(record: TaskRecord): void {
    const ledger = this.env.TASKS?.getByName(record.quota);
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
    if (jsonBytes(task) > TASK_SETTINGS.maxNotificationBytes) task = taskFields(record);
    const sent = publishTaskStatus(this.env.SUBSCRIPTIONS, record.principal, record.taskId, task).catch((error: unknown) =>
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
    return record.principal.id === principal ? record : undefined;
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
    return this.state.storage.kv.get<TaskRecord>(KEY);
  }

  private save(record: TaskRecord): void {
    this.state.storage.kv.put(KEY, record);
  }
}

const expiry = (record: TaskRecord) => record.createdAt + record.ttlMs;
