/**
 * What the server sends about tasks, read with a real requester's idea of the extension: the wire schemas of
 * @modelcontextprotocol/ext-tasks 0.2.2 (generated from the extension's schema) for the CreateTaskResult, tasks/get
 * in every status, the tasks/update and tasks/cancel acknowledgements, the result a completed task carries, and
 * notifications/tasks. the template's test/e2e/ext-tasks.test.ts drives the same requester end to end.
 */
import {
  CallToolResultV2Schema,
  CancelTaskResultV2Schema,
  CreateTaskResultV2Schema,
  GetTaskResultV2Schema,
  TaskStatusNotificationV2Schema,
  UpdateTaskResultV2Schema,
} from "@modelcontextprotocol/ext-tasks/core/v2";
import { afterEach, describe, expect, it } from "vitest";
import { type Json, readMessage } from "../helpers/rpc";
import { sseReader } from "../helpers/sse";
import { settle, TASK_CLIENT, tasksServer } from "./fixtures";

const server = tasksServer("tasks-requester-schemas");
const readers: ReturnType<typeof sseReader>[] = [];
afterEach(async () => {
  await Promise.all(readers.splice(0).map((reader) => reader.cancel()));
});

const options = (taskId: string) => ({ capabilities: TASK_CLIENT, headers: { "mcp-name": taskId } });

/** The issues ext-tasks finds in `value` (none: it reads it as the server meant it). */
function issues(schema: { safeParse(value: unknown): { success: boolean; error?: { issues: unknown[] } } }, value: unknown) {
  return schema.safeParse(value).error?.issues ?? [];
}

async function start(name: string, args: Json = {}) {
  const created = await server.call("tools/call", { name, arguments: args }, { capabilities: TASK_CLIENT });
  expect(issues(CreateTaskResultV2Schema, created)).toEqual([]);
  return created.taskId as string;
}

describe("the server's task messages, read with ext-tasks' schemas", () => {
  it("a completed task: tasks/get, and its result as a 2026-07-28 CallToolResult", async () => {
    const taskId = await start("echo_task", { text: "read me" });
    const task = await settle(server, taskId);
    expect(task.status).toBe("completed");
    expect(issues(GetTaskResultV2Schema, task)).toEqual([]);
    expect(issues(CallToolResultV2Schema, task.result)).toEqual([]);
  });

  it("a tool error (completed, isError): its result is a 2026-07-28 CallToolResult too", async () => {
    const task = await settle(server, await start("tool_error_task"));
    expect(task).toMatchObject({ status: "completed", result: { isError: true } });
    expect(issues(CallToolResultV2Schema, task.result)).toEqual([]);
  });

  it("a task waiting for input, the tasks/update acknowledgement, and the task after it", async () => {
    const taskId = await start("ask_in_task");
    const waiting = await settle(server, taskId, (task) => task.status !== "working");
    expect(waiting.status).toBe("input_required");
    expect(issues(GetTaskResultV2Schema, waiting)).toEqual([]);
    const ack = await server.call(
      "tasks/update",
      { taskId, inputResponses: { color: { action: "accept", content: { color: "teal" } } } },
      options(taskId),
    );
    expect(issues(UpdateTaskResultV2Schema, ack)).toEqual([]);
    expect(issues(GetTaskResultV2Schema, await settle(server, taskId))).toEqual([]);
  });

  it("a cancelled task and the tasks/cancel acknowledgement", async () => {
    const taskId = await start("held_task");
    const ack = await server.call("tasks/cancel", { taskId }, options(taskId));
    expect(issues(CancelTaskResultV2Schema, ack)).toEqual([]);
    const task = await settle(server, taskId);
    expect(task.status).toBe("cancelled");
    expect(issues(GetTaskResultV2Schema, task)).toEqual([]);
  });

  it("a failed task", async () => {
    const task = await settle(server, await start("huge_result_task"));
    expect(task.status).toBe("failed");
    expect(issues(GetTaskResultV2Schema, task)).toEqual([]);
  });

  it("notifications/tasks, each status change of a task a listener follows", async () => {
    const taskId = await start("ask_in_task");
    await settle(server, taskId, (task) => task.status === "input_required");
    const reader = sseReader(
      await server.send("subscriptions/listen", { notifications: { taskIds: [taskId] } }, { id: "L", capabilities: TASK_CLIENT }),
    );
    readers.push(reader);
    expect(await reader.message()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
    await server.call(
      "tasks/update",
      { taskId, inputResponses: { color: { action: "accept", content: { color: "red" } } } },
      options(taskId),
    );
    for (const status of ["working", "completed"]) {
      const notification = await reader.message();
      expect(notification).toMatchObject({ method: "notifications/tasks", params: { status } });
      expect(issues(TaskStatusNotificationV2Schema, notification)).toEqual([]);
      if (status === "completed") expect(issues(CallToolResultV2Schema, (notification as { params: Json }).params.result)).toEqual([]);
    }
  });

  it("(a known difference) a completed task's notification over limits.tasks.maxNotificationBytes goes without its result: ext-tasks refuses it and reads tasks/get", async () => {
    const small = tasksServer("tasks-requester-small-notifications", { maxNotificationBytes: 1_024 });
    const created = await small.call("tools/call", { name: "hashtag_in_task", arguments: {} }, { capabilities: TASK_CLIENT });
    const taskId = created.taskId as string;
    await settle(small, taskId, (task) => task.status === "input_required");
    const reader = sseReader(
      await small.send("subscriptions/listen", { notifications: { taskIds: [taskId] } }, { id: "L", capabilities: TASK_CLIENT }),
    );
    readers.push(reader);
    await reader.message(); // acknowledgement
    const tag = `#${"x".repeat(2_000)}`;
    await small.call("tasks/update", { taskId, inputResponses: { tag: { action: "accept", content: { tag } } } }, options(taskId));
    expect(await reader.message()).toMatchObject({ method: "notifications/tasks", params: { status: "working" } });
    const completed = (await reader.message()) as { params: Json };
    expect(completed.params).toMatchObject({ taskId, status: "completed" });
    expect(completed.params).not.toHaveProperty("result");
    // The extension wants every notification to be the DetailedTask tasks/get would answer; ext-tasks' schema says so
    // (it reports the notification to its onError and keeps polling), and tasks/get has the result.
    expect(issues(TaskStatusNotificationV2Schema, completed)).not.toEqual([]);
    expect(issues(GetTaskResultV2Schema, await settle(small, taskId))).toEqual([]);
  });

  it("a task-capable request for an unknown task is -32602, as ext-tasks expects for tasks/get", async () => {
    const message = await readMessage(
      await server.send("tasks/get", { taskId: "AAAAAAAAAAAAAAAAAAAAAA" }, options("AAAAAAAAAAAAAAAAAAAAAA")),
    );
    expect(message.error).toMatchObject({ code: -32602 });
  });
});
