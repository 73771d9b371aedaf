/**
 * `notifications/tasks` through `subscriptions/listen` with a `taskIds` filter, delivered by the hub: the
 * acknowledgement names the ids, each status change arrives as a DetailedTask, and only to the task's principal.
 */
import { afterEach, describe, expect, it } from "vitest";
import { readMessage } from "../helpers/rpc";
import { sseReader } from "../helpers/sse";
import { settle, TASK_CLIENT, tasksServer } from "./fixtures";

const server = tasksServer();
const readers: ReturnType<typeof sseReader>[] = [];
afterEach(async () => {
  await Promise.all(readers.splice(0).map((reader) => reader.cancel()));
});

async function listen(taskIds: string[]) {
  const reader = sseReader(
    await server.send("subscriptions/listen", { notifications: { taskIds } }, { id: "L", capabilities: TASK_CLIENT }),
  );
  readers.push(reader);
  return reader;
}

describe("a task's own notifications", () => {
  it("a change a tool publishes from inside its task reaches a listener, as from a request", async () => {
    const reader = sseReader(
      await server.send("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id: "T", capabilities: TASK_CLIENT }),
    );
    readers.push(reader);
    expect(await reader.message()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
    const { taskId } = await server.call("tools/call", { name: "publish_task", arguments: {} }, { capabilities: TASK_CLIENT });
    expect(await settle(server, taskId as string)).toMatchObject({ status: "completed" });
    expect(await reader.message()).toMatchObject({ method: "notifications/tools/list_changed" });
  });
});

describe("task status notifications", () => {
  it("a listener following a task gets each status change as a DetailedTask, the result inlined", async () => {
    const { taskId } = await server.call("tools/call", { name: "ask_in_task", arguments: {} }, { capabilities: TASK_CLIENT });
    await settle(server, taskId as string, (task) => task.status === "input_required");
    const reader = await listen([taskId as string]);
    expect(await reader.message()).toMatchObject({
      method: "notifications/subscriptions/acknowledged",
      params: { notifications: { taskIds: [taskId] } },
    });
    await server.call(
      "tasks/update",
      { taskId, inputResponses: { color: { action: "accept", content: { color: "red" } } } },
      { capabilities: TASK_CLIENT, headers: { "mcp-name": taskId as string } },
    );
    expect(await reader.message()).toMatchObject({
      method: "notifications/tasks",
      params: { taskId, status: "working", _meta: expect.any(Object) },
    });
    expect(await reader.message()).toMatchObject({
      method: "notifications/tasks",
      params: { taskId, status: "completed", result: { resultType: "complete", content: [{ text: "color: red" }] } },
    });
  });

  it("asking for task notifications without declaring the extension is -32021", async () => {
    const response = await server.send(
      "subscriptions/listen",
      { notifications: { taskIds: ["AAAAAAAAAAAAAAAAAAAAAA"] } },
      { capabilities: {} },
    );
    expect((await readMessage(response)).error).toMatchObject({ code: -32021 });
  });

  it("another principal's events never reach a listener, whatever ids it names", async () => {
    const { env } = await import("cloudflare:workers");
    const { taskId } = await server.call("tools/call", { name: "echo_task", arguments: { text: "mine" } }, { capabilities: TASK_CLIENT });
    await settle(server, taskId as string);
    const reader = await listen([taskId as string]);
    await reader.message(); // acknowledgement
    // Two events about the same id on this listener's hub (anonymous callers' events go to the global group): one as
    // another principal's, then one as its own.
    const hub = env.SUBSCRIPTIONS.getByName("global");
    await hub.publish({ type: "task_status", taskId: taskId as string, task: { status: "eve's" }, principal: "eve" });
    await hub.publish({ type: "task_status", taskId: taskId as string, task: { status: "own" }, principal: "anonymous" });
    expect(await reader.message()).toMatchObject({ method: "notifications/tasks", params: { status: "own" } });
  });
});
