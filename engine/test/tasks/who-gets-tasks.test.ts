/**
 * Who is handed a task (SEP-2663: "MUST NOT return CreateTaskResult to a client that did not include the extension
 * capability on its request, regardless of prior declarations"), through the test client: only a 2026-07-28 request
 * that declares `io.modelcontextprotocol/tasks` in its own `_meta` capabilities. A 2025 client never is, whatever
 * it declares (a 2025-11-25 `tasks` capability, `params.task`, the extension): those revisions' Tasks are not
 * offered, and 2025-11-25 says a receiver that did not declare them runs the request normally.
 */
import { describe, expect, it } from "vitest";
import { connect } from "../../src/testing";
import { TASKS_EXTENSION, tasksServer } from "./fixtures";

const server = tasksServer("tasks-who").fetch;
const FAST = { tasks: { pollIntervalMs: 10 } };
/** Everything a 2025 client might send to ask for tasks: the 2025-11-25 capability and the 2026-07-28 extension. */
const EVERY_TASK_DECLARATION = {
  tasks: { requests: { tools: { call: {} } } },
  extensions: { [TASKS_EXTENSION]: {} },
};

describe("who is handed a task", () => {
  it("a 2026-07-28 request declaring the extension, and only that request: the next one without it runs synchronously", async () => {
    const declaring = await connect(server, { ...FAST, capabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
    expect((await declaring.request("tools/call", { name: "echo_task", arguments: { text: "a" } })).resultType).toBe("task");
    // Same caller, same server, a moment later: this request's own capabilities decide, not the earlier ones.
    const plain = await connect(server, { ...FAST, capabilities: {} });
    expect(await plain.request("tools/call", { name: "echo_task", arguments: { text: "b" } })).toMatchObject({
      resultType: "complete",
      content: [{ text: "echo: b" }],
    });
  });

  it("a 2025 client declaring every kind of task support, asking with params.task: the optional task tool's result, no task", async () => {
    const client = await connect(server, { era: "2025", capabilities: EVERY_TASK_DECLARATION });
    expect(client.initializeResult?.capabilities).not.toHaveProperty("tasks");
    const result = await client.request("tools/call", { name: "echo_task", arguments: { text: "old" }, task: { ttl: 60_000 } });
    expect(result).toEqual({ content: [{ type: "text", text: "echo: old" }] });
  });

  it("a 2025 client calling a task-only tool: an isError result naming the extension it would need, no task", async () => {
    const client = await connect(server, { era: "2025", capabilities: EVERY_TASK_DECLARATION });
    const result = await client.callTool("held_task", {});
    expect(result).toMatchObject({ isError: true, content: [{ text: expect.stringContaining(TASKS_EXTENSION) }] });
    expect(result).not.toHaveProperty("taskId");
  });
});
