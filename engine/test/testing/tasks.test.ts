/**
 * The test client and the Tasks extension, against the task tools of the engine's task tests (real TASKS Durable
 * Objects): a task run to its result, its questions answered through tasks/update by the same handlers and scripts,
 * Mcp-Name on every tasks/* request, a question nothing answers (the task is cancelled), cancellation, a failed task,
 * bounded polling, and task notifications on a listener.
 */
import { describe, expect, it } from "vitest";
import { accept, connect, McpClientError, McpError, type Question } from "../../src/testing";
import { tasksServer } from "../tasks/fixtures";
import { recording } from "./recording";

const server = tasksServer("testing-client").fetch;
/** Tasks here finish in milliseconds; polling at their own interval (1 s) would only slow the tests. */
const FAST = { tasks: { pollIntervalMs: 10 } };

describe("the test client and tasks", () => {
  it("runs a task to completion when a tool call creates one: callTool returns the tool's result", async () => {
    const client = await connect(server, FAST);
    expect(await client.callTool("echo_task", { text: "hi" })).toMatchObject({ content: [{ type: "text", text: "echo: hi" }] });
  });

  it("names the task in Mcp-Name on every tasks/* request, and keeps every status it saw", async () => {
    const wire = recording(server);
    const client = await connect(wire.fetch, FAST);
    const task = await client.startTask("echo_task", { text: "seen" });
    expect(task.created).toMatchObject({ resultType: "task", taskId: task.taskId, status: "working" });
    expect((await task.result()).content[0]!.text).toBe("echo: seen");
    const polls = wire.sent.filter((request) => String(request.body?.method).startsWith("tasks/"));
    expect(polls.length).toBeGreaterThan(0);
    for (const poll of polls) {
      expect(poll.headers).toMatchObject({ "mcp-method": poll.body!.method, "mcp-name": task.taskId });
      expect(poll.body!.params.taskId).toBe(task.taskId);
    }
    expect(task.history[0]).toBe(task.created);
    expect(task.history.at(-1)).toMatchObject({ status: "completed", result: { content: [{ text: "echo: seen" }] } });
  });

  it("answers a question asked inside the task through tasks/update, with the same handlers, which see the waiting task", async () => {
    const wire = recording(server);
    const asked: Question[] = [];
    const client = await connect(wire.fetch, {
      ...FAST,
      onElicit: (_params, question) => {
        asked.push(question);
        return accept({ color: "teal" });
      },
    });
    expect((await client.callTool("ask_in_task")).content[0]!.text).toBe("color: teal");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      key: "color",
      method: "elicitation/create",
      params: { message: "Favourite color?" },
      round: 1,
      task: { status: "input_required", inputRequests: { color: { method: "elicitation/create" } } },
    });
    expect(asked[0]!.asker).toMatch(/^task .+ \(tools\/call ask_in_task\)$/);
    expect(wire.posted("tasks/update")[0]!.body!.params).toMatchObject({
      inputResponses: { color: { action: "accept", content: { color: "teal" } } },
    });
  });

  it("answers a task's question from scripts by key, and questions asked before the task exists as rounds", async () => {
    const client = await connect(server, {
      ...FAST,
      answers: { apply: accept({ apply: true, mode: "replace" }), who: accept({ name: "Ada" }) },
    });
    expect((await client.callTool("choose_in_task")).content[0]!.text).toBe("apply=true mode=replace");
    expect((await client.callTool("ask_then_task")).content[0]!.text).toBe("hi Ada");
  });

  it("fails a question inside a task that nothing answers, naming it, and cancels the task", async () => {
    const client = await connect(server, FAST);
    const task = await client.startTask("ask_in_task");
    const failure = await task.result().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(McpClientError);
    expect((failure as McpClientError).message).toContain('No answer for question "color" (elicitation/create from task ');
    expect(await task.get()).toMatchObject({ status: "cancelled" });
  });

  it("cancels a working task with tasks/cancel: it ends cancelled, and its result is a clear failure", async () => {
    const client = await connect(server, FAST);
    const task = await client.startTask("held_task");
    expect(await task.until((seen) => seen.statusMessage === "Held")).toMatchObject({ status: "working" });
    await task.cancel();
    expect(await task.finish()).toMatchObject({ status: "cancelled" });
    await expect(task.result()).rejects.toMatchObject({ kind: "task", message: expect.stringContaining("ended cancelled") });
  });

  it("bounds polling: a task still working after maxPolls is a clear failure", async () => {
    const client = await connect(server, FAST);
    const task = await client.startTask("held_task");
    await expect(task.finish({ maxPolls: 2 })).rejects.toThrow(
      new McpClientError("task", `task ${task.taskId} was still working ("Held") after 2 polls`),
    );
    await task.cancel();
  });

  it("throws a failed task's error as McpError; a tool error stays a completed task's result", async () => {
    const client = await connect(server, FAST);
    const failed = await client.callTool("huge_result_task").catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(McpError);
    expect(failed).toMatchObject({ code: -32603, message: expect.stringContaining("1000000 bytes") });
    expect(await client.callTool("tool_error_task")).toMatchObject({ isError: true });
  });

  it("fails startTask clearly when the server answers with a result, not a task", async () => {
    const client = await connect(server, { ...FAST, capabilities: {} });
    await expect(client.startTask("echo_task", { text: "now" })).rejects.toMatchObject({
      kind: "task",
      message: 'tools/call echo_task: the server answered with a result (resultType "complete"), not a task',
    });
  });

  it("hears the task's status on a listener that names its id", async () => {
    const client = await connect(server, FAST);
    const task = await client.startTask("held_task");
    const listener = await client.listen({ taskIds: [task.taskId] });
    expect(listener.acknowledged).toEqual({ taskIds: [task.taskId] });
    await task.cancel();
    // Running statuses may come first; the cancellation is the last.
    for (;;) {
      const heard = await listener.next();
      expect(heard).toMatchObject({ method: "notifications/tasks", params: { taskId: task.taskId } });
      if ((heard.params as { status: string }).status === "cancelled") break;
    }
    await client.close();
  });
});
