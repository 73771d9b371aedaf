/**
 * The example's long-running tool, retag_notebook: a task for clients that declared the Tasks extension (progress
 * as statusMessage, one question mid-way through tasks/update, cancellation), and the same tool synchronously for
 * clients that did not (the question then is a multi round-trip round).
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src";
import { meta, standardHeaders, URL_MCP } from "../helpers/rpc";
import { sseReader } from "../helpers/sse";
import { app } from "./app";

const { call } = app;

const TASKS = { elicitation: { form: {} }, extensions: { "io.modelcontextprotocol/tasks": {} } };
type Json = Record<string, any>;

const tool = (name: string, args: Json, capabilities: Json = {}, extra: Json = {}) =>
  call<Json>("tools/call", { name, arguments: args, ...extra }, { capabilities });
const task = (method: string, params: Json) => call<Json>(method, params, { capabilities: TASKS, headers: { "mcp-name": params.taskId } });

async function notebookOf(count: number) {
  const notebook = (await tool("create_notebook", { title: "Big" })).structuredContent.notebook_id as string;
  for (let index = 0; index < count; index++) {
    await tool("add_note", {
      notebook_id: notebook,
      title: `Garden plan ${index}`,
      body: "Plant tomatoes and basil; water the tomatoes daily.",
      tags: ["home"],
    });
  }
  return notebook;
}

async function until(taskId: string, done: (polled: Json) => boolean) {
  for (let attempt = 0; attempt < 300; attempt++) {
    const polled = await task("tasks/get", { taskId });
    if (done(polled)) return polled;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("task did not get there");
}

/** The distinct tag lists of a notebook's notes (search_notes shows up to 10 notes; all notes here are alike). */
const tagsOf = async (notebook: string) => [
  ...new Set(
    (await tool("search_notes", { notebook_id: notebook, query: "" })).structuredContent.notes.map((note: Json) => note.tags.join()),
  ),
];

describe("retag_notebook as a task", () => {
  it("scans, asks once mid-way, and on 'replace' retags every note", async () => {
    const notebook = await notebookOf(30);
    const created = await tool("retag_notebook", { notebook_id: notebook }, TASKS);
    expect(created).toMatchObject({ resultType: "task", status: "working" });
    const asked = await until(created.taskId, (polled) => polled.status !== "working");
    expect(asked).toMatchObject({
      status: "input_required",
      statusMessage: "Scanned 30 of 30 notes",
      inputRequests: { apply: { method: "elicitation/create", params: { message: expect.stringContaining("30 of 30 notes") } } },
    });
    await task("tasks/update", {
      taskId: created.taskId,
      inputResponses: { apply: { action: "accept", content: { apply: true, mode: "replace" } } },
    });
    const done = await until(created.taskId, (polled) => polled.status === "completed");
    expect(done.result.content[0].text).toBe("Retagged the notebook (replace): 30 of 30 notes got new tags.");
    expect(await tagsOf(notebook)).toEqual(["garden,plan,tomatoes"]);
  });

  it("stops on tasks/cancel while it works, and the task says cancelled", async () => {
    const notebook = await notebookOf(60);
    const created = await tool("retag_notebook", { notebook_id: notebook, batch_delay_ms: 2_000 }, TASKS);
    await until(created.taskId, (polled) => polled.statusMessage?.startsWith("Scanned"));
    await task("tasks/cancel", { taskId: created.taskId });
    expect(await until(created.taskId, (polled) => polled.status !== "working")).toMatchObject({ status: "cancelled" });
    expect(await tagsOf(notebook)).toEqual(["home"]);
  });
});

describe("retag_notebook without the Tasks extension", () => {
  it("runs synchronously; the question is a multi round-trip round, and 'add' keeps the old tags", async () => {
    const notebook = await notebookOf(3);
    const form = { elicitation: { form: {} } };
    const first = await tool("retag_notebook", { notebook_id: notebook }, form);
    expect(first).toMatchObject({ resultType: "input_required", inputRequests: { apply: expect.any(Object) } });
    const second = await tool("retag_notebook", { notebook_id: notebook }, form, {
      inputResponses: { apply: { action: "accept", content: { apply: true, mode: "add" } } },
      requestState: first.requestState,
    });
    expect(second).toMatchObject({
      resultType: "complete",
      content: [{ text: "Retagged the notebook (add): 3 of 3 notes got new tags." }],
    });
    expect(await tagsOf(notebook)).toEqual(["home,garden,plan,tomatoes"]);
  });

  it("applies no further batch once the client closes the stream during the pause between batches", { timeout: 15_000 }, async () => {
    // Two batches to apply (25, then 5), with a pause between them that outlasts the client by far.
    const notebook = await notebookOf(30);
    const form = { elicitation: { form: {} } };
    const args = { notebook_id: notebook, batch_delay_ms: 1_500 };
    const first = await tool("retag_notebook", args, form);
    const params = {
      name: "retag_notebook",
      arguments: args,
      inputResponses: { apply: { action: "accept", content: { apply: true, mode: "replace" } } },
      requestState: first.requestState,
      _meta: meta(form, { progressToken: "retag" }),
    };
    // Its own execution context: a streamed answer's handler runs on in waitUntil, which the test waits for.
    const execution = createExecutionContext();
    const request = new Request(URL_MCP, {
      method: "POST",
      headers: standardHeaders("tools/call", params),
      body: JSON.stringify({ jsonrpc: "2.0", id: "retag-gone", method: "tools/call", params }),
    });
    const stream = sseReader(await worker.fetch(request, env, execution));
    for (;;) {
      const message = await stream.message();
      if (typeof message === "string") throw new Error(`the stream ended (${message}) before the first batch was applied`);
      if (message.params?.message === "Retagged 25 of 30 notes") break;
    }
    // The tool now waits before its second batch; the client goes away meanwhile.
    await stream.cancel();
    await waitOnExecutionContext(execution);
    const untouched = (await tool("search_notes", { notebook_id: notebook, query: "home", limit: 50 })).structuredContent.notes;
    expect(untouched).toHaveLength(5);
  });

  it("without forms it only adds tags, without asking", async () => {
    const notebook = await notebookOf(2);
    const result = await tool("retag_notebook", { notebook_id: notebook });
    expect(result.content[0].text).toBe("Retagged the notebook (add): 2 of 2 notes got new tags.");
  });
});
