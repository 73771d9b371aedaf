/**
 * The Tasks extension driven by a real requester: @modelcontextprotocol/ext-tasks 0.2.2 on the official client
 * (./ext-tasks-session.ts) runs the example's retag_notebook as a task through `wrangler dev` on 127.0.0.1: its
 * progress, its question mid-way answered by the requester's elicitation handler, its result, and a second run
 * cancelled mid-way, after which nothing runs on and nothing counts against the caller's quota.
 *
 * A Worker of its own (./tail/start.ts): its task quota is this file's alone, and its tail events show when a task's
 * run (a TaskRunner alarm invocation) has ended, so no test waits for a time to pass.
 */
import type { ResolvedInputExchangeContext, TaskExecutionEvent, TaskView, ToolExecution } from "@modelcontextprotocol/ext-tasks/client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { appBinds } from "./app-bindings";
import { connectRequester, type Requester } from "./ext-tasks-session";
import * as notebooks from "./notebooks";
import { startTracedTemplate, type TracedTemplate } from "./tail/start";

/** How the requester's user answers retag_notebook's question, by the `applicationContext` of the call. */
type Choice = "add" | "replace" | "hold";

interface Asked {
  message: string;
  context: ResolvedInputExchangeContext<string>;
  at: number;
}

describe.runIf(appBinds("TASKS"))("ext-tasks 0.2.2 with the official client, against wrangler dev", () => {
  let dev: TracedTemplate;
  beforeAll(async () => {
    dev = await startTracedTemplate();
  }, 60_000);
  afterAll(async () => {
    await dev?.stop();
  });

  const open: Requester[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((requester) => requester.close()));
  });

  const asked: Asked[] = [];
  async function requester(): Promise<Requester> {
    const connected = await connectRequester(dev.url, (params, context) => {
      asked.push({ message: String(params.message), context, at: Date.now() });
      const choice = context.applicationContext as Choice;
      // "hold": the user never answers; the question stays open until the task ends (its signal aborts).
      if (choice === "hold")
        return new Promise((_, reject) => context.signal?.addEventListener("abort", () => reject(context.signal!.reason)));
      return Promise.resolve({ action: "accept", content: { apply: true, mode: choice } });
    });
    open.push(connected);
    return connected;
  }

  const callOf = (tasks: Requester) => (name: string, args: Record<string, unknown>) => tasks.client.callTool({ name, arguments: args });
  const notebookOf = (tasks: Requester, count: number) => notebooks.notebookOf(callOf(tasks), count);
  const untouched = (tasks: Requester, notebook: string) => notebooks.untouched(callOf(tasks), notebook);

  /** Task runs that have ended: TaskRunner alarm invocations (a tail consumer reports an invocation once it is over). */
  const endedRuns = (scheduledFrom: number) =>
    dev.events.filter(({ event }) => {
      const info = event.info as { type?: string; scheduledTime?: string } | undefined;
      return (
        event.type === "onset" &&
        event.entrypoint === "TaskRunner" &&
        info?.type === "alarm" &&
        Date.parse(info.scheduledTime!) >= scheduledFrom
      );
    }).length;

  /**
   * The longest pause retag_notebook takes between batches (its batch_delay_ms allows 5 s). A pause ends at once when
   * the call is cancelled, so a long one costs a cancelled run nothing; what it gives the test is time to cancel in.
   */
  const LONGEST_PAUSE_MS = 5_000;

  const retag = (tasks: Requester, notebook: string, choice: Choice, batchDelayMs: number) =>
    tasks.session.callTool("retag_notebook", { notebook_id: notebook, batch_delay_ms: batchDelayMs }, { applicationContext: choice });

  it("runs retag_notebook as a task: progress, the question answered by the elicitation handler, the result", async () => {
    const tasks = await requester();
    const notebook = await notebookOf(tasks, 30);
    asked.length = 0;
    // Two seconds between its two batches: the task stays "working" after the answer through at least one of the
    // requester's polls (once a second), which the statuses below expect to see.
    const execution = await retag(tasks, notebook, "add", 2_000);
    expect(execution.kind).toBe("task");
    const seen: TaskView[] = [];
    const { outcome } = await execution.settle({
      onEvent: (event: TaskExecutionEvent<any>) => {
        if (event.type === "task") seen.push(event.task);
      },
    });

    expect(outcome).toMatchObject({ status: "completed", task: { status: "completed" } });
    const result = (outcome as { result: any }).result;
    expect(result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: expect.any(String) }] });
    expect(result.content[0].text).toBe("Retagged the notebook (add): 30 of 30 notes got new tags.");
    expect(await untouched(tasks, notebook)).toBe(30); // "add" keeps the old tags

    // The one question came from the task (tasks/get inputRequests), and went back with tasks/update.
    const taskId = execution.kind === "task" ? execution.handle.taskId : "";
    expect(asked).toEqual([
      {
        message: '30 of 30 notes would get new tags. Apply them? "add" keeps existing tags; "replace" removes them.',
        context: expect.objectContaining({ scope: "task", delivery: "task-update", taskId, inputId: "apply" }),
        at: expect.any(Number),
      },
    ]);
    const updates = tasks.raw.sent.filter((request) => request.method === "tasks/update");
    expect(updates).toEqual([
      expect.objectContaining({
        params: expect.objectContaining({ taskId, inputResponses: { apply: { action: "accept", content: { apply: true, mode: "add" } } } }),
      }),
    ]);

    // Progress: the statuses in the extension's order, each with what the handler last reported.
    const statuses = seen.map((task) => task.status).filter((status, index, all) => status !== all[index - 1]);
    expect(statuses).toEqual(["working", "input_required", "working", "completed"]);
    expect(seen.find((task) => task.status === "input_required")?.statusMessage).toBe("Scanned 30 of 30 notes");
    expect(seen.at(-1)?.statusMessage).toBe("Retagged 30 of 30 notes");
    expect(tasks.errors).toEqual([]);
  }, 60_000);

  it("cancels a second run mid-way: the task ends cancelled and its run stops where it was", async () => {
    const tasks = await requester();
    const notebook = await notebookOf(tasks, 60);
    asked.length = 0;
    // The tool pauses as long as it can after each batch: the cancel, sent once a batch is seen applied (the requester
    // polls once a second), has the rest of that pause and the whole next one (10 s) to land before the last batch.
    // (The scan pauses as long between its batches: 10 s before the question, hence this test's longer timeout.)
    const execution = await retag(tasks, notebook, "replace", LONGEST_PAUSE_MS);
    expect(execution.kind).toBe("task");
    // Cancelled once the first batch of 25 is retagged: two batches (35 notes) are still to go.
    for await (const event of execution.updates()) {
      if (event.type === "outcome") throw new Error(`the task ended ${event.outcome.status} before it was cancelled`);
      if (event.task.status === "working" && /^Retagged (25|50) of 60 notes$/.test(event.task.statusMessage ?? "")) break;
    }
    await execution.cancel();
    expect(await execution.result()).toMatchObject({ status: "cancelled" });

    const taskId = (execution as Extract<ToolExecution<unknown, string>, { kind: "task" }>).handle.taskId;
    const after = await tasks.session.task(taskId).snapshot();
    expect(after).toMatchObject({ status: "cancelled", statusMessage: expect.stringMatching(/^Cancelled by the client/) });

    // Nothing left running: the run that was retagging (the alarm the answer scheduled) has ended...
    const answeredAt = asked[0]!.at;
    await expect.poll(() => endedRuns(answeredAt), { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
    // ...before the last batch: the notes it had not reached keep their old tag.
    const left = await untouched(tasks, notebook);
    expect(left).toBeGreaterThanOrEqual(10);
    expect(left).toBeLessThanOrEqual(35);
    expect((await tasks.session.task(taskId).snapshot()).status).toBe("cancelled");
    expect(tasks.errors).toEqual([]);
  }, 90_000);

  it("counts nothing cancelled or finished against the caller's quota: 10 more tasks start, the 11th is refused", async () => {
    const tasks = await requester();
    const notebook = await notebookOf(tasks, 1);
    // Ten tasks that wait for an answer that never comes: each holds one of the caller's 10 places.
    const held: ToolExecution<any, string>[] = [];
    for (let index = 0; index < 10; index++) held.push(await retag(tasks, notebook, "hold", 0));
    expect(held.map((execution) => execution.kind)).toEqual(Array(10).fill("task"));
    const refused = await retag(tasks, notebook, "hold", 0);
    expect(refused.kind).toBe("immediate");
    expect(await refused.result()).toMatchObject({
      status: "completed",
      result: { isError: true, content: [{ text: expect.stringContaining("Too many tasks in progress (at most 10 per caller)") }] },
    });
    for (const execution of held) await execution.cancel();
    expect((await Promise.all(held.map((execution) => execution.result()))).map((outcome) => outcome.status)).toEqual(
      Array(10).fill("cancelled"),
    );
    expect(tasks.errors).toEqual([]);
  }, 60_000);
});
