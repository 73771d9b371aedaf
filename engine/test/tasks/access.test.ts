/**
 * Who may see a task, and how the tasks/* methods refuse what they cannot serve: unknown ids, other principals,
 * clients without the extension, missing or mismatched Mcp-Name, removed v1 methods.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { readMessage } from "../helpers/rpc";
import { randomBase64url, wasWoken } from "../helpers/storage";
import { cancelTask, TASK_CLIENT, taskRequest, tasksServer } from "./fixtures";

const server = tasksServer();

async function heldTask() {
  const created = await server.call("tools/call", { name: "held_task", arguments: {} }, { capabilities: TASK_CLIENT });
  return created.taskId as string;
}

describe("tasks/* refusals", () => {
  it("an unknown task id is -32602 on get, update and cancel", async () => {
    const taskId = "AAAAAAAAAAAAAAAAAAAAAA";
    for (const [method, params] of [
      ["tasks/get", { taskId }],
      ["tasks/update", { taskId, inputResponses: {} }],
      ["tasks/cancel", { taskId }],
    ] as const) {
      const message = await readMessage(await taskRequest(server, method, params));
      expect(message.error, method).toMatchObject({ code: -32602, message: "Failed to retrieve task: Task not found" });
    }
  });

  it("a well-formed id this server never minted is unknown on get, update and cancel, and wakes no object", async () => {
    const created = await heldTask();
    const [kid, nonce] = created.split(".");
    const unminted = [
      // The shape task ids had before they were signed: 128 random bits.
      randomBase64url(),
      // The shape of a signed id, with a key id the server holds ("test", vitest.config.ts) and one it does not.
      `${kid}.${randomBase64url()}.${randomBase64url()}`,
      `k9.${randomBase64url()}.${randomBase64url()}`,
      // A real id's nonce under a made-up tag.
      `${kid}.${nonce}.${randomBase64url()}`,
    ];
    for (const taskId of unminted) {
      for (const [method, params] of [
        ["tasks/get", { taskId }],
        ["tasks/update", { taskId, inputResponses: { color: { action: "accept", content: { color: "red" } } } }],
        ["tasks/cancel", { taskId }],
      ] as const) {
        const message = await readMessage(await taskRequest(server, method, params));
        expect(message.error, `${method} ${taskId}`).toMatchObject({ code: -32602, message: "Failed to retrieve task: Task not found" });
      }
      expect(await wasWoken(env.TASKS, taskId), taskId).toBe(false);
    }
    // The minted one is a task, and its object exists.
    expect(await wasWoken(env.TASKS, created)).toBe(true);
    await cancelTask(server, created);
  });

  it("an id of the wrong shape is unknown too, without waking any object", async () => {
    const message = await readMessage(await taskRequest(server, "tasks/get", { taskId: "../../etc" }));
    expect(message.error).toMatchObject({ code: -32602 });
  });

  it("another principal's task id is unknown to them", async () => {
    const taskId = await heldTask();
    // The object is asked for the owner's task as someone else, as the Worker would for another caller.
    expect(await env.TASKS.getByName(taskId).get("someone-else")).toBeUndefined();
    expect(await env.TASKS.getByName(taskId).cancel("someone-else")).toBe(false);
    expect(await env.TASKS.getByName(taskId).update("someone-else", {})).toEqual({ kind: "unknown" });
    expect(await env.TASKS.getByName(taskId).get("anonymous")).toMatchObject({ status: "working" });
    await cancelTask(server, taskId);
  });

  it("a client without the extension gets -32021 from every tasks/* method", async () => {
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      const message = await readMessage(await taskRequest(server, method, { taskId: "AAAAAAAAAAAAAAAAAAAAAA", inputResponses: {} }, {}));
      expect(message.error, method).toMatchObject({ code: -32021 });
    }
  });

  it("Mcp-Name must carry the taskId (-32020 when missing or different)", async () => {
    const taskId = await heldTask();
    const missing = await server.send("tasks/get", { taskId }, { capabilities: TASK_CLIENT });
    expect(missing.status).toBe(400);
    expect((await readMessage(missing)).error).toMatchObject({ code: -32020 });
    const other = await server.send("tasks/get", { taskId }, { capabilities: TASK_CLIENT, headers: { "mcp-name": "another" } });
    expect((await readMessage(other)).error).toMatchObject({ code: -32020 });
    await cancelTask(server, taskId);
  });

  it("tasks/result and tasks/list no longer exist (-32601)", async () => {
    for (const method of ["tasks/result", "tasks/list"]) {
      const message = await readMessage(await taskRequest(server, method, { taskId: "AAAAAAAAAAAAAAAAAAAAAA" }));
      expect(message.error, method).toMatchObject({ code: -32601 });
    }
  });

  it("tasks/update without an inputResponses object is -32602", async () => {
    const taskId = await heldTask();
    const message = await readMessage(await taskRequest(server, "tasks/update", { taskId }));
    expect(message.error).toMatchObject({ code: -32602, message: expect.stringContaining("inputResponses") });
    await cancelTask(server, taskId);
  });
});
