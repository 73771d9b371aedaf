import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { prompts } from "../../src/prompts";
import { resources } from "../../src/resources";
import { tools } from "../../src/tools";
import { localIssuer } from "../helpers/issuer";
import { readMessage, readSse, type rpc, testServer } from "../helpers/rpc";
import { sseReader } from "../helpers/sse";
import { randomBase64url, storedTables } from "../helpers/storage";
import { app } from "./app";

/** The app's own Worker (src/index.ts), called in this isolate with the real bindings. */
const { call, send } = app;

type ToolResult = { content: { type: string; text?: string; uri?: string }[]; structuredContent?: any; isError?: boolean };

const tool = (name: string, args: Record<string, unknown>, capabilities = {}) =>
  call<ToolResult & Record<string, any>>("tools/call", { name, arguments: args }, { capabilities });

async function notebookWithNotes(...notes: { title: string; body: string; tags?: string[] }[]) {
  const notebook = (await tool("create_notebook", { title: "Test" })).structuredContent.notebook_id as string;
  const ids: string[] = [];
  for (const note of notes) ids.push((await tool("add_note", { notebook_id: notebook, ...note })).structuredContent.id);
  return { notebook, ids };
}

describe("notes example: plain tools", () => {
  it("creates a notebook and returns an unguessable handle", async () => {
    const result = await tool("create_notebook", {});
    expect(result.structuredContent.notebook_id).toMatch(/^nb_[A-Za-z0-9_-]{22}$/);
    expect(result.structuredContent.title).toBe("Notes");
  });

  it("adds, reads, searches and updates notes with structured output", async () => {
    const { notebook, ids } = await notebookWithNotes(
      { title: "Invoices", body: "Pay the March invoices.", tags: ["work"] },
      { title: "Groceries", body: "Milk and bread." },
    );
    const found = await tool("search_notes", { notebook_id: notebook, query: "MARCH invoices" });
    expect(found.structuredContent.notes.map((note: { id: string }) => note.id)).toEqual([ids[0]]);
    const all = await tool("search_notes", { notebook_id: notebook, query: "" });
    expect(all.structuredContent.notes).toHaveLength(2);

    const updated = await tool("update_note", { notebook_id: notebook, note_id: ids[1], body: "Milk, bread, eggs." });
    expect(updated.structuredContent).toMatchObject({ title: "Groceries", body: "Milk, bread, eggs." });
    const read = await tool("get_note", { notebook_id: notebook, note_id: ids[1] });
    expect(read.structuredContent.body).toBe("Milk, bread, eggs.");
  });

  it("links a new note as a note:// resource", async () => {
    const { notebook } = await notebookWithNotes();
    const added = await tool("add_note", { notebook_id: notebook, title: "Linked", body: "x" });
    expect(added.content[1]).toMatchObject({ type: "resource_link", uri: `note://${notebook}/${added.structuredContent.id}` });
    // The note itself follows as JSON text, for clients that ignore structuredContent.
    expect(JSON.parse(added.content[2]!.text!)).toEqual(added.structuredContent);
  });

  it("reports an unknown notebook or note as a tool error the model can act on", async () => {
    const unknown = await tool("search_notes", { notebook_id: "nb_AAAAAAAAAAAAAAAAAAAAAA", query: "" });
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0]!.text).toContain("create_notebook");
    const { notebook } = await notebookWithNotes();
    const missing = await tool("get_note", { notebook_id: notebook, note_id: "n_000000000000" });
    expect(missing).toMatchObject({ isError: true });
  });

  it("refuses malformed handles and oversize fields through schema validation", async () => {
    expect((await tool("search_notes", { notebook_id: "../../etc", query: "" })).isError).toBe(true);
    const { notebook } = await notebookWithNotes();
    const long = await tool("add_note", { notebook_id: notebook, title: "t".repeat(201), body: "" });
    expect(long.isError).toBe(true);
    expect(long.content[0]!.text).toContain("title: Too big");
  });
});

describe("notes example: a notebook_id nobody minted stores nothing", () => {
  it("every tool, resources/read, completion and the prompt answer 'unknown' for it and leave its object without a table", async () => {
    const notebook_id = `nb_${randomBase64url()}`;
    const note_id = "n_000000000000";
    const capabilities = { elicitation: { form: {} }, sampling: {} };
    for (const [name, args] of [
      ["get_note", { notebook_id, note_id }],
      ["search_notes", { notebook_id, query: "" }],
      ["add_note", { notebook_id, title: "t", body: "b" }],
      ["update_note", { notebook_id, note_id, body: "b" }],
      ["delete_note", { notebook_id, note_id }],
      ["summarize_notes", { notebook_id }],
      ["draft_note", { notebook_id, topic: "t" }],
      ["retag_notebook", { notebook_id }],
    ] as const) {
      const result = await tool(name, args, capabilities);
      expect(result, name).toMatchObject({
        isError: true,
        content: [{ text: expect.stringContaining(`Unknown notebook_id ${notebook_id}`) }],
      });
    }
    const read = await readMessage(await send("resources/read", { uri: `note://${notebook_id}/${note_id}` }));
    expect(read.error).toMatchObject({ code: -32602, message: "Resource not found" });
    const noteIds = await call<{ completion: { values: string[] } }>("completion/complete", {
      ref: { type: "ref/resource", uri: "note://{notebook_id}/{note_id}" },
      argument: { name: "note_id", value: "n_" },
      context: { arguments: { notebook_id } },
    });
    expect(noteIds.completion.values).toEqual([]);
    const topics = await call<{ completion: { values: string[] } }>("completion/complete", {
      ref: { type: "ref/prompt", name: "review_notes" },
      argument: { name: "topic", value: "" },
      context: { arguments: { notebook_id } },
    });
    expect(topics.completion.values).toEqual([]);
    const prompt = await call<{ messages: unknown[] }>("prompts/get", { name: "review_notes", arguments: { notebook_id } });
    expect(prompt.messages).toHaveLength(1);

    // Why tables: waking an object makes a 4 KiB SQLite file under Miniflare whatever it does (test/helpers/storage.ts).
    expect(await storedTables(env.NOTEBOOKS.getByName(`anonymous:${notebook_id}`))).toEqual([]);
  });

  it("a notebook that was created still keeps its notes (the first write creates the tables)", async () => {
    const { notebook, ids } = await notebookWithNotes({ title: "Kept", body: "x" });
    expect(await storedTables(env.NOTEBOOKS.getByName(`anonymous:${notebook}`))).toEqual(
      expect.arrayContaining(["notebook", "notes", "shelf"]),
    );
    expect((await tool("get_note", { notebook_id: notebook, note_id: ids[0] })).structuredContent.title).toBe("Kept");
  });
});

describe("notes example: delete_note confirms through elicitation", () => {
  it("asks for confirmation, deletes on accept, and refuses to replay the same confirmation", async () => {
    const { notebook, ids } = await notebookWithNotes({ title: "Old", body: "remove me" });
    const args = { notebook_id: notebook, note_id: ids[0] };
    const capabilities = { elicitation: {} };
    const first = await tool("delete_note", args, capabilities);
    expect(first.resultType).toBe("input_required");
    expect(first.inputRequests.confirm).toMatchObject({
      method: "elicitation/create",
      params: { mode: "form", requestedSchema: { type: "object" } },
    });

    const retry = {
      name: "delete_note",
      arguments: args,
      requestState: first.requestState,
      inputResponses: { confirm: { action: "accept", content: { delete: true } } },
    };
    const deleted = await call<ToolResult>("tools/call", retry, { capabilities });
    expect(deleted.content[0]!.text).toContain("Deleted note");
    const replay = await readMessage(await send("tools/call", retry, { capabilities }));
    expect(replay.error).toEqual({ code: -32602, message: "Invalid requestState" });
  });

  it("lets the user correct a malformed confirmation: the same signed state still deletes once", async () => {
    const { notebook, ids } = await notebookWithNotes({ title: "Typo", body: "remove me" });
    const args = { notebook_id: notebook, note_id: ids[0] };
    const capabilities = { elicitation: {} };
    const first = await tool("delete_note", args, capabilities);
    const retry = (content: unknown) =>
      send(
        "tools/call",
        {
          name: "delete_note",
          arguments: args,
          requestState: first.requestState,
          inputResponses: { confirm: { action: "accept", content } },
        },
        { capabilities },
      ).then(readMessage);
    expect((await retry({ delete: "yes" })).error).toMatchObject({ code: -32602 });
    expect((await tool("get_note", args)).isError).toBeUndefined();
    expect((await retry({ delete: true })).result?.content[0].text).toContain("Deleted note");
    expect((await retry({ delete: true })).error).toEqual({ code: -32602, message: "Invalid requestState" });
  });

  it("keeps the note when the user declines", async () => {
    const { notebook, ids } = await notebookWithNotes({ title: "Keep", body: "x" });
    const args = { notebook_id: notebook, note_id: ids[0] };
    const first = await tool("delete_note", args, { elicitation: {} });
    const kept = await call<ToolResult>(
      "tools/call",
      { name: "delete_note", arguments: args, requestState: first.requestState, inputResponses: { confirm: { action: "decline" } } },
      { capabilities: { elicitation: {} } },
    );
    expect(kept.content[0]!.text).toContain("did not confirm");
    expect((await tool("get_note", args)).isError).toBeUndefined();
  });

  it("does not accept an unsolicited confirmation: single-use answers need the state that asked", async () => {
    const { notebook, ids } = await notebookWithNotes({ title: "Safe", body: "x" });
    const args = { notebook_id: notebook, note_id: ids[0] };
    const result = await call<ToolResult & { resultType: string }>(
      "tools/call",
      { name: "delete_note", arguments: args, inputResponses: { confirm: { action: "accept", content: { delete: true } } } },
      { capabilities: { elicitation: {} } },
    );
    expect(result.resultType).toBe("input_required");
    expect((await tool("get_note", args)).isError).toBeUndefined();
  });

  it("answers -32021 with requiredCapabilities when the client cannot show a form", async () => {
    const { notebook, ids } = await notebookWithNotes({ title: "x", body: "x" });
    const response = await send("tools/call", { name: "delete_note", arguments: { notebook_id: notebook, note_id: ids[0] } });
    expect(response.status).toBe(400);
    expect((await readMessage(response)).error).toEqual({
      code: -32021,
      message: "Missing required client capability: elicitation.form",
      data: { requiredCapabilities: { elicitation: { form: {} } } },
    });
  });
});

describe("notes example: draft_note saves once per confirmation", () => {
  it("refuses to replay the confirmed saving round: one confirmation, one note", async () => {
    const { notebook } = await notebookWithNotes();
    const args = { notebook_id: notebook, topic: "Launch plan" };
    const capabilities = { elicitation: {} };
    const retry = async (state: string, inputResponses: Record<string, unknown>) =>
      readMessage(await send("tools/call", { name: "draft_note", arguments: args, requestState: state, inputResponses }, { capabilities }));
    const first = await tool("draft_note", args, capabilities);
    const second = await retry(first.requestState, { details: { action: "accept", content: { audience: "team", length: "short" } } });
    const third = await retry(second.result?.requestState, { written: { action: "accept", content: { body: "Ship on Monday." } } });
    expect(Object.keys(third.result?.inputRequests)).toEqual(["save"]);

    const confirm = { save: { action: "accept", content: { save: true } } };
    const saved = await retry(third.result?.requestState, confirm);
    expect(saved.result?.content[0].text).toMatch(/^Saved the draft as note /);
    const replay = await retry(third.result?.requestState, confirm);
    expect(replay.error).toEqual({ code: -32602, message: "Invalid requestState" });
    const notes = await tool("search_notes", { notebook_id: notebook, query: "" });
    expect(notes.structuredContent.notes).toHaveLength(1);
  });
});

describe("notes example: summarize_notes", () => {
  it("degrades to an extractive summary, and says so, when the client offers no sampling", async () => {
    const { notebook } = await notebookWithNotes({ title: "A", body: "First sentence. Second one." });
    const result = await tool("summarize_notes", { notebook_id: notebook });
    expect(result.content[0]!.text).toContain("does not offer sampling");
    expect(result.content[0]!.text).toContain("A: First sentence.");
  });

  it("asks the client's model through sampling when offered, and streams progress when asked", async () => {
    const { notebook } = await notebookWithNotes({ title: "A", body: "x" }, { title: "B", body: "y" });
    const response = await send(
      "tools/call",
      { name: "summarize_notes", arguments: { notebook_id: notebook } },
      { capabilities: { sampling: {} }, metaExtra: { progressToken: "t" } },
    );
    const events = await readSse(response);
    expect(events.filter((event) => event.method === "notifications/progress")).toHaveLength(2);
    const final = events.at(-1)!.result as Record<string, any>;
    expect(final.resultType).toBe("input_required");
    expect(final.inputRequests.summary).toMatchObject({ method: "sampling/createMessage", params: { maxTokens: 400 } });
  });
});

describe("notes example: resources, prompt and completion", () => {
  it("reads a note as a resource and completes note ids within a notebook", async () => {
    const { notebook, ids } = await notebookWithNotes({ title: "Res", body: "Body text", tags: ["t1"] });
    const read = await call<{ contents: { text: string }[]; cacheScope: string }>("resources/read", {
      uri: `note://${notebook}/${ids[0]}`,
    });
    expect(read.contents[0]!.text).toBe("# Res\n\nBody text\n\nTags: t1");
    expect(read.cacheScope).toBe("private");

    const completion = await call<{ completion: { values: string[] } }>("completion/complete", {
      ref: { type: "ref/resource", uri: "note://{notebook_id}/{note_id}" },
      argument: { name: "note_id", value: ids[0]!.slice(0, 4) },
      context: { arguments: { notebook_id: notebook } },
    });
    expect(completion.completion.values).toEqual([ids[0]]);
  });

  it("answers a note URI in a notebook the caller does not have with -32602", async () => {
    const message = await readMessage(await send("resources/read", { uri: "note://nb_AAAAAAAAAAAAAAAAAAAAAA/n_000000000000" }));
    expect(message.error?.code).toBe(-32602);
  });

  it("builds the review prompt from matching notes as embedded resources", async () => {
    const { notebook } = await notebookWithNotes({ title: "Plan", body: "Ship it", tags: ["launch"] });
    const prompt = await call<{ messages: { content: { type: string } }[] }>("prompts/get", {
      name: "review_notes",
      arguments: { notebook_id: notebook, topic: "ship" },
    });
    expect(prompt.messages.map((message) => message.content.type)).toEqual(["resource", "text"]);
    const topics = await call<{ completion: { values: string[] } }>("completion/complete", {
      ref: { type: "ref/prompt", name: "review_notes" },
      argument: { name: "topic", value: "la" },
      context: { arguments: { notebook_id: notebook } },
    });
    expect(topics.completion.values).toEqual(["launch"]);
  });
});

describe("notes example: resources/list", () => {
  let issuer: Awaited<ReturnType<typeof localIssuer>>;
  let server: ReturnType<typeof rpc>;
  beforeAll(async () => {
    issuer = await localIssuer();
    server = testServer({ tools: tools(), resources, prompts: prompts() }, issuer.vars);
  });
  const readers: ReturnType<typeof sseReader>[] = [];
  afterEach(async () => {
    await Promise.all(readers.splice(0).map((reader) => reader.cancel()));
  });

  /** A signed-in user with a fresh subject, so no other test's notebooks or listeners share it. */
  async function signedIn(name: string) {
    const sub = `${name}-${crypto.randomUUID()}`;
    const headers = { authorization: `Bearer ${await issuer.token({ sub })}` };
    const as = { headers };
    const tool = async (toolName: string, args: Record<string, unknown>, capabilities = {}) =>
      (await readMessage(await server.send("tools/call", { name: toolName, arguments: args }, { ...as, capabilities }))).result as any;
    const notebook = async () => (await tool("create_notebook", {})).structuredContent.notebook_id as string;
    const add = async (notebookId: string, title: string) =>
      (await tool("add_note", { notebook_id: notebookId, title, body: "x" })).structuredContent.id as string;
    /** Every entry of resources/list, following nextCursor; every page must be private and uncached. */
    const list = async () => {
      const entries: { uri: string; name: string; mimeType?: string }[] = [];
      let cursor: string | undefined;
      for (let pages = 0; pages < 20; pages++) {
        const { result, error } = await readMessage(await server.send("resources/list", cursor === undefined ? {} : { cursor }, as));
        expect(error).toBeUndefined();
        expect(result).toMatchObject({ ttlMs: 0, cacheScope: "private" });
        entries.push(...result!.resources);
        cursor = result!.nextCursor;
        if (cursor === undefined) break;
      }
      return entries;
    };
    const listen = async () => {
      const reader = sseReader(await server.send("subscriptions/listen", { notifications: { resourcesListChanged: true } }, as));
      readers.push(reader);
      expect(await reader.message()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
      return reader;
    };
    return { sub, tool, notebook, add, list, listen, as };
  }
  const noteUris = (entries: { uri: string }[]) => entries.map((entry) => entry.uri).filter((uri) => uri.startsWith("note://"));

  it("lists a signed-in caller's notes to that caller, and to no one else", async () => {
    const alice = await signedIn("alice");
    const bob = await signedIn("bob");
    const notebook = await alice.notebook();
    const note = await alice.add(notebook, "Private plan");
    const listed = await alice.list();
    expect(listed[0]).toMatchObject({ uri: "notes://guide" });
    expect(listed).toContainEqual({ uri: `note://${notebook}/${note}`, name: "Private plan", mimeType: "text/markdown" });
    expect(noteUris(await bob.list())).toEqual([]);
  });

  it("listing for a caller who never created a notebook stores nothing in its shelf", async () => {
    const dave = await signedIn("dave");
    expect(noteUris(await dave.list())).toEqual([]);
    expect(await storedTables(env.NOTEBOOKS.getByName(`${dave.sub}:shelf`))).toEqual([]);
  });

  it("keeps a notebook handle useless to another user (<principal>:<handle>)", async () => {
    const alice = await signedIn("alice");
    const bob = await signedIn("bob");
    const notebook = await alice.notebook();
    await alice.add(notebook, "Private");
    const stolen = await bob.tool("search_notes", { notebook_id: notebook, query: "" });
    expect(stolen.isError).toBe(true);
    const own = await alice.tool("search_notes", { notebook_id: notebook, query: "" });
    expect(own.structuredContent.notes).toHaveLength(1);
  });

  it("tells the caller's listener that the list changed, and a fresh list shows the change", async () => {
    const alice = await signedIn("alice");
    const notebook = await alice.notebook();
    const listener = await alice.listen();

    const note = await alice.add(notebook, "Fresh");
    expect(await listener.message()).toMatchObject({ method: "notifications/resources/list_changed" });
    expect(noteUris(await alice.list())).toEqual([`note://${notebook}/${note}`]);

    await alice.tool("update_note", { notebook_id: notebook, note_id: note, title: "Renamed" });
    expect(await listener.message()).toMatchObject({ method: "notifications/resources/list_changed" });
    expect((await alice.list()).find((entry) => entry.uri === `note://${notebook}/${note}`)?.name).toBe("Renamed");

    const args = { notebook_id: notebook, note_id: note };
    const asked = await alice.tool("delete_note", args, { elicitation: {} });
    const retry = {
      name: "delete_note",
      arguments: args,
      requestState: asked.requestState,
      inputResponses: { confirm: { action: "accept", content: { delete: true } } },
    };
    await server.send("tools/call", retry, { ...alice.as, capabilities: { elicitation: {} } });
    expect(await listener.message()).toMatchObject({ method: "notifications/resources/list_changed" });
    expect(noteUris(await alice.list())).toEqual([]);
  });

  it("pages through the notes of every notebook the caller owns", async () => {
    const carol = await signedIn("carol");
    const first = await carol.notebook();
    const expected = [await carol.add(first, "one"), await carol.add(first, "two")].map((id) => `note://${first}/${id}`);
    // Empty notebooks in between: one page visits a bounded number of notebooks, the next page goes on.
    for (let n = 0; n < 11; n++) await carol.notebook();
    const last = await carol.notebook();
    expected.push(`note://${last}/${await carol.add(last, "three")}`);
    expect(noteUris(await carol.list()).sort()).toEqual(expected.sort());
  });
});

describe("notes example: resources/list with authorization off", () => {
  it("lists no notes and announces no list change: every anonymous caller is the same principal", async () => {
    const { notebook } = await notebookWithNotes();
    const reader = sseReader(
      await send("subscriptions/listen", { notifications: { resourcesListChanged: true, resourceSubscriptions: [`note://${notebook}`] } }),
    );
    try {
      expect(await reader.message()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
      const added = await tool("add_note", { notebook_id: notebook, title: "Unlisted", body: "x" });
      await tool("update_note", { notebook_id: notebook, note_id: added.structuredContent.id, body: "y" });
      // Events of one principal reach its listeners in order: a list change would arrive before this update.
      expect(await reader.message()).toMatchObject({ method: "notifications/resources/updated" });
      const listed = await call<{ resources: { uri: string }[] }>("resources/list");
      expect(listed.resources.map((resource) => resource.uri)).toEqual(["notes://guide"]);
    } finally {
      await reader.cancel();
    }
  });
});

describe("notes example: listeners hear about note changes", () => {
  it("announces an updated note to listeners subscribed to it", async () => {
    const { notebook, ids } = await notebookWithNotes({ title: "t", body: "b" });
    const uri = `note://${notebook}/${ids[0]}`;
    const reader = sseReader(await send("subscriptions/listen", { notifications: { resourceSubscriptions: [uri] } }, { id: "notes" }));
    try {
      expect(await reader.message()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
      await tool("update_note", { notebook_id: notebook, note_id: ids[0], body: "changed" });
      expect(await reader.message()).toMatchObject({ method: "notifications/resources/updated", params: { uri } });
    } finally {
      await reader.cancel();
    }
  });
});

describe("notes example: what is acknowledged is what is stored", () => {
  it("refuses a title, body, tag or notebook title holding a lone surrogate with a tool error, and stores nothing", async () => {
    const lone = "a\ud800b";
    const notebook = (await tool("create_notebook", { title: "Text" })).structuredContent.notebook_id as string;
    for (const [name, args] of [
      ["create_notebook", { title: lone }],
      ["add_note", { notebook_id: notebook, title: lone, body: "x" }],
      ["add_note", { notebook_id: notebook, title: "t", body: lone }],
      ["add_note", { notebook_id: notebook, title: "t", body: "x", tags: ["ok", lone] }],
    ] as const) {
      const refused = await tool(name, args);
      expect(refused.isError, name).toBe(true);
      expect(refused.content[0]!.text).toMatch(/is not well-formed Unicode/);
    }
    expect((await tool("search_notes", { notebook_id: notebook, query: "" })).structuredContent.notes).toEqual([]);
  });

  it("stores and returns text with surrogate pairs exactly as sent", async () => {
    const text = "emoji \ud83d\udcdd and \u00e9";
    const { notebook, ids } = await notebookWithNotes({ title: text, body: text, tags: [text] });
    const read = await tool("get_note", { notebook_id: notebook, note_id: ids[0] });
    expect(read.structuredContent).toMatchObject({ title: text, body: text, tags: [text] });
  });
});

describe("notes example: landing page", () => {
  it("names the notes server and lists its tools, resources and prompt", async () => {
    const html = await (await app.fetch("http://localhost:8787/")).text();
    for (const text of [
      "<title>Notes · MCP server</title>",
      "create_notebook",
      "draft_note",
      "notes://guide",
      "note://{notebook_id}/{note_id}",
      "review_notes",
    ]) {
      expect(html).toContain(text);
    }
  });
});
