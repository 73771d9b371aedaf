/**
 * Clients without a Tasks runtime against the example's long-running tool. The official TypeScript client
 * (@modelcontextprotocol/client 2.4.0) does not declare `io.modelcontextprotocol/tasks`, so retag_notebook runs
 * synchronously for it, its mid-way question answered through a multi round-trip round; declaring the extension
 * without a runtime (ext-tasks, ./ext-tasks.test.ts) makes the task result unreadable to it. The 2025-11-25 client
 * (@modelcontextprotocol/sdk 1.32.2) may ask for a 2025-style task, and gets the result instead: the server offers
 * tasks on 2026-07-28 only.
 */
import { Client, SdkError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, inject, it } from "vitest";
import { appBinds } from "./app-bindings";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function connect(capabilities: Record<string, unknown>) {
  const client = new Client({ name: "e2e", version: "1.0.0" }, { capabilities, versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(inject("mcpUrl"))));
  closers.push(() => client.close());
  return client;
}

async function notebookOf(call: (name: string, args: Record<string, unknown>) => Promise<any>, count: number): Promise<string> {
  const notebook = (await call("create_notebook", {})).structuredContent.notebook_id;
  for (let index = 1; index <= count; index++) {
    await call("add_note", { notebook_id: notebook, title: `Garden ${index}`, body: "Tomatoes and basil." });
  }
  return notebook;
}

describe("official client without task support", () => {
  it("completes retag_notebook synchronously, answering its question through elicitation", async () => {
    const client = await connect({ elicitation: {} });
    const asked: string[] = [];
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(String(request.params.message));
      return { action: "accept", content: { apply: true, mode: "add" } };
    });
    const notebook = await notebookOf((name, args) => client.callTool({ name, arguments: args }), 3);
    const result: any = await client.callTool({ name: "retag_notebook", arguments: { notebook_id: notebook } });
    expect(result.content[0].text).toBe("Retagged the notebook (add): 3 of 3 notes got new tags.");
    expect(asked).toEqual([expect.stringContaining("3 of 3 notes would get new tags")]);
  });

  it.runIf(appBinds("TASKS"))(
    "declaring the extension without a runtime gets a task it cannot read: UNSUPPORTED_RESULT_TYPE (the server runs the task on)",
    async () => {
      // No forms declared: the task asks nothing, so it ends on its own and frees its place in the caller's quota.
      const client = await connect({ extensions: { "io.modelcontextprotocol/tasks": {} } });
      const notebook = await notebookOf((name, args) => client.callTool({ name, arguments: args }), 1);
      const call = client.callTool({ name: "retag_notebook", arguments: { notebook_id: notebook } });
      await expect(call).rejects.toBeInstanceOf(SdkError);
      await expect(call).rejects.toMatchObject({ code: "UNSUPPORTED_RESULT_TYPE", data: { resultType: "task", method: "tools/call" } });
    },
  );
});

describe.runIf(appBinds("LEGACY_SESSIONS"))("@modelcontextprotocol/sdk 1.32.2 (2025-11-25) and its experimental tasks", () => {
  async function connectV1() {
    const client = new ClientV1({ name: "sdk-v1", version: "1.0.0" }, { capabilities: { elicitation: {} } });
    const transport = new TransportV1(new URL(inject("mcpUrl")));
    await client.connect(transport);
    closers.push(async () => {
      await transport.terminateSession().catch(() => {});
      await client.close();
    });
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "accept", content: { apply: true, mode: "add" } }));
    return client;
  }

  it("gets no 2025 Tasks capability, so callToolStream sends no task and streams the tool's result", async () => {
    const client = await connectV1();
    expect(client.getServerCapabilities()).not.toHaveProperty("tasks");
    const notebook = await notebookOf((name, args) => client.callTool({ name, arguments: args }), 2);
    const messages: { type: string; result?: any }[] = [];
    for await (const message of client.experimental.tasks.callToolStream({
      name: "retag_notebook",
      arguments: { notebook_id: notebook },
    })) {
      messages.push(message);
    }
    expect(messages.map((message) => message.type)).toEqual(["result"]);
    expect(messages[0]!.result.content[0].text).toBe("Retagged the notebook (add): 2 of 2 notes got new tags.");
  });

  it("forcing a task (params.task) anyway: the server runs the call normally, as 2025-11-25 says, and the client rejects the plain result", async () => {
    const client = await connectV1();
    const notebook = await notebookOf((name, args) => client.callTool({ name, arguments: args }), 2);
    const messages: { type: string; error?: Error }[] = [];
    const stream = client.experimental.tasks.callToolStream({ name: "retag_notebook", arguments: { notebook_id: notebook } }, undefined, {
      task: { ttl: 60_000 },
    });
    for await (const message of stream) messages.push(message);
    // The SDK parses the answer as a CreateTaskResult (it asked for a task) and finds no `task` in it.
    expect(messages).toEqual([
      { type: "error", error: expect.objectContaining({ code: -32603, message: expect.stringContaining('"task"') }) },
    ]);
    // The server did the work: the notes carry their new tags.
    const found: any = await client.callTool({ name: "search_notes", arguments: { notebook_id: notebook, query: "tomatoes" } });
    expect(found.structuredContent.notes.map((note: any) => note.tags.length > 0)).toEqual([true, true]);
  });
});
