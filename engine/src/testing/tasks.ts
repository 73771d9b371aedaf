/**
 * @module testing/tasks
 * A task (the Tasks extension, `io.modelcontextprotocol/tasks`) driven as a client drives it: `tasks/get` polled at
 * the task's `pollIntervalMs` (or the test's shorter one), a bounded number of times; its questions answered with
 * `tasks/update`, by the same scripts and handlers as any other question; `tasks/cancel` to stop it. Every
 * `tasks/*` request names the task in `Mcp-Name`.
 */
import type { Call, ClientSetup } from "./channel";
import { McpClientError, McpError } from "./errors";
import { sendModern } from "./modern";
import { answerAll } from "./rounds";
import type { CallToolResult, Task } from "./types";
import { isObject, type Json } from "./wire";

const TERMINAL: readonly Task["status"][] = ["completed", "failed", "cancelled"];

/**
 * How long and how often to poll: at most `maxPolls` `tasks/get`, `pollIntervalMs` apart (default: the task's own).
 *
 * @example
 * await task.finish({ pollIntervalMs: 10, maxPolls: 500 });
 */
export interface PollOptions {
  maxPolls?: number;
  pollIntervalMs?: number;
}

/**
 * A task a tool call created. Its methods poll, answer its questions and cancel it; `history` keeps every status
 * the client saw, in order (the creation first), so a test can assert on the progress the task reported.
 *
 * @example
 * const task = await client.startTask("retag_notebook", { notebook_id });
 * const result = await task.result({ pollIntervalMs: 10 });
 * expect(task.history.map((seen) => seen.status)).toContain("input_required");
 */
export class TaskRun {
  /** The task's id, as `tools/call` returned it. */
  readonly taskId: string;
  /** Every status seen, in order: the creation result, then each `tasks/get`. */
  readonly history: Task[] = [];
  private rounds = 0;

  /** @internal `client.startTask()` (or `callTool`, which runs it to its end) makes one. */
  constructor(
    private readonly setup: ClientSetup,
    /** The tool call that created the task: whose answerers answer its questions, and its name in errors. */
    private readonly call: Call,
    /** The `tools/call` result that created the task (`resultType: "task"`). */
    readonly created: Task,
  ) {
    this.taskId = created.taskId;
    this.history.push(created);
  }

  private send(method: string, params: Json): Promise<Json> {
    return sendModern(
      this.setup,
      method,
      { taskId: this.taskId, ...params },
      { options: {}, layers: this.call.layers, label: `${method} ${this.taskId}` },
    );
  }

  /**
   * One `tasks/get`: the task as it is now (added to `history`).
   *
   * @example
   * expect(await task.get()).toMatchObject({ status: "working" });
   */
  async get(): Promise<Task> {
    const task = (await this.send("tasks/get", {})) as unknown as Task;
    if (task.taskId !== this.taskId)
      throw new McpClientError("protocol", `tasks/get ${this.taskId}: the server answered for task ${String(task.taskId)}`);
    this.history.push(task);
    return task;
  }

  /**
   * Sends answers with `tasks/update` yourself (the polling methods answer questions on their own).
   *
   * @param inputResponses answers by question key, as the task's `inputRequests` named them
   * @example
   * await task.update({ apply: accept({ apply: true, mode: "add" }) });
   */
  async update(inputResponses: Json): Promise<void> {
    await this.send("tasks/update", { inputResponses });
  }

  /**
   * Cancels the task with `tasks/cancel` (its status is `cancelled` at once; a running handler sees its signal abort).
   *
   * @example
   * await task.until((seen) => seen.statusMessage?.startsWith("Scanned") === true);
   * await task.cancel();
   */
  async cancel(): Promise<void> {
    await this.send("tasks/cancel", {});
  }

  /**
   * Polls until `predicate` holds for the task and returns it, answering the task's questions on the way. Fails
   * when the task ends first (completed, failed or cancelled, and the predicate does not hold) or after `maxPolls`.
   *
   * @param predicate what to wait for, given each polled status
   * @param options `maxPolls`, and `pollIntervalMs` to poll faster than the task asks
   * @example
   * const asked = await task.until((seen) => seen.status === "input_required", { pollIntervalMs: 10 });
   */
  async until(predicate: (task: Task) => boolean, options: PollOptions = {}): Promise<Task> {
    const maxPolls = options.maxPolls ?? this.setup.tasks.maxPolls;
    let last: Task = this.history.at(-1)!;
    for (let poll = 1; poll <= maxPolls; poll++) {
      last = await this.get();
      if (predicate(last)) return last;
      if (TERMINAL.includes(last.status)) {
        throw new McpClientError("task", `task ${this.taskId} ended ${last.status}${about(last)} before what the test waited for`);
      }
      if (last.status === "input_required" && isObject(last.inputRequests)) {
        await this.answer(last);
        continue;
      }
      await sleep(options.pollIntervalMs ?? this.setup.tasks.pollIntervalMs ?? last.pollIntervalMs ?? 1_000);
    }
    throw new McpClientError("task", `task ${this.taskId} was still ${last.status}${about(last)} after ${maxPolls} polls`);
  }

  /**
   * Polls until the task is completed, failed or cancelled, answering its questions, and returns that last status.
   *
   * @param options `maxPolls`, and `pollIntervalMs` to poll faster than the task asks
   * @example
   * expect(await task.finish({ pollIntervalMs: 10 })).toMatchObject({ status: "cancelled" });
   */
  finish(options: PollOptions = {}): Promise<Task> {
    return this.until((task) => TERMINAL.includes(task.status), options);
  }

  /**
   * Runs the task to its end and returns the tool's result. A failed task throws `McpError` (its error); a
   * cancelled one throws `McpClientError`. A tool error (`isError`) is a completed task's result.
   *
   * @param options `maxPolls`, and `pollIntervalMs` to poll faster than the task asks
   * @example
   * const result = await task.result({ pollIntervalMs: 10 });
   * expect(result.content[0]?.text).toContain("Retagged");
   */
  async result(options: PollOptions = {}): Promise<CallToolResult> {
    const task = await this.finish(options);
    if (task.status === "completed" && isObject(task.result)) {
      // The result is the CallToolResult the call would have answered on 2026-07-28, where every result carries
      // resultType: a requester decodes it as one, as it decodes a result that came without a task.
      if (task.result.resultType !== "complete") {
        throw new McpClientError(
          "protocol",
          `task ${this.taskId}: its result has resultType ${JSON.stringify(task.result.resultType)}, not "complete" (a 2026-07-28 CallToolResult must carry it)`,
        );
      }
      return task.result as CallToolResult;
    }
    if (task.status === "failed" && isObject(task.error)) {
      const { code, message, data } = task.error;
      throw new McpError("tools/call", Number(code), String(message), data, 200);
    }
    throw new McpClientError("task", `task ${this.taskId} ended ${task.status}${about(task)}`);
  }

  /** Answers one round of the task's questions with `tasks/update`; an unanswerable one cancels the task first. */
  private async answer(task: Task): Promise<void> {
    const maxRounds = this.call.options.maxRounds ?? this.setup.maxRounds;
    try {
      if (++this.rounds > maxRounds) {
        throw new McpClientError(
          "rounds",
          `task ${this.taskId}: still asking after ${maxRounds} rounds of answers; pass a higher maxRounds if the tool really asks that often`,
        );
      }
      const label = `task ${this.taskId} (${this.call.label})`;
      const answers = await answerAll(task.inputRequests as Json, { ...this.call, label }, this.rounds, task as Json);
      await this.update(answers);
    } catch (error) {
      // Why cancel: the task would wait for answers until its input timeout, holding one of the caller's task slots.
      await this.cancel().catch(() => {});
      throw error;
    }
  }
}

const about = (task: Task) => (task.statusMessage ? ` ("${task.statusMessage}")` : "");

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
