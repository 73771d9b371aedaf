/**
 * The Tasks extension (SEP-2663) through the real Worker and the real TASKS Durable Objects: creation, polling,
 * completion, failure, cancellation, questions inside a task, and questions asked before one.
 */
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { readMessage } from "../helpers/rpc";
import { sseReader } from "../helpers/sse";
import { cancelTask, settle, TASK_CLIENT, TASKS_EXTENSION, taskRequest, tasksServer } from "./fixtures";

const server = tasksServer();

async function createTask(name: string, args: Record<string, unknown> = {}) {
  const result = await server.call("tools/call", { name, arguments: args }, { capabilities: TASK_CLIENT });
  expect(result.resultType).toBe("task");
  return result as Record<string, any>;
}

describe("task creation", () => {
  it("server/discover advertises the extension under capabilities.extensions", async () => {
    const { capabilities } = await server.call("server/discover");
    expect((capabilities as any).extensions).toEqual({ [TASKS_EXTENSION]: {} });
  });

  it("a task-capable client gets a flat CreateTaskResult that tasks/get resolves at once", async () => {
    const created = await createTask("held_task", {});
    expect(created).toMatchObject({ status: "working", ttlMs: expect.any(Number), pollIntervalMs: expect.any(Number) });
    // `<kid>.<nonce>.<tag>`: signed with the state key ("test" in vitest.config.ts), 128 random bits, a 128-bit tag.
    expect(created.taskId).toMatch(/^test\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{22}$/);
    for (const field of ["result", "error", "inputRequests", "requestState", "task"]) expect(created).not.toHaveProperty(field);
    const task = await server.call(
      "tasks/get",
      { taskId: created.taskId },
      { capabilities: TASK_CLIENT, headers: { "mcp-name": created.taskId } },
    );
    expect(task).toMatchObject({ resultType: "complete", taskId: created.taskId, status: "working" });
    // ctx.progress() in the running task becomes its statusMessage.
    expect(await settle(server, created.taskId, (polled) => polled.statusMessage === "Held")).toMatchObject({ status: "working" });
    await cancelTask(server, created.taskId);
  });

  it("an optional task tool runs synchronously for a client without the extension", async () => {
    const result = await server.call("tools/call", { name: "echo_task", arguments: { text: "hi" } }, { capabilities: {} });
    expect(result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "echo: hi" }] });
    expect(result).not.toHaveProperty("taskId");
  });

  it("a task-only tool refuses a client without the extension with -32021 naming it", async () => {
    const message = await readMessage(await server.send("tools/call", { name: "held_task", arguments: {} }));
    expect(message.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } } });
  });

  it("task ids differ on every call", async () => {
    const [a, b] = await Promise.all([createTask("echo_task", { text: "a" }), createTask("echo_task", { text: "b" })]);
    expect(a.taskId).not.toBe(b.taskId);
  });
});

describe("task outcomes", () => {
  it("a finished task is completed with the tool result inlined, as the 2026-07-28 call would have answered it (resultType complete)", async () => {
    const { taskId } = await createTask("echo_task", { text: "done" });
    const task = await settle(server, taskId);
    expect(task).toMatchObject({ status: "completed" });
    // The CallToolResult of a 2026-07-28 request: every Result of that revision carries resultType.
    expect(task.result).toEqual({ resultType: "complete", content: [{ type: "text", text: "echo: done" }] });
    expect(task).not.toHaveProperty("error");
  });

  it("a tool error is completed with isError, not failed", async () => {
    const { taskId } = await createTask("tool_error_task");
    expect(await settle(server, taskId)).toMatchObject({ status: "completed", result: { resultType: "complete", isError: true } });
  });

  it("a result over the size limit fails the task with a clear -32603", async () => {
    const { taskId } = await createTask("huge_result_task");
    const task = await settle(server, taskId);
    expect(task).toMatchObject({ status: "failed", error: { code: -32603, message: expect.stringContaining("1000000 bytes") } });
    expect(task).not.toHaveProperty("result");
  });

  it("a handler that checkpoints every step completes", async () => {
    const { taskId } = await createTask("sliced_task", { to: 3 });
    const task = await settle(server, taskId);
    expect(task.result).toMatchObject({ content: [{ text: expect.stringMatching(/^counted to 3 in \d+ run\(s\)$/) }] });
  });
});

describe("durability", () => {
  it("a run that died with its isolate resumes from its last checkpoint when the watchdog alarm fires", async () => {
    const { taskId } = await createTask("sliced_task", { to: 5 });
    await settle(server, taskId);
    const stub = env.TASKS.getByName(taskId);
    // The record as a run that died after its third checkpoint left it: working, with the state it saved.
    await runInDurableObject(stub, (_instance, state) => {
      const record = state.storage.kv.get<Record<string, unknown>>("task")!;
      state.storage.kv.put("task", { ...record, status: "working", result: undefined, state: { step: 3, runs: 1 } });
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await settle(server, taskId)).toMatchObject({
      status: "completed",
      result: { content: [{ text: "counted to 5 in 2 run(s)" }] },
    });
  });
});

describe("expiry", () => {
  it("a task past its ttlMs is deleted with everything it held, and its id is then unknown", async () => {
    const { taskId } = await createTask("echo_task", { text: "old" });
    await settle(server, taskId);
    const stub = env.TASKS.getByName(taskId);
    await runInDurableObject(stub, (_instance, state) => {
      const record = state.storage.kv.get<Record<string, number>>("task")!;
      state.storage.kv.put("task", { ...record, createdAt: Date.now() - record.ttlMs! - 1 });
    });
    await runDurableObjectAlarm(stub);
    const left = await runInDurableObject(stub, async (_instance, state) => ({
      keys: [...state.storage.kv.list()].length,
      alarm: await state.storage.getAlarm(),
    }));
    expect(left).toEqual({ keys: 0, alarm: null });
    const message = await readMessage(await taskRequest(server, "tasks/get", { taskId }));
    expect(message.error).toMatchObject({ code: -32602 });
  });
});

describe("duration", () => {
  it("a task still working when its ttlMs elapses is stopped and deleted, and its id is then unknown", async () => {
    const { taskId } = await createTask("held_task", {});
    await settle(server, taskId, (polled) => polled.statusMessage === "Held");
    const stub = env.TASKS.getByName(taskId);
    await runInDurableObject(stub, (_instance, state) => {
      const record = state.storage.kv.get<Record<string, number>>("task")!;
      state.storage.kv.put("task", { ...record, createdAt: Date.now() - record.ttlMs! - 1 });
    });
    const message = await readMessage(await taskRequest(server, "tasks/get", { taskId }));
    expect(message.error).toMatchObject({ code: -32602, message: "Failed to retrieve task: Task not found" });
    const left = await runInDurableObject(stub, async (_instance, state) => [...state.storage.kv.list()].length);
    expect(left).toBe(0);
  });
});

describe("cancellation", () => {
  it("tasks/cancel acks empty, the task is cancelled and its handler sees the signal", async () => {
    const { taskId } = await createTask("held_task", {});
    const ack = await server.call("tasks/cancel", { taskId }, { capabilities: TASK_CLIENT, headers: { "mcp-name": taskId } });
    expect(ack).toEqual({ resultType: "complete", _meta: expect.any(Object) });
    const task = await settle(server, taskId);
    expect(task).toMatchObject({ status: "cancelled" });
    expect(task).not.toHaveProperty("result");
  });

  it("tasks/cancel on a finished task acks and changes nothing", async () => {
    const { taskId } = await createTask("echo_task", { text: "x" });
    await settle(server, taskId);
    await server.call("tasks/cancel", { taskId }, { capabilities: TASK_CLIENT, headers: { "mcp-name": taskId } });
    expect((await settle(server, taskId)).status).toBe("completed");
  });
});

describe("questions", () => {
  it("ctx.ask inside a task moves it to input_required; tasks/update resumes it to completed", async () => {
    const { taskId } = await createTask("ask_in_task");
    const waiting = await settle(server, taskId, (task) => task.status !== "working");
    expect(waiting).toMatchObject({ status: "input_required", inputRequests: { color: { method: "elicitation/create" } } });
    const ack = await server.call(
      "tasks/update",
      { taskId, inputResponses: { color: { action: "accept", content: { color: "teal" } }, unknown: { action: "accept" } } },
      { capabilities: TASK_CLIENT, headers: { "mcp-name": taskId } },
    );
    expect(ack).toMatchObject({ resultType: "complete" });
    expect(await settle(server, taskId)).toMatchObject({ status: "completed", result: { content: [{ text: "color: teal" }] } });
  });

  it("a malformed answer is refused with -32602 and the task keeps waiting", async () => {
    const { taskId } = await createTask("ask_in_task");
    await settle(server, taskId, (task) => task.status !== "working");
    const message = await readMessage(
      await taskRequest(server, "tasks/update", { taskId, inputResponses: { color: { action: "maybe" } } }),
    );
    expect(message.error).toMatchObject({ code: -32602, message: expect.stringContaining("color") });
    expect((await settle(server, taskId, () => true)).status).toBe("input_required");
  });

  it("questions before the first progress are multi round-trip rounds; the task is created on the last one", async () => {
    const first = await server.call("tools/call", { name: "ask_then_task", arguments: {} }, { capabilities: TASK_CLIENT });
    expect(first).toMatchObject({ resultType: "input_required", inputRequests: { who: expect.any(Object) } });
    expect(first).not.toHaveProperty("taskId");
    const second = await server.call(
      "tools/call",
      {
        name: "ask_then_task",
        arguments: {},
        inputResponses: { who: { action: "accept", content: { name: "Ada" } } },
        requestState: first.requestState,
      },
      { capabilities: TASK_CLIENT },
    );
    expect(second.resultType).toBe("task");
    expect(second).not.toHaveProperty("requestState");
    expect(await settle(server, second.taskId as string)).toMatchObject({ status: "completed", result: { content: [{ text: "hi Ada" }] } });
  });
});

describe("unanswered questions", () => {
  const readers: ReturnType<typeof sseReader>[] = [];
  afterEach(async () => {
    await Promise.all(readers.splice(0).map((reader) => reader.cancel()));
  });
  const answer = { color: { action: "accept", content: { color: "red" } } };

  async function waitingTask(on = server) {
    const created = await on.call("tools/call", { name: "ask_in_task", arguments: {} }, { capabilities: TASK_CLIENT });
    const taskId = created.taskId as string;
    expect(await settle(on, taskId, (task) => task.status !== "working")).toMatchObject({ status: "input_required" });
    return taskId;
  }

  it("a question left unanswered for the input timeout (5 minutes by default) fails the task, and a listener following it hears so", async () => {
    const taskId = await waitingTask();
    const stub = env.TASKS.getByName(taskId);
    // The alarm is set for the question's deadline, well before the task's ttlMs.
    const scheduled = await runInDurableObject(stub, async (_instance, state) => ({
      alarm: await state.storage.getAlarm(),
      record: state.storage.kv.get<{ inputDeadline: number; lastUpdatedAt: number }>("task")!,
    }));
    expect(scheduled.alarm).toBe(scheduled.record.inputDeadline);
    expect(scheduled.record.inputDeadline).toBe(scheduled.record.lastUpdatedAt + 5 * 60_000);

    const reader = sseReader(
      await server.send("subscriptions/listen", { notifications: { taskIds: [taskId] } }, { id: "L", capabilities: TASK_CLIENT }),
    );
    readers.push(reader);
    expect(await reader.message()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
    // Five minutes later, as the alarm sees it: the deadline is moved into the past and the alarm fired.
    await runInDurableObject(stub, (_instance, state) => {
      const record = state.storage.kv.get<Record<string, number>>("task")!;
      state.storage.kv.put("task", { ...record, inputDeadline: Date.now() - 1 });
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);

    const failed = {
      status: "failed",
      error: { code: -32603, message: expect.stringContaining("The question went unanswered within 5 minutes") },
    };
    expect(await reader.message()).toMatchObject({ method: "notifications/tasks", params: { taskId, ...failed } });
    const task = await settle(server, taskId, () => true);
    expect(task).toMatchObject(failed);
    expect(task).not.toHaveProperty("inputRequests");
  });

  it("with limits.tasks.inputTimeoutMs = 1000 the task fails a second after asking, and an answer after that is refused as too late", async () => {
    const quick = tasksServer("tasks-quick-input", { inputTimeoutMs: 1_000 });
    const taskId = await waitingTask(quick);
    // Bounded polling (settle), no fixed sleep: the alarm set for the deadline, or the first read after it, fails the task.
    expect(await settle(quick, taskId)).toMatchObject({
      status: "failed",
      statusMessage: expect.stringContaining("went unanswered within 1 second,"),
      error: { code: -32603, message: expect.stringContaining("The question went unanswered within 1 second,") },
    });
    const late = await readMessage(await taskRequest(quick, "tasks/update", { taskId, inputResponses: answer }));
    expect(late.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^Too late for answers\. The question went unanswered/),
    });
    expect((await settle(quick, taskId, () => true)).status).toBe("failed");
  });

  it("a task read after its question's deadline is already failed, even before its alarm fires", async () => {
    const taskId = await waitingTask();
    const stub = env.TASKS.getByName(taskId);
    await runInDurableObject(stub, (_instance, state) => {
      const record = state.storage.kv.get<Record<string, number>>("task")!;
      state.storage.kv.put("task", { ...record, inputDeadline: Date.now() - 1 });
    });
    expect(await settle(server, taskId, () => true)).toMatchObject({ status: "failed" });
  });

  it("an answer in time still resumes the task (the deadline is dropped once every question is answered)", async () => {
    const taskId = await waitingTask();
    await server.call("tasks/update", { taskId, inputResponses: answer }, { capabilities: TASK_CLIENT, headers: { "mcp-name": taskId } });
    expect(await settle(server, taskId)).toMatchObject({ status: "completed", result: { content: [{ text: "color: red" }] } });
    const left = await runInDurableObject(
      env.TASKS.getByName(taskId),
      (_instance, state) => state.storage.kv.get<Record<string, unknown>>("task")!,
    );
    expect(left).not.toHaveProperty("inputDeadline");
  });
});
