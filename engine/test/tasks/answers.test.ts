/**
 * One way to run a handler (issue: the ask loop, the answer check and cancellation were three copies): a task's
 * answers are checked like a multi round-trip retry's, at `tasks/update`, against the form the client was shown;
 * an answer the handler's own schema refuses is asked again, never a failed task; `tasks/cancel` ends the run at its
 * next `ctx.checkpoint()`, and the task keeps what the handler said about how far it got.
 */
import { describe, expect, it } from "vitest";
import { type Json, readMessage } from "../helpers/rpc";
import { settle, TASK_CLIENT, taskRequest, tasksServer, writes } from "./fixtures";

const server = tasksServer("tasks-answers");

async function taskAsking(name: string, args: Record<string, unknown> = {}) {
  const created = await server.call("tools/call", { name, arguments: args }, { capabilities: TASK_CLIENT, id: `${name}-${Math.random()}` });
  expect(created.resultType).toBe("task");
  const taskId = created.taskId as string;
  const waiting = await settle(server, taskId, (task) => task.status !== "working");
  return { taskId, waiting };
}

const update = (taskId: string, inputResponses: Record<string, unknown>) =>
  taskRequest(server, "tasks/update", { taskId, inputResponses }).then(readMessage);

describe("answers to a task's questions", () => {
  it("refuses a mistyped form answer with -32602 at tasks/update, and the task keeps its question", async () => {
    const { taskId, waiting } = await taskAsking("choose_in_task");
    expect(waiting.status).toBe("input_required");
    for (const content of [
      { apply: "yes", mode: "sideways" },
      { apply: true, mode: "sideways" },
      { apply: true },
      { apply: 1, mode: "add" },
    ]) {
      const refused = await update(taskId, { apply: { action: "accept", content } });
      expect(refused.error, JSON.stringify(content)).toMatchObject({
        code: -32602,
        message: expect.stringMatching(/^Invalid inputResponses: apply\.content\./),
      });
      const still = await settle(server, taskId, () => true);
      expect(still).toMatchObject({ status: "input_required", inputRequests: waiting.inputRequests });
    }
    expect((await update(taskId, { apply: { action: "accept", content: { apply: true, mode: "replace" } } })).result).toBeDefined();
    expect(await settle(server, taskId)).toMatchObject({ status: "completed", result: { content: [{ text: "apply=true mode=replace" }] } });
  });

  it("asks again under a key the task never used, saying why, when the handler's own schema refuses an answer the form's schema allowed", async () => {
    const { taskId, waiting } = await taskAsking("hashtag_in_task");
    expect(Object.keys(waiting.inputRequests as Json)).toEqual(["tag"]);
    expect((await update(taskId, { tag: { action: "accept", content: { tag: "plain" } } })).result).toBeDefined();
    const again = await settle(server, taskId, (task) => task.status === "input_required" && typeof task.statusMessage === "string");
    // SEP-2663: a key is unique over the task's life; the same question comes under a fresh one.
    expect(again.inputRequests).toEqual({ "tag#2": (waiting.inputRequests as Json).tag });
    expect(again.statusMessage).toMatch(/tag\.content\.tag: must start with #: answer again/);
    // An answer under the key already answered is ignored: the question still waits under its new key.
    expect((await update(taskId, { tag: { action: "accept", content: { tag: "#late" } } })).result).toBeDefined();
    expect(await settle(server, taskId, () => true)).toMatchObject({
      status: "input_required",
      inputRequests: { "tag#2": expect.any(Object) },
    });
    // Refused again: a third key, never one used before.
    expect((await update(taskId, { "tag#2": { action: "accept", content: { tag: "still plain" } } })).result).toBeDefined();
    const third = await settle(server, taskId, (task) => (task.inputRequests as Json | undefined)?.["tag#3"] !== undefined);
    expect(Object.keys(third.inputRequests as Json)).toEqual(["tag#3"]);
    expect((await update(taskId, { "tag#3": { action: "accept", content: { tag: "#ok" } } })).result).toBeDefined();
    expect(await settle(server, taskId)).toMatchObject({ status: "completed", result: { content: [{ text: "tag #ok" }] } });
  });
});

describe("cancelling a task", () => {
  it("ends the run at its next ctx.checkpoint(): nothing is written after tasks/cancel is acknowledged", async () => {
    const created = await server.call(
      "tools/call",
      { name: "writer_task", arguments: { steps: 100 } },
      { capabilities: TASK_CLIENT, id: "writer-1" },
    );
    const taskId = created.taskId as string;
    await settle(server, taskId, (task) => /Wrote [3-9]/.test(String(task.statusMessage)));
    await taskRequest(server, "tasks/cancel", { taskId }).then(readMessage);
    const atCancel = writes.filter((id) => id === "writer-1").length;
    const cancelled = await settle(server, taskId);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(writes.filter((id) => id === "writer-1").length).toBe(atCancel);
    // How far it got stays visible.
    expect(cancelled).toMatchObject({
      status: "cancelled",
      statusMessage: `Cancelled by the client (last reported: Wrote ${atCancel} of 100)`,
    });
  });

  it("keeps what a handler that watches its signal reports when it stops", async () => {
    const created = await server.call(
      "tools/call",
      { name: "writer_task", arguments: { steps: 100, report: true } },
      { capabilities: TASK_CLIENT, id: "writer-2" },
    );
    const taskId = created.taskId as string;
    await settle(server, taskId, (task) => /Wrote [2-9]/.test(String(task.statusMessage)));
    await taskRequest(server, "tasks/cancel", { taskId }).then(readMessage);
    const done = await settle(server, taskId, (task) => String(task.statusMessage).includes("stopped after"));
    const written = writes.filter((id) => id === "writer-2").length;
    expect(done).toMatchObject({ status: "cancelled", statusMessage: `Cancelled by the client: stopped after ${written} writes` });
  });
});
