/**
 * The example's long-running tool, retag_notebook: a task for clients that declared the Tasks extension (progress
 * as statusMessage, one question mid-way through tasks/update, cancellation), and the same tool synchronously for
 * clients that did not (the question then is a multi round-trip round).
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { accept, connect, type Question, sseReader } from "mcp-workers-engine/testing";
import { describe, expect, it } from "vitest";
import worker from "../../src";
import { MCP_URL, modernRequest } from "../wire";
import { fetchApp } from "./app";

type Json = Record<string, any>;

const TASKS = { elicitation: { form: {} }, extensions: { "io.modelcontextprotocol/tasks": {} } };
/** Polls a task every 25 ms instead of its own 1 s: the runs here take milliseconds. */
const POLLING = { tasks: { pollIntervalMs: 25, maxPolls: 300 } };

const client = await connect(fetchApp, { capabilities: {} });
const tool = (name: string, args: Json) => client.callTool(name, args);

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

/** The distinct tag lists of a notebook's notes (search_notes shows up to 10 notes; all notes here are alike). */
const tagsOf = async (notebook: string) => [
  ...new Set(
    (await tool("search_notes", { notebook_id: notebook, query: "" })).structuredContent.notes.map((note: Json) => note.tags.join()),
  ),
];

describe("retag_notebook as a task", () => {
  it("scans, asks once mid-way, and on 'replace' retags every note", async () => {
    const notebook = await notebookOf(30);
    const asked: Question[] = [];
    const tasks = await connect(fetchApp, {
      ...POLLING,
      capabilities: TASKS,
      onElicit: (_params, question) => {
        asked.push(question);
        return accept({ apply: true, mode: "replace" });
      },
    });
    const task = await tasks.startTask("retag_notebook", { notebook_id: notebook });
    expect(task.created).toMatchObject({ resultType: "task", status: "working" });
    const done = await task.result();
    expect(done.content[0]!.text).toBe("Retagged the notebook (replace): 30 of 30 notes got new tags.");
    // The question came from the task while it waited, with its progress as the status message.
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      key: "apply",
      method: "elicitation/create",
      params: { message: expect.stringContaining("30 of 30 notes") },
      task: { status: "input_required", statusMessage: "Scanned 30 of 30 notes" },
    });
    expect(task.history.at(-1)).toMatchObject({ status: "completed" });
    expect(await tagsOf(notebook)).toEqual(["garden,plan,tomatoes"]);
  });

  it("stops on tasks/cancel while it works, and the task says cancelled", async () => {
    const notebook = await notebookOf(60);
    const tasks = await connect(fetchApp, { ...POLLING, capabilities: TASKS });
    const task = await tasks.startTask("retag_notebook", { notebook_id: notebook, batch_delay_ms: 2_000 });
    // Its progress: the first batch scanned, then the pause before the next.
    await task.until((seen) => seen.statusMessage?.startsWith("Scanned") === true);
    await task.cancel();
    expect(await task.finish()).toMatchObject({ status: "cancelled" });
    expect(await tagsOf(notebook)).toEqual(["home"]);
  });
});

describe("retag_notebook without the Tasks extension", () => {
  it("runs synchronously; the question is a multi round-trip round, and 'add' keeps the old tags", async () => {
    const notebook = await notebookOf(3);
    const asked: Question[] = [];
    const forms = await connect(fetchApp, {
      capabilities: { elicitation: { form: {} } },
      answers: {
        apply: (question) => {
          asked.push(question);
          return accept({ apply: true, mode: "add" });
        },
      },
    });
    const result = await forms.callTool("retag_notebook", { notebook_id: notebook });
    expect(asked).toEqual([expect.objectContaining({ key: "apply", round: 1, asker: "tools/call retag_notebook" })]);
    expect(asked[0]).not.toHaveProperty("task");
    expect(result).toMatchObject({
      resultType: "complete",
      content: [{ text: "Retagged the notebook (add): 3 of 3 notes got new tags." }],
    });
    expect(await tagsOf(notebook)).toEqual(["home,garden,plan,tomatoes"]);
  });

  // Its own timeout, a bound on a hang: the tool pauses 1 s after each batch it scans or applies, on a busy machine.
  it("applies no further batch once the client closes the stream during the pause between batches", { timeout: 30_000 }, async () => {
    // Two batches to apply (25, then 5), with a pause between them that outlasts the client by far.
    const notebook = await notebookOf(30);
    const form = { elicitation: { form: {} } };
    const args = { notebook_id: notebook, batch_delay_ms: 1_000 };
    const forms = await connect(fetchApp, { capabilities: form });
    const first = await forms.request("tools/call", { name: "retag_notebook", arguments: args });
    // Raw from here: the test drops the stream mid-call, which is not something a client's API does.
    const params = {
      name: "retag_notebook",
      arguments: args,
      inputResponses: { apply: { action: "accept", content: { apply: true, mode: "replace" } } },
      requestState: first.requestState,
    };
    // Its own execution context: a streamed answer's handler runs on in waitUntil, which the test waits for.
    const execution = createExecutionContext();
    const request = modernRequest(MCP_URL, {
      id: "retag-gone",
      method: "tools/call",
      params,
      capabilities: form,
      meta: { progressToken: "retag" },
    });
    const stream = sseReader((await worker.fetch(request, env, execution)).body!);
    for (;;) {
      // A bound on a hang: between the events come the tool's pauses (1 s each) and a busy machine's delays.
      const event = await stream.next(10_000);
      if (typeof event === "string") throw new Error(`the stream ended (${event}) before the first batch was applied`);
      if (event.data !== undefined && JSON.parse(event.data).params?.message === "Retagged 25 of 30 notes") break;
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
    expect(result.content[0]!.text).toBe("Retagged the notebook (add): 2 of 2 notes got new tags.");
  });
});
