import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { meta, post, readMessage, send, testServer } from "../../helpers/rpc";
import { sseReader } from "../../helpers/sse";
import { expectError } from "../../helpers/wire";

type Json = Record<string, any>;
const BASE = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** A 2025-era POST: no _meta, the version header only when given (2025-03-26 clients send none). */
function legacy(body: unknown, version?: string, session?: string, extra: Record<string, string> = {}) {
  return post(body, {
    ...BASE,
    ...(version && { "mcp-protocol-version": version }),
    ...(session && { "mcp-session-id": session }),
    ...extra,
  });
}
const rpc = (method: string, params: Json = {}, id: number | string = 1) => ({ jsonrpc: "2.0", id, method, params });

async function initialize(capabilities: Json = {}, protocolVersion = "2025-11-25") {
  const response = await legacy(rpc("initialize", { protocolVersion, capabilities, clientInfo: { name: "legacy-test", version: "1" } }));
  return { response, message: await readMessage(response), session: response.headers.get("mcp-session-id") ?? undefined };
}

async function legacyCall(method: string, params: Json, version: string, session?: string) {
  return readMessage(await legacy(rpc(method, params), version, session));
}

describe("era detection", () => {
  it("answers initialize without a version header as a 2025 handshake, echoing a supported version", async () => {
    for (const version of ["2025-11-25", "2025-06-18", "2025-03-26"]) {
      const { message, session } = await initialize({}, version);
      expect(message.result).toMatchObject({ protocolVersion: version, serverInfo: { name: "mcp-notes-server" } });
      expect(message.result).not.toHaveProperty("resultType");
      expect(session).toBeUndefined();
    }
  });

  it("answers an unknown requested version with the newest 2025 revision", async () => {
    expect((await initialize({}, "2099-01-01")).message.result?.protocolVersion).toBe("2025-11-25");
  });

  it("keeps a stateless client stateless: no Mcp-Session-Id, no change notifications offered", async () => {
    const { message, session } = await initialize({});
    expect(session).toBeUndefined();
    expect(message.result?.capabilities).toEqual({ logging: {}, tools: {}, resources: {}, prompts: {}, completions: {} });
  });

  it("answers notifications/initialized with 202", async () => {
    const response = await legacy({ jsonrpc: "2.0", method: "notifications/initialized" }, "2025-11-25");
    expect(response.status).toBe(202);
  });

  it("serves a request with a 2025 version header and no _meta as that revision, without 2026 fields", async () => {
    const { result } = await legacyCall("tools/list", {}, "2025-06-18");
    expect(result).not.toHaveProperty("resultType");
    expect(result).not.toHaveProperty("ttlMs");
    expect(result).not.toHaveProperty("cacheScope");
    expect(result).not.toHaveProperty("_meta");
    expect(result?.tools[0]).toHaveProperty("outputSchema");
  });

  it("treats a request with neither header nor _meta as 2025-03-26 (no title, no outputSchema, no structuredContent)", async () => {
    const listed = await legacy(rpc("tools/list"));
    expect(listed.status).toBe(200);
    const { result } = await readMessage(listed);
    expect(result?.tools).toBeDefined();
    expect(result).not.toHaveProperty("resultType");
    expect(result?.tools[0]).not.toHaveProperty("title");
    expect(result?.tools[0]).not.toHaveProperty("outputSchema");
    const created = await readMessage(await legacy(rpc("tools/call", { name: "create_notebook", arguments: {} })));
    expect(created.result).not.toHaveProperty("structuredContent");
    expect(created.result?.content[0].text).toContain("notebook_id");
  });

  it("answers ping with an empty result", async () => {
    expect((await legacyCall("ping", {}, "2025-11-25")).result).toEqual({});
  });

  it("answers an unknown or modern-only method with -32601 in-band (HTTP 200)", async () => {
    for (const method of ["nope", "server/discover", "subscriptions/listen"]) {
      const response = await legacy(rpc(method), "2025-11-25");
      expect(response.status).toBe(200);
      expect((await readMessage(response)).error?.code).toBe(-32601);
    }
  });

  it("answers an unknown resource with -32002, as 2025 revisions expect", async () => {
    const message = await legacyCall("resources/read", { uri: "note://nb_AAAAAAAAAAAAAAAAAAAAAA/n_000000000000" }, "2025-11-25");
    expect(message.error).toEqual({
      code: -32002,
      message: "Resource not found",
      data: { uri: "note://nb_AAAAAAAAAAAAAAAAAAAAAA/n_000000000000" },
    });
  });

  it("turns away a 2025 client with -32022 and the supported versions when LEGACY_CLIENTS is off", async () => {
    const statelessOnly = testServer({}, { LEGACY_CLIENTS: "off" });
    const response = await statelessOnly.post(rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {} }), BASE);
    expect(response.status).toBe(400);
    expect((await readMessage(response)).error).toMatchObject({
      code: -32022,
      data: { supported: ["2026-07-28"], requested: "2025-11-25" },
    });
    // A request naming no version at all (a 2025-03-26 client) is refused the same way, the reference behaviour.
    const unversioned = await statelessOnly.post(rpc("tools/list", {}, 153), BASE);
    expect((await expectError(unversioned, 400, -32022, 153)).error?.data).toMatchObject({ supported: ["2026-07-28"] });
  });
});

describe("2025-03-26 batches", () => {
  it("answers a batch with an array of responses, skipping notifications", async () => {
    const batch = [
      rpc("ping", {}, 1),
      { jsonrpc: "2.0", method: "notifications/initialized" },
      rpc("tools/list", {}, 2),
      { jsonrpc: "1.0", id: 3 },
    ];
    const response = await legacy(batch);
    expect(response.status).toBe(200);
    const answers = (await response.json()) as Json[];
    expect(answers.map((answer) => answer.id)).toEqual([1, 2, 3]);
    expect(answers[0]!.result).toEqual({});
    expect(answers[1]!.result.tools).toBeDefined();
    expect(answers[2]!.error.code).toBe(-32600);
  });

  it("answers a batch of notifications only with 202", async () => {
    expect((await legacy([{ jsonrpc: "2.0", method: "notifications/initialized" }])).status).toBe(202);
  });

  it("refuses initialize inside a batch", async () => {
    const answers = (await (await legacy([rpc("initialize", { protocolVersion: "2025-03-26", capabilities: {} })])).json()) as Json[];
    expect(answers[0]!.error.code).toBe(-32600);
  });

  it("refuses empty, oversized and post-2025-03-26 batches with 400 and -32600", async () => {
    for (const response of [
      await legacy([]),
      await legacy(Array.from({ length: 51 }, (_, i) => rpc("ping", {}, i))),
      await legacy([rpc("ping")], "2025-06-18"),
    ]) {
      expect(response.status).toBe(400);
      expect((await readMessage(response)).error?.code).toBe(-32600);
    }
  });
});

describe("legacy sessions", () => {
  it("mints a visible-ASCII session id when the client declares elicitation, sampling or roots", async () => {
    for (const capabilities of [{ elicitation: {} }, { sampling: {} }, { roots: { listChanged: true } }]) {
      const { session, message } = await initialize(capabilities);
      expect(session).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(message.result?.capabilities).toMatchObject({
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
      });
    }
  });

  it("mints a session on demand for logging/setLevel and resources/subscribe", async () => {
    const setLevel = await legacy(rpc("logging/setLevel", { level: "debug" }), "2025-11-25");
    expect(setLevel.headers.get("mcp-session-id")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await readMessage(setLevel)).result).toEqual({});
    const subscribe = await legacy(rpc("resources/subscribe", { uri: "note://x" }), "2025-11-25");
    expect(subscribe.headers.get("mcp-session-id")).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("answers an unknown or malformed session id with 404", async () => {
    for (const id of ["A".repeat(43), "not-a-session", "x"]) {
      const response = await legacy(rpc("tools/list"), "2025-11-25", id);
      expect(response.status).toBe(404);
    }
  });

  it("ends a session on DELETE; later requests get 404", async () => {
    const { session } = await initialize({ elicitation: {} });
    expect((await legacy(rpc("ping"), "2025-11-25", session)).status).toBe(200);
    const deleted = await exports.default.fetch("http://localhost:8787/mcp", { method: "DELETE", headers: { "mcp-session-id": session! } });
    expect(deleted.status).toBe(204);
    expect((await legacy(rpc("ping"), "2025-11-25", session)).status).toBe(404);
  });

  it("expires an idle session", async () => {
    const { session } = await initialize({ sampling: {} });
    const stub = env.LEGACY_SESSIONS.getByName(session!);
    await runInDurableObject(stub, async (_instance, state) => {
      const stored = (await state.storage.get<Json>("session"))!;
      await state.storage.put("session", { ...stored, lastSeen: Date.now() - stored.idleMs - 1 });
    });
    expect((await legacy(rpc("ping"), "2025-11-25", session)).status).toBe(404);
  });

  it("answers GET and DELETE without a session with 405", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await exports.default.fetch("http://localhost:8787/mcp", { method, headers: { accept: "text/event-stream" } });
      expect(response.status).toBe(405);
    }
  });

  it("leaves a 2026-07-28 request carrying a session id unaffected, whatever the id", async () => {
    const { session } = await initialize({ elicitation: {} });
    for (const id of [session!, "bogus"]) {
      const response = await send("tools/list", {}, { headers: { "mcp-session-id": id } });
      expect(response.status).toBe(200);
      expect(response.headers.get("mcp-session-id")).toBeNull();
      expect((await readMessage(response)).result).toHaveProperty("resultType", "complete");
    }
  });

  it("sends an MRTR-style tool's question as a server-to-client request and completes on the same stream", async () => {
    const { session } = await initialize({ elicitation: {} });
    const create = await legacyCall("tools/call", { name: "create_notebook", arguments: {} }, "2025-11-25", session);
    const notebook = JSON.parse(create.result?.content[0].text).notebook_id;
    const add = await legacyCall(
      "tools/call",
      { name: "add_note", arguments: { notebook_id: notebook, title: "Old", body: "x" } },
      "2025-11-25",
      session,
    );
    const noteId = add.result?.structuredContent.id;

    const response = await legacy(
      rpc("tools/call", { name: "delete_note", arguments: { notebook_id: notebook, note_id: noteId } }, 77),
      "2025-11-25",
      session,
    );
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const stream = sseReader(response);
    const question = (await stream.message()) as Json;
    expect(question).toMatchObject({
      jsonrpc: "2.0",
      method: "elicitation/create",
      params: { message: 'Delete the note "Old"? This cannot be undone.' },
    });
    expect(question.params).not.toHaveProperty("mode");
    const answered = await legacy(
      { jsonrpc: "2.0", id: question.id, result: { action: "accept", content: { delete: true } } },
      "2025-11-25",
      session,
    );
    expect(answered.status).toBe(202);
    expect(await stream.message()).toMatchObject({
      id: 77,
      result: { content: [{ type: "text", text: expect.stringContaining("Deleted note") }] },
    });
  });

  it("reports a tool that needs input as a tool error to a client without a session", async () => {
    const create = await legacyCall("tools/call", { name: "create_notebook", arguments: {} }, "2025-11-25");
    const notebook = JSON.parse(create.result?.content[0].text).notebook_id;
    const drafted = await legacyCall("tools/call", { name: "draft_note", arguments: { notebook_id: notebook, topic: "x" } }, "2025-11-25");
    expect(drafted.result).toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining("Missing required client capability: elicitation.form") }],
    });
  });

  it("streams log messages at the session's level on the tool call's stream", async () => {
    const setLevel = await legacy(rpc("logging/setLevel", { level: "debug" }), "2025-11-25");
    const session = setLevel.headers.get("mcp-session-id")!;
    const create = await legacyCall("tools/call", { name: "create_notebook", arguments: {} }, "2025-11-25", session);
    const notebook = JSON.parse(create.result?.content[0].text).notebook_id;
    await legacyCall(
      "tools/call",
      { name: "add_note", arguments: { notebook_id: notebook, title: "a", body: "b" } },
      "2025-11-25",
      session,
    );
    const response = await legacy(
      rpc("tools/call", { name: "summarize_notes", arguments: { notebook_id: notebook } }),
      "2025-11-25",
      session,
    );
    const stream = sseReader(response);
    expect(await stream.message()).toMatchObject({
      method: "notifications/message",
      params: { level: "debug", logger: "summarize_notes" },
    });
  });

  it("delivers resources/updated for a subscribed note on the session's GET stream", async () => {
    const { session } = await initialize({ sampling: {} });
    const create = await legacyCall("tools/call", { name: "create_notebook", arguments: {} }, "2025-11-25", session);
    const notebook = JSON.parse(create.result?.content[0].text).notebook_id;
    const add = await legacyCall(
      "tools/call",
      { name: "add_note", arguments: { notebook_id: notebook, title: "a", body: "b" } },
      "2025-11-25",
      session,
    );
    const uri = `note://${notebook}/${add.result?.structuredContent.id}`;

    const stream = sseReader(
      await exports.default.fetch("http://localhost:8787/mcp", {
        headers: { accept: "text/event-stream", "mcp-session-id": session!, "mcp-protocol-version": "2025-11-25" },
      }),
    );
    expect(await stream.frame()).toEqual({ comment: "listening" });
    // Subscribing after the stream opened updates its filter in place.
    expect((await legacyCall("resources/subscribe", { uri }, "2025-11-25", session)).result).toEqual({});
    await legacyCall(
      "tools/call",
      { name: "update_note", arguments: { notebook_id: notebook, note_id: add.result?.structuredContent.id, body: "c" } },
      "2025-11-25",
      session,
    );
    expect(await stream.message()).toEqual({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri } });
    await legacyCall("resources/unsubscribe", { uri }, "2025-11-25", session);
    await legacyCall(
      "tools/call",
      { name: "update_note", arguments: { notebook_id: notebook, note_id: add.result?.structuredContent.id, body: "d" } },
      "2025-11-25",
      session,
    );
    expect(await stream.message(300)).toBe("timeout");
    await stream.cancel();
  });

  it("never uses a session for modern requests: _meta decides the era even with Mcp-Session-Id", async () => {
    const { session } = await initialize({ elicitation: {} });
    const body = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { _meta: meta(), protocolVersion: "2025-11-25", capabilities: {} },
    };
    const response = await post(body, {
      ...BASE,
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "initialize",
      "mcp-session-id": session!,
    });
    expect(response.status).toBe(404);
    expect((await readMessage(response)).error?.code).toBe(-32601);
  });
});
