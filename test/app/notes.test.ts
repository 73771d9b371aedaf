import { env } from "cloudflare:workers";
import {
  accept,
  connect,
  decline,
  type Listener,
  type McpTestClient,
  type Question,
  roots,
  sampled,
  type TestIssuer,
  testIssuer,
} from "mcp-workers-engine/testing";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { MCP_URL } from "../wire";
import { fetchApp, fetchAppWith } from "./app";
import { storedTables } from "./storage";

/** A client of the app's own Worker (src/index.ts) that declares everything: elicitation, sampling, roots, tasks. */
const client = await connect(fetchApp);
const tool = (name: string, args: Record<string, unknown>) => client.callTool(name, args);

async function notebookWithNotes(...notes: { title: string; body: string; tags?: string[] }[]) {
  const notebook = (await tool("create_notebook", { title: "Test" })).structuredContent.notebook_id as string;
  const ids: string[] = [];
  for (const note of notes) ids.push((await tool("add_note", { notebook_id: notebook, ...note })).structuredContent.id);
  return { notebook, ids };
}

/**
 * Runs `action` with the server's warnings captured instead of printed: the lines it warned, parsed, for the test
 * that causes a warning to assert (a passing run prints no warning).
 */
async function warnings(action: () => Promise<unknown>): Promise<unknown[]> {
  const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
  try {
    await action();
    return warn.mock.calls.map(([line]) => JSON.parse(String(line)));
  } finally {
    warn.mockRestore();
  }
}
/**
 * How long a listener waits for what a test expects (its stream opening, a notification): a bound on a hang that
 * holds on a busy machine, never a measurement (the test client's default is 2 s).
 */
const EXPECTED_MS = 10_000;
/** What the engine warns when a round's requestState is used a second time. */
const REPLAY_REFUSED = expect.objectContaining({ level: "warn", message: "requestState rejected", reason: "replay" });

const NOTE_TEMPLATE = { type: "ref/resource", uri: "note://{notebook_id}/{note_id}" } as const;
const REVIEW_PROMPT = { type: "ref/prompt", name: "review_notes" } as const;

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
    // A well-formed handle nobody minted: 128 random bits, as create_notebook's are.
    const notebook_id = `nb_${crypto.getRandomValues(new Uint8Array(16)).toBase64({ alphabet: "base64url", omitPadding: true })}`;
    const note_id = "n_000000000000";
    const asker = await connect(fetchApp, { capabilities: { elicitation: { form: {} }, sampling: {} } });
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
      const result = await asker.callTool(name, args);
      expect(result, name).toMatchObject({
        isError: true,
        content: [{ text: expect.stringContaining(`Unknown notebook_id ${notebook_id}`) }],
      });
    }
    await expect(client.readResource(`note://${notebook_id}/${note_id}`)).rejects.toMatchObject({
      code: -32602,
      message: "Resource not found",
    });
    const noteIds = await client.complete(NOTE_TEMPLATE, { name: "note_id", value: "n_" }, { notebook_id });
    expect(noteIds.completion.values).toEqual([]);
    const topics = await client.complete(REVIEW_PROMPT, { name: "topic", value: "" }, { notebook_id });
    expect(topics.completion.values).toEqual([]);
    const prompt = await client.getPrompt("review_notes", { notebook_id });
    expect(prompt.messages).toHaveLength(1);

    // Why tables: waking an object makes a 4 KiB SQLite file under Miniflare whatever it does (./storage.ts).
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
  const forms = { elicitation: {} };

  it("asks for confirmation with a form, and deletes the note when the user accepts", async () => {
    const { notebook, ids } = await notebookWithNotes({ title: "Old", body: "remove me" });
    const args = { notebook_id: notebook, note_id: ids[0] };
    const asked: Question[] = [];
    const confirming = await connect(fetchApp, {
      capabilities: forms,
      onElicit: (_params, question) => {
        asked.push(question);
        return accept({ delete: true });
      },
    });
    const deleted = await confirming.callTool("delete_note", args);
    expect(deleted.content[0]!.text).toContain("Deleted note");
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      key: "confirm",
      method: "elicitation/create",
      params: { mode: "form", message: 'Delete the note "Old"? This cannot be undone.', requestedSchema: { type: "object" } },
    });
    expect((await tool("get_note", args)).isError).toBe(true);
  });

  it("refuses to replay the same confirmation: the signed round deletes once", async () => {
    const { notebook, ids } = await notebookWithNotes({ title: "Old", body: "remove me" });
    const args = { notebook_id: notebook, note_id: ids[0] };
    // The rounds by hand (the client's request), since the test replays one.
    const asker = await connect(fetchApp, { capabilities: forms });
    const first = await asker.request("tools/call", { name: "delete_note", arguments: args });
    expect(first.resultType).toBe("input_required");
    const retry = {
      name: "delete_note",
      arguments: args,
      requestState: first.requestState,
      inputResponses: { confirm: accept({ delete: true }) },
    };
    const deleted = await asker.request("tools/call", retry);
    expect((deleted.content as { text: string }[])[0]!.text).toContain("Deleted note");
    const warned = await warnings(() =>
      expect(asker.request("tools/call", retry)).rejects.toMatchObject({
        code: -32602,
        message: "Invalid requestState",
        data: undefined,
      }),
    );
    expect(warned).toEqual([REPLAY_REFUSED]);
  });

  it("lets the user correct a malformed confirmation: the same signed state still deletes once", async () => {
    const { notebook, ids } = await notebookWithNotes({ title: "Typo", body: "remove me" });
    const args = { notebook_id: notebook, note_id: ids[0] };
    const asker = await connect(fetchApp, { capabilities: forms });
    const first = await asker.request("tools/call", { name: "delete_note", arguments: args });
    const retry = (content: unknown) =>
      asker.request("tools/call", {
        name: "delete_note",
        arguments: args,
        requestState: first.requestState,
        inputResponses: { confirm: { action: "accept", content } },
      });
    await expect(retry({ delete: "yes" })).rejects.toMatchObject({ code: -32602 });
    expect((await tool("get_note", args)).isError).toBeUndefined();
    expect(((await retry({ delete: true })).content as { text: string }[])[0]!.text).toContain("Deleted note");
    const warned = await warnings(() =>
      expect(retry({ delete: true })).rejects.toMatchObject({ code: -32602, message: "Invalid requestState" }),
    );
    expect(warned).toEqual([REPLAY_REFUSED]);
  });

  it("keeps the note when the user declines", async () => {
    const { notebook, ids } = await notebookWithNotes({ title: "Keep", body: "x" });
    const args = { notebook_id: notebook, note_id: ids[0] };
    const kept = await client.callTool("delete_note", args, { answers: { confirm: decline() } });
    expect(kept.content[0]!.text).toContain("did not confirm");
    expect((await tool("get_note", args)).isError).toBeUndefined();
  });

  it("does not accept an unsolicited confirmation: single-use answers need the state that asked", async () => {
    const { notebook, ids } = await notebookWithNotes({ title: "Safe", body: "x" });
    const args = { notebook_id: notebook, note_id: ids[0] };
    const result = await client.request("tools/call", {
      name: "delete_note",
      arguments: args,
      inputResponses: { confirm: accept({ delete: true }) },
    });
    expect(result.resultType).toBe("input_required");
    expect((await tool("get_note", args)).isError).toBeUndefined();
  });

  it("answers -32021 with requiredCapabilities when the client cannot show a form", async () => {
    const { notebook, ids } = await notebookWithNotes({ title: "x", body: "x" });
    const formless = await connect(fetchApp, { capabilities: {} });
    await expect(formless.callTool("delete_note", { notebook_id: notebook, note_id: ids[0] })).rejects.toMatchObject({
      httpStatus: 400,
      code: -32021,
      message: "Missing required client capability: elicitation.form",
      data: { requiredCapabilities: { elicitation: { form: {} } } },
    });
  });
});

describe("notes example: draft_note asks over several rounds and saves once per confirmation", () => {
  it("asks what the note is for, then for its text, then to confirm; it saves one note", async () => {
    const { notebook } = await notebookWithNotes();
    const asked: Question[] = [];
    const drafter = await connect(fetchApp, {
      capabilities: { elicitation: {} },
      answers: {
        details: accept({ audience: "team", length: "short" }),
        written: accept({ body: "Ship on Monday." }),
        save: (question) => {
          asked.push(question);
          return accept({ save: true });
        },
      },
    });
    const saved = await drafter.callTool("draft_note", { notebook_id: notebook, topic: "Launch plan" });
    expect(saved.content[0]!.text).toMatch(/^Saved the draft as note /);
    expect(asked).toEqual([
      expect.objectContaining({
        key: "save",
        round: 3,
        params: expect.objectContaining({ message: expect.stringContaining("Ship on Monday.") }),
      }),
    ]);
    const notes = await tool("search_notes", { notebook_id: notebook, query: "" });
    expect(notes.structuredContent.notes).toHaveLength(1);
    expect(notes.structuredContent.notes[0]).toMatchObject({ title: "Launch plan", tags: ["draft"] });
  });

  it("asks for the workspace roots with the first form, and drafts with the client's model", async () => {
    const { notebook } = await notebookWithNotes();
    const asked: Question[] = [];
    const record = (question: Question) => void asked.push(question);
    const drafter = await connect(fetchApp, {
      onElicit: (_params, question) => {
        record(question);
        return question.key === "details" ? accept({ audience: "me", length: "medium" }) : accept({ save: true, title: "Drafted" });
      },
      onRoots: (_params, question) => {
        record(question);
        return roots({ uri: "file:///home/launch", name: "launch" });
      },
      onSample: (params, question) => {
        record(question);
        return sampled(`Draft for: ${JSON.stringify(params.messages)}`);
      },
    });
    const saved = await drafter.callTool("draft_note", { notebook_id: notebook, topic: "Launch plan" });
    expect(saved.content[0]!.text).toMatch(/^Saved the draft as note /);
    expect(asked.map(({ key, method, round }) => [round, key, method])).toEqual([
      [1, "details", "elicitation/create"],
      [1, "workspace", "roots/list"],
      [2, "draft", "sampling/createMessage"],
      [3, "save", "elicitation/create"],
    ]);
    expect(asked[2]!.params).toMatchObject({ maxTokens: 600 });
    const [note] = (await tool("search_notes", { notebook_id: notebook, query: "" })).structuredContent.notes;
    const body = (await tool("get_note", { notebook_id: notebook, note_id: note.id })).structuredContent.body as string;
    expect(body).toContain("The user works in: launch.");
  });

  it("refuses to replay the confirmed saving round: one confirmation, one note", async () => {
    const { notebook } = await notebookWithNotes();
    const args = { notebook_id: notebook, topic: "Launch plan" };
    // The rounds by hand (the client's request), since the test replays the last one.
    const drafter = await connect(fetchApp, { capabilities: { elicitation: {} } });
    const retry = (state: unknown, inputResponses: Record<string, unknown>) =>
      drafter.request("tools/call", { name: "draft_note", arguments: args, requestState: state, inputResponses });
    const first = await drafter.request("tools/call", { name: "draft_note", arguments: args });
    const second = await retry(first.requestState, { details: accept({ audience: "team", length: "short" }) });
    const third = await retry(second.requestState, { written: accept({ body: "Ship on Monday." }) });
    expect(Object.keys(third.inputRequests as object)).toEqual(["save"]);

    const confirm = { save: accept({ save: true }) };
    const saved = await retry(third.requestState, confirm);
    expect((saved.content as { text: string }[])[0]!.text).toMatch(/^Saved the draft as note /);
    const warned = await warnings(() =>
      expect(retry(third.requestState, confirm)).rejects.toMatchObject({ code: -32602, message: "Invalid requestState" }),
    );
    expect(warned).toEqual([REPLAY_REFUSED]);
    const notes = await tool("search_notes", { notebook_id: notebook, query: "" });
    expect(notes.structuredContent.notes).toHaveLength(1);
  });
});

describe("notes example: summarize_notes", () => {
  it("degrades to an extractive summary, and says so, when the client offers no sampling", async () => {
    const { notebook } = await notebookWithNotes({ title: "A", body: "First sentence. Second one." });
    const plain = await connect(fetchApp, { capabilities: {} });
    const result = await plain.callTool("summarize_notes", { notebook_id: notebook });
    expect(result.content[0]!.text).toContain("does not offer sampling");
    expect(result.content[0]!.text).toContain("A: First sentence.");
  });

  it("asks the client's model through sampling when offered, and streams progress when asked", async () => {
    const { notebook } = await notebookWithNotes({ title: "A", body: "x" }, { title: "B", body: "y" });
    const asked: Question[] = [];
    const sampler = await connect(fetchApp, {
      capabilities: { sampling: {} },
      onSample: (_params, question) => {
        asked.push(question);
        return sampled("Two short notes.", "notes-model");
      },
    });
    const progress: (string | undefined)[] = [];
    const result = await sampler.callTool(
      "summarize_notes",
      { notebook_id: notebook },
      { onProgress: (report) => progress.push(report.message) },
    );
    expect(asked).toEqual([
      expect.objectContaining({
        key: "summary",
        method: "sampling/createMessage",
        round: 1,
        params: expect.objectContaining({ maxTokens: 400 }),
      }),
    ]);
    expect(result.content[0]!.text).toBe("Summary of 2 note(s), written by notes-model:\nTwo short notes.");
    // Each round reads the notes again, and reports it: the asking round, then the one with the answer.
    expect(progress).toEqual(["Read 1 of 2 notes", "Read 2 of 2 notes", "Read 1 of 2 notes", "Read 2 of 2 notes"]);
  });
});

describe("notes example: 2025 clients", () => {
  it("confirms delete_note through a server-to-client elicitation on the call's stream", async () => {
    const { notebook, ids } = await notebookWithNotes({ title: "Legacy", body: "remove me" }, { title: "Stays", body: "x" });
    const asked: Question[] = [];
    const legacy = await connect(fetchApp, {
      era: "2025",
      onElicit: (params, question) => {
        asked.push(question);
        return String(params.message).includes("Legacy") ? accept({ delete: true }) : decline();
      },
    });
    expect((await legacy.callTool("delete_note", { notebook_id: notebook, note_id: ids[0] })).content[0]!.text).toContain("Deleted note");
    expect((await legacy.callTool("delete_note", { notebook_id: notebook, note_id: ids[1] })).content[0]!.text).toContain(
      "did not confirm",
    );
    expect(asked.map((question) => [question.method, question.key])).toEqual([
      ["elicitation/create", undefined],
      ["elicitation/create", undefined],
    ]);
    expect((await tool("get_note", { notebook_id: notebook, note_id: ids[0] })).isError).toBe(true);
    expect((await tool("get_note", { notebook_id: notebook, note_id: ids[1] })).isError).toBeUndefined();
    await legacy.close();
  });

  it("summarizes through a server-to-client sampling request, on 2025-11-25 and on 2025-06-18", async () => {
    const { notebook } = await notebookWithNotes({ title: "A", body: "x" });
    for (const version of ["2025-11-25", "2025-06-18"] as const) {
      const legacy = await connect(fetchApp, { era: "2025", version, answers: [sampled(`Summary for ${version}.`)] });
      const result = await legacy.callTool("summarize_notes", { notebook_id: notebook });
      expect(result.content[0]!.text, version).toBe(`Summary of 1 note(s), written by test-model:\nSummary for ${version}.`);
      await legacy.close();
    }
  });
});

describe("notes example: resources, prompt and completion", () => {
  it("reads a note as a resource and completes note ids within a notebook", async () => {
    const { notebook, ids } = await notebookWithNotes({ title: "Res", body: "Body text", tags: ["t1"] });
    const read = await client.readResource(`note://${notebook}/${ids[0]}`);
    expect(read.contents[0]!.text).toBe("# Res\n\nBody text\n\nTags: t1");
    expect(read.cacheScope).toBe("private");

    const completion = await client.complete(NOTE_TEMPLATE, { name: "note_id", value: ids[0]!.slice(0, 4) }, { notebook_id: notebook });
    expect(completion.completion.values).toEqual([ids[0]]);
  });

  it("answers a note URI in a notebook the caller does not have with -32602", async () => {
    await expect(client.readResource("note://nb_AAAAAAAAAAAAAAAAAAAAAA/n_000000000000")).rejects.toMatchObject({ code: -32602 });
  });

  it("builds the review prompt from matching notes as embedded resources", async () => {
    const { notebook } = await notebookWithNotes({ title: "Plan", body: "Ship it", tags: ["launch"] });
    const prompt = await client.getPrompt("review_notes", { notebook_id: notebook, topic: "ship" });
    expect(prompt.messages.map((message) => message.content.type)).toEqual(["resource", "text"]);
    const topics = await client.complete(REVIEW_PROMPT, { name: "topic", value: "la" }, { notebook_id: notebook });
    expect(topics.completion.values).toEqual(["launch"]);
  });
});

describe("notes example: resources/list", () => {
  let issuer: TestIssuer;
  /** The app's Worker with authorization on, against the test's own issuer. */
  let signedInApp: (request: Request) => Promise<Response>;
  beforeAll(async () => {
    issuer = await testIssuer();
    signedInApp = fetchAppWith(issuer.vars);
  });
  const clients: McpTestClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((signedIn) => signedIn.close()));
  });

  /** A signed-in user with a fresh subject, so no other test's notebooks or listeners share it. */
  async function signedIn(name: string) {
    const sub = `${name}-${crypto.randomUUID()}`;
    const user = await connect(signedInApp, { headers: { authorization: `Bearer ${await issuer.token({ sub })}` } });
    clients.push(user);
    const notebook = async () => (await user.callTool("create_notebook", {})).structuredContent.notebook_id as string;
    const add = async (notebookId: string, title: string) =>
      (await user.callTool("add_note", { notebook_id: notebookId, title, body: "x" })).structuredContent.id as string;
    /** Every entry of resources/list, following nextCursor; every page must be private and uncached. */
    const list = async () => {
      const pages = await user.pages("resources/list");
      for (const page of pages) expect(page).toMatchObject({ ttlMs: 0, cacheScope: "private" });
      return pages.flatMap((page) => page.resources as { uri: string; name: string; mimeType?: string }[]);
    };
    const listen = async (): Promise<Listener> => user.listen({ resourcesListChanged: true }, { timeoutMs: EXPECTED_MS });
    return { sub, user, notebook, add, list, listen };
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
    const stolen = await bob.user.callTool("search_notes", { notebook_id: notebook, query: "" });
    expect(stolen.isError).toBe(true);
    const own = await alice.user.callTool("search_notes", { notebook_id: notebook, query: "" });
    expect(own.structuredContent.notes).toHaveLength(1);
  });

  it("tells the caller's listener that the list changed, and a fresh list shows the change", async () => {
    const alice = await signedIn("alice");
    const notebook = await alice.notebook();
    const listener = await alice.listen();

    const note = await alice.add(notebook, "Fresh");
    expect(await listener.next(EXPECTED_MS)).toMatchObject({ method: "notifications/resources/list_changed" });
    expect(noteUris(await alice.list())).toEqual([`note://${notebook}/${note}`]);

    await alice.user.callTool("update_note", { notebook_id: notebook, note_id: note, title: "Renamed" });
    expect(await listener.next(EXPECTED_MS)).toMatchObject({ method: "notifications/resources/list_changed" });
    expect((await alice.list()).find((entry) => entry.uri === `note://${notebook}/${note}`)?.name).toBe("Renamed");

    const deleted = await alice.user.callTool(
      "delete_note",
      { notebook_id: notebook, note_id: note },
      { answers: { confirm: accept({ delete: true }) } },
    );
    expect(deleted.content[0]!.text).toContain("Deleted note");
    expect(await listener.next(EXPECTED_MS)).toMatchObject({ method: "notifications/resources/list_changed" });
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
    const listener = await client.listen(
      { resourcesListChanged: true, resourceSubscriptions: [`note://${notebook}`] },
      { timeoutMs: EXPECTED_MS },
    );
    try {
      const added = await tool("add_note", { notebook_id: notebook, title: "Unlisted", body: "x" });
      await tool("update_note", { notebook_id: notebook, note_id: added.structuredContent.id, body: "y" });
      // Events of one principal reach its listeners in order: a list change would arrive before this update.
      expect(await listener.next(EXPECTED_MS)).toMatchObject({ method: "notifications/resources/updated" });
      const listed = await client.listResources();
      // The guide and the skill's SKILL.md (src/skills.ts): public, and no note.
      expect(listed.resources.map((resource) => resource.uri)).toEqual(["notes://guide", "skill://notebook-keeping/SKILL.md"]);
    } finally {
      await listener.close();
    }
  });
});

describe("notes example: listeners hear about note changes", () => {
  it("announces an updated note to listeners subscribed to it", async () => {
    const { notebook, ids } = await notebookWithNotes({ title: "t", body: "b" });
    const uri = `note://${notebook}/${ids[0]}`;
    const listener = await client.listen({ resourceSubscriptions: [uri] }, { timeoutMs: EXPECTED_MS });
    try {
      expect(listener.acknowledged).toEqual({ resourceSubscriptions: [uri] });
      await tool("update_note", { notebook_id: notebook, note_id: ids[0], body: "changed" });
      expect(await listener.next(EXPECTED_MS)).toMatchObject({ method: "notifications/resources/updated", params: { uri } });
    } finally {
      await listener.close();
    }
  });

  it("announces it on a 2025 session's GET stream after resources/subscribe", async () => {
    const { notebook, ids } = await notebookWithNotes({ title: "t", body: "b" });
    const uri = `note://${notebook}/${ids[0]}`;
    const legacy = await connect(fetchApp, { era: "2025" });
    const listener = await legacy.listen({ resourceSubscriptions: [uri] }, { timeoutMs: EXPECTED_MS });
    try {
      await tool("update_note", { notebook_id: notebook, note_id: ids[0], body: "changed" });
      expect(await listener.next(EXPECTED_MS)).toEqual({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri } });
    } finally {
      await legacy.close();
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
    const html = await (await fetchApp(new Request(new URL("/", MCP_URL)))).text();
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
