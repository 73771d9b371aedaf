/**
 * 2025-era clients against the running Worker: the v1 SDK client (@modelcontextprotocol/sdk 1.32.2, negotiates
 * 2025-11-25) and the v2 client (@modelcontextprotocol/client 2.4.0) in its `legacy` and `auto` modes.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, inject, it } from "vitest";
import { appBinds, EXAMPLE_TOOLS } from "./app-bindings";

/** What the app as configured offers 2025 clients: sessions need LEGACY_SESSIONS, notifications SUBSCRIPTIONS too. */
const sessions = appBinds("LEGACY_SESSIONS");
const notifications = sessions && appBinds("SUBSCRIPTIONS");

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

const url = () => new URL(inject("mcpUrl"));
const textOf = (result: any) => result.content.map((block: any) => block.text ?? "").join("\n");
/** A 2025 session id: a signed token (`v1.<kid>.<payload>.<mac>`). */
const SESSION_TOKEN = /^v2\.[A-Za-z0-9_-]{1,16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/;

/**
 * Reads the SSE stream `body` until it has carried an event id, then lets go of it: a session stream is primed with
 * one once it has joined its hubs.
 */
async function primed(body: ReadableStream<BufferSource>): Promise<void> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  try {
    while (!/^id:/m.test(text)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before it was primed:\n${text}`);
      text += value;
    }
  } finally {
    await reader.cancel();
  }
}

/**
 * The v1 client's fetch, watched: `listening` resolves once its session stream (its first GET) is primed, so that an
 * update published from then on reaches it; a later GET (the client reconnecting) waits for `reconnect()`. Why: how
 * long a join or a reconnection takes depends on the machine, which a pause cannot know.
 */
function watchedFetch() {
  let heard!: () => void;
  let allow!: () => void;
  const listening = new Promise<void>((resolve) => (heard = resolve));
  const reconnecting = new Promise<void>((resolve) => (allow = resolve));
  let streams = 0;
  const watched: typeof fetch = async (input, init) => {
    if (init?.method !== "GET") return fetch(input, init);
    const first = streams++ === 0;
    if (!first) await reconnecting;
    const response = await fetch(input, init);
    if (!response.ok || !response.body) return response;
    const [forClient, forTest] = response.body.tee();
    if (first) primed(forTest).then(heard, () => {});
    else void forTest.cancel();
    return new Response(forClient, response);
  };
  return { fetch: watched, listening, reconnect: allow };
}

/** The v1 client; declaring elicitation and sampling makes the server store its session at initialize. */
async function connectV1(interactive = true) {
  const client = new ClientV1({ name: "sdk-v1", version: "1.0.0" }, { capabilities: interactive ? { elicitation: {}, sampling: {} } : {} });
  const network = watchedFetch();
  const transport = new TransportV1(url(), { fetch: network.fetch });
  await client.connect(transport);
  closers.push(async () => {
    network.reconnect();
    await transport.terminateSession().catch(() => {});
    await client.close();
  });
  return { client, transport, listening: network.listening, reconnect: network.reconnect };
}

describe("@modelcontextprotocol/sdk 1.32.2 client (2025-11-25)", () => {
  it("negotiates 2025-11-25 and gets a session id on initialize, interactive or not", async () => {
    for (const interactive of [true, false]) {
      const { client, transport } = await connectV1(interactive);
      expect(transport.protocolVersion).toBe("2025-11-25");
      if (sessions) expect(transport.sessionId).toMatch(SESSION_TOKEN);
      else expect(transport.sessionId).toBeUndefined();
      const capabilities = client.getServerCapabilities();
      if (notifications) expect(capabilities).toMatchObject({ logging: {}, tools: { listChanged: true }, resources: { subscribe: true } });
      else expect(capabilities?.resources?.subscribe).toBeUndefined();
      // The example's tools are there (a fork's own added beside them are too: never "nothing else").
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(EXAMPLE_TOOLS));
    }
  });

  it.runIf(sessions)("receives log messages at the level it set, without declaring anything interactive", async () => {
    const { client } = await connectV1(false);
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      logs.push(notification.params);
    });
    await client.setLoggingLevel("debug");
    const created: any = await client.callTool({ name: "create_notebook", arguments: {} });
    const notebook = created.structuredContent.notebook_id;
    await client.callTool({ name: "add_note", arguments: { notebook_id: notebook, title: "Logged", body: "x" } });
    await client.callTool({ name: "summarize_notes", arguments: { notebook_id: notebook } });
    expect(logs).toEqual([{ level: "debug", logger: "summarize_notes", data: { read: 1, query: "" } }]);
  });

  it("lists and calls every plain tool, reads a resource, gets a prompt and completes a note id", async () => {
    const { client } = await connectV1(false);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("draft_note");
    const created: any = await client.callTool({ name: "create_notebook", arguments: {} });
    const notebook = created.structuredContent.notebook_id;
    const added: any = await client.callTool({ name: "add_note", arguments: { notebook_id: notebook, title: "Legacy", body: "Hello." } });
    const noteId = added.structuredContent.id;
    expect(
      ((await client.callTool({ name: "search_notes", arguments: { notebook_id: notebook, query: "hello" } })) as any).structuredContent
        .notes,
    ).toHaveLength(1);
    expect(
      ((await client.callTool({ name: "get_note", arguments: { notebook_id: notebook, note_id: noteId } })) as any).structuredContent.title,
    ).toBe("Legacy");
    await client.callTool({ name: "update_note", arguments: { notebook_id: notebook, note_id: noteId, tags: ["x"] } });
    expect(textOf(await client.callTool({ name: "summarize_notes", arguments: { notebook_id: notebook } }))).toContain("extractive");
    const resource = await client.readResource({ uri: `note://${notebook}/${noteId}` });
    expect(resource.contents[0]).toMatchObject({ text: expect.stringContaining("Hello.") });
    expect((await client.getPrompt({ name: "review_notes", arguments: { notebook_id: notebook } })).messages).toHaveLength(2);
    const completion = await client.complete({
      ref: { type: "ref/resource", uri: "note://{notebook_id}/{note_id}" },
      argument: { name: "note_id", value: "n_" },
      context: { arguments: { notebook_id: notebook } },
    });
    expect(completion.completion.values).toEqual([noteId]);
  });

  it.runIf(sessions)("answers an MRTR-style tool's elicitation and sampling as server-to-client requests", async () => {
    const { client } = await connectV1();
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(`elicit:${request.params.message.split("\n")[0]}`);
      const message = request.params.message;
      if (message.startsWith("Delete")) return { action: "accept", content: { delete: true } };
      if (message.startsWith("Save")) return { action: "accept", content: { title: "From v1", save: true } };
      return { action: "accept", content: { audience: "me", length: "short" } };
    });
    client.setRequestHandler(CreateMessageRequestSchema, async () => {
      asked.push("sample");
      return { role: "assistant", content: { type: "text", text: "Drafted by the v1 client's model." }, model: "v1-model" };
    });
    const created: any = await client.callTool({ name: "create_notebook", arguments: {} });
    const notebook = created.structuredContent.notebook_id;

    const drafted = await client.callTool({ name: "draft_note", arguments: { notebook_id: notebook, topic: "Legacy drafting" } });
    expect(textOf(drafted)).toMatch(/^Saved the draft as note n_/);
    expect(asked).toEqual([
      'elicit:Drafting a note about "Legacy drafting". Who is it for, and how long should it be?',
      "sample",
      "elicit:Save this draft?",
    ]);

    const saved: any = await client.callTool({ name: "search_notes", arguments: { notebook_id: notebook, query: "" } });
    const noteId = saved.structuredContent.notes[0].id;
    const deleted = await client.callTool({ name: "delete_note", arguments: { notebook_id: notebook, note_id: noteId } });
    expect(textOf(deleted)).toContain("Deleted note");
  });

  it.runIf(notifications)("subscribes to a note and receives its update on the session's stream, interactive or not", async () => {
    for (const interactive of [true, false]) {
      await subscribeAndWatch(interactive);
    }
  });

  async function subscribeAndWatch(interactive: boolean) {
    const { client, listening } = await connectV1(interactive);
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updates.push(notification.params.uri);
    });
    const created: any = await client.callTool({ name: "create_notebook", arguments: {} });
    const notebook = created.structuredContent.notebook_id;
    const added: any = await client.callTool({ name: "add_note", arguments: { notebook_id: notebook, title: "Watch me", body: "1" } });
    const uri = `note://${notebook}/${added.structuredContent.id}`;
    await client.subscribeResource({ uri });
    await listening;
    await client.callTool({ name: "update_note", arguments: { notebook_id: notebook, note_id: added.structuredContent.id, body: "2" } });
    await expect.poll(() => updates).toEqual([uri]);
  }

  it.runIf(sessions)("closes a session that stored nothing without error: its DELETE is 405, which the client accepts", async () => {
    const { transport } = await connectV1(false);
    expect(transport.sessionId).toMatch(SESSION_TOKEN);
    await transport.terminateSession();
    expect(transport.sessionId).toBeUndefined();
  });

  it.runIf(notifications)("resumes its notification stream with Last-Event-ID and gets what was published while it was away", async () => {
    const { client, transport, listening, reconnect } = await connectV1();
    const updates: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updates.push(notification.params.uri);
    });
    const created: any = await client.callTool({ name: "create_notebook", arguments: {} });
    const notebook = created.structuredContent.notebook_id;
    const added: any = await client.callTool({ name: "add_note", arguments: { notebook_id: notebook, title: "Away", body: "1" } });
    const uri = `note://${notebook}/${added.structuredContent.id}`;
    await client.subscribeResource({ uri });
    await listening;
    // A second GET for the session replaces the client's stream (one stream per session) once it has joined (is
    // primed); the client's reconnection is held until the update is published.
    const other = await fetch(url(), {
      headers: { accept: "text/event-stream", "mcp-session-id": transport.sessionId!, "mcp-protocol-version": "2025-11-25" },
    });
    await primed(other.body!);
    await client.callTool({ name: "update_note", arguments: { notebook_id: notebook, note_id: added.structuredContent.id, body: "2" } });
    expect(updates).toEqual([]);
    reconnect();
    await expect.poll(() => updates).toEqual([uri]);
  });

  it.runIf(sessions)("ends its session on close (DELETE); the session id is then unknown (a session stored at initialize)", async () => {
    const { transport } = await connectV1();
    const id = transport.sessionId!;
    await transport.terminateSession();
    const response = await fetch(url(), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": id,
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(response.status).toBe(404);
  });
});

describe("@modelcontextprotocol/client 2.4.0 in legacy and auto modes", () => {
  async function connectV2(mode: "legacy" | "auto") {
    const client = new Client(
      { name: `v2-${mode}`, version: "1.0.0" },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode } },
    );
    client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { delete: true } }));
    await client.connect(new StreamableHTTPClientTransport(url()));
    closers.push(() => client.close());
    return client;
  }

  it("legacy mode: uses the initialize handshake and still gets every example working", async () => {
    const client = await connectV2("legacy");
    expect(client.getProtocolEra()).toBe("legacy");
    const created: any = await client.callTool({ name: "create_notebook", arguments: {} });
    const notebook = created.structuredContent.notebook_id;
    const added: any = await client.callTool({ name: "add_note", arguments: { notebook_id: notebook, title: "v2 legacy", body: "x" } });
    const deleted = await client.callTool({
      name: "delete_note",
      arguments: { notebook_id: notebook, note_id: added.structuredContent.id },
    });
    // Without sessions the server cannot ask a 2025 client to confirm: the model is told why instead.
    expect(textOf(deleted)).toContain(sessions ? "Deleted" : "Connect with that client capability");
    expect((await client.readResource({ uri: "notes://guide" })).contents).toHaveLength(1);
  });

  it("auto mode: probes server/discover and settles on 2026-07-28", async () => {
    const client = await connectV2("auto");
    expect(client.getProtocolEra()).toBe("modern");
    const created: any = await client.callTool({ name: "create_notebook", arguments: {} });
    const notebook = created.structuredContent.notebook_id;
    const added: any = await client.callTool({ name: "add_note", arguments: { notebook_id: notebook, title: "v2 auto", body: "x" } });
    const remove = () =>
      client.callTool({ name: "delete_note", arguments: { notebook_id: notebook, note_id: added.structuredContent.id } });
    // The confirmation is single use: without REPLAY_GUARD it is refused, naming the binding.
    if (appBinds("REPLAY_GUARD")) expect(textOf(await remove())).toContain("Deleted");
    else await expect(remove()).rejects.toThrow(/REPLAY_GUARD/);
  });
});
