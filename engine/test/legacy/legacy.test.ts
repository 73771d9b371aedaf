import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type Config, parseConfig } from "../../src/config/config";
import { keyRing } from "../../src/config/key-ring";
import { seal } from "../../src/config/signing";
import { newSession } from "../../src/legacy/session-token";
import { FIXTURE, valueUri } from "../helpers/fixture";
import { fixture, meta, post, readMessage, readSse, send, sessionName, testServer } from "../helpers/rpc";
import { sseReader } from "../helpers/sse";
import { expectError } from "../helpers/wire";
import { sessionStreamAttached } from "../hub-groups";

type Json = Record<string, any>;
const BASE = { "content-type": "application/json", accept: "application/json, text/event-stream" };
/** A 2025 session id: a signed token (`v2.<kid>.<payload>.<mac>`), visible ASCII. */
const SESSION_TOKEN = /^v2\.[A-Za-z0-9_-]{1,16}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/;

/**
 * A LEGACY_SESSIONS namespace that records every call made on a session's Durable Object, so tests can say when
 * storage is touched without timing anything.
 */
function recordingSessions() {
  const calls: string[] = [];
  const namespace = {
    getByName(name: string) {
      const stub = env.LEGACY_SESSIONS.getByName(name) as unknown as Record<string, (...args: unknown[]) => unknown>;
      return new Proxy(
        {},
        {
          get: (_target, method) =>
            method === "then"
              ? undefined
              : (...args: unknown[]) => {
                  calls.push(String(method));
                  return stub[String(method)]!(...args);
                },
        },
      );
    },
  };
  return { calls, namespace: namespace as unknown as string };
}

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
      expect(message.result).toMatchObject({ protocolVersion: version, serverInfo: { name: FIXTURE.name } });
      expect(message.result).not.toHaveProperty("resultType");
      expect(session).toMatch(SESSION_TOKEN);
    }
  });

  it("answers an unknown requested version with the newest 2025 revision", async () => {
    expect((await initialize({}, "2099-01-01")).message.result?.protocolVersion).toBe("2025-11-25");
  });

  it("gives every client a session id on the initialize response when the Worker has LEGACY_SESSIONS, and offers it everything", async () => {
    const { message, session } = await initialize({});
    expect(session).toMatch(SESSION_TOKEN);
    expect(message.result?.capabilities).toEqual({
      logging: {},
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
    });
  });

  it("without LEGACY_SESSIONS: no session id, neither logging nor subscriptions nor change notifications offered, and their methods are -32601", async () => {
    const sessionless = testServer(FIXTURE, { LEGACY_SESSIONS: undefined as unknown as string });
    const init = rpc("initialize", { protocolVersion: "2025-11-25", capabilities: { elicitation: {} } });
    const response = await sessionless.post(init, BASE);
    expect(response.headers.get("mcp-session-id")).toBeNull();
    expect((await readMessage(response)).result?.capabilities).toEqual({ tools: {}, resources: {}, prompts: {}, completions: {} });
    for (const [method, params] of [
      ["logging/setLevel", { level: "debug" }],
      ["resources/subscribe", { uri: valueUri("a") }],
    ] as const) {
      const answer = await sessionless.post(rpc(method, params), { ...BASE, "mcp-protocol-version": "2025-11-25" });
      expect(answer.headers.get("mcp-session-id")).toBeNull();
      expect((await readMessage(answer)).error?.code).toBe(-32601);
    }
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
    const echoed = await readMessage(await legacy(rpc("tools/call", { name: "echo", arguments: { text: "hi" } })));
    expect(echoed.result).not.toHaveProperty("structuredContent");
    expect(JSON.parse(echoed.result?.content[0].text)).toMatchObject({ text: "hi" });
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
    const message = await legacyCall("resources/read", { uri: valueUri("never-stored") }, "2025-11-25");
    expect(message.error).toEqual({ code: -32002, message: "Resource not found", data: { uri: valueUri("never-stored") } });
  });

  it("turns away a 2025 client with -32022 and the supported versions when legacyClients is off", async () => {
    const statelessOnly = testServer({ legacyClients: false });
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
  it("gives a client that declares elicitation, sampling or roots a visible-ASCII session id", async () => {
    for (const capabilities of [{ elicitation: {} }, { sampling: {} }, { roots: { listChanged: true } }]) {
      const { session, message } = await initialize(capabilities);
      expect(session).toMatch(SESSION_TOKEN);
      expect(message.result?.capabilities).toMatchObject({
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
      });
    }
  });

  it("assigns a session id on the initialize response only: logging/setLevel and resources/subscribe without one are refused, not given one", async () => {
    for (const body of [rpc("logging/setLevel", { level: "debug" }), rpc("resources/subscribe", { uri: valueUri("x") })]) {
      const response = await legacy(body, "2025-11-25");
      expect(response.headers.get("mcp-session-id")).toBeNull();
      expect((await readMessage(response)).error).toMatchObject({ code: -32600, message: expect.stringContaining("Mcp-Session-Id") });
    }
  });

  it("serves a 2025-11-25 session's request whose MCP-Protocol-Version names another served revision (2025-03-26) in the session's own revision, as the official SDK does; a revision the server does not serve is 400", async () => {
    const { session } = await initialize({});
    // Accepted on purpose: the spec asks the client to send the negotiated revision (SHOULD) and the server to refuse
    // only an invalid or unsupported one (MUST, 400); @modelcontextprotocol/sdk checks the header against the served
    // revisions only. The session decides the shapes: 2025-11-25 keeps the tool's title, which 2025-03-26 lacks.
    const older = await readMessage(await legacy(rpc("tools/list", {}, "older"), "2025-03-26", session));
    expect(older).toMatchObject({ id: "older", result: { tools: expect.arrayContaining([expect.objectContaining({ title: "Echo" })]) } });
    const batch = await legacy([rpc("ping", {}, "in-batch")], "2025-03-26", session);
    expect(await readMessage(batch)).toMatchObject({
      error: { code: -32600, message: "Invalid Request: batches are not part of 2025-11-25" },
    });
    await expectError(await legacy(rpc("tools/list", {}, "unserved"), "1900-01-01", session), 400, -32022, "unserved");
  });

  it("answers an unknown, forged or malformed session id with 404 without touching storage", async () => {
    const { calls, namespace } = recordingSessions();
    const recorded = testServer(FIXTURE, { LEGACY_SESSIONS: namespace });
    const { session } = await initialize({});
    const [version, kid, payload, mac] = session!.split(".");
    const forged = [version, kid, payload, `${mac!.slice(0, 42)}${mac!.endsWith("A") ? "Q" : "A"}`].join(".");
    for (const id of ["A".repeat(43), "not-a-session", "x", forged]) {
      const response = await recorded.post(rpc("tools/list"), { ...BASE, "mcp-protocol-version": "2025-11-25", "mcp-session-id": id });
      expect(response.status).toBe(404);
    }
    expect(calls).toEqual([]);
  });

  it("answers an expired session id, or a token signed for another purpose, with 404", async () => {
    const config = (parseConfig(env as unknown as Record<string, unknown>) as { config: Config }).config;
    const lifetime = config.limits.sessions.lifetimeMs;
    const expired = await newSession(config, "anonymous", "2025-11-25", false, Date.now() - lifetime - 1);
    const live = await newSession(config, "anonymous", "2025-11-25", false);
    const otherPurpose = await seal(await keyRing(config), {
      purpose: "mcp.requestState",
      bind: { principal: "anonymous" },
      ttlMs: 60_000,
      body: live.claims,
    });
    for (const id of [expired.token, otherPurpose]) expect((await legacy(rpc("ping"), "2025-11-25", id)).status).toBe(404);
    expect((await legacy(rpc("ping"), "2025-11-25", live.token)).status).toBe(200);
  });

  it("ends a stored session when its id expires, even while it is in use", async () => {
    const { session } = await initialize({ elicitation: {} });
    await runInDurableObject(env.LEGACY_SESSIONS.getByName(sessionName(session!)), async (_instance, state) => {
      const stored = (await state.storage.get<Json>("session"))!;
      await state.storage.put("session", { ...stored, lastSeen: Date.now(), expiresAt: Date.now() - 1 });
    });
    expect((await legacy(rpc("ping"), "2025-11-25", session)).status).toBe(404);
  });

  it("stores the level of a session that stored nothing at initialize on first use, for as long as its id lives", async () => {
    const { session } = await initialize({});
    await legacyCall("logging/setLevel", { level: "warning" }, "2025-11-25", session);
    const expiresAt = JSON.parse(new TextDecoder().decode(Uint8Array.fromBase64(session!.split(".")[2]!, { alphabet: "base64url" }))).e;
    await runInDurableObject(env.LEGACY_SESSIONS.getByName(sessionName(session!)), async (_instance, state) => {
      expect(await state.storage.get("session")).toMatchObject({ logLevel: "warning", principal: "anonymous", expiresAt });
      expect(await state.storage.getAlarm()).toBe(expiresAt);
    });
  });

  it("ends a session on DELETE; later requests get 404", async () => {
    const { session } = await initialize({ elicitation: {} });
    expect((await legacy(rpc("ping"), "2025-11-25", session)).status).toBe(200);
    const deleted = await fixture.fetch("http://localhost:8787/mcp", { method: "DELETE", headers: { "mcp-session-id": session! } });
    expect(deleted.status).toBe(204);
    expect((await legacy(rpc("ping"), "2025-11-25", session)).status).toBe(404);
  });

  it("expires an idle session", async () => {
    const { session } = await initialize({ sampling: {} });
    const stub = env.LEGACY_SESSIONS.getByName(sessionName(session!));
    await runInDurableObject(stub, async (_instance, state) => {
      const stored = (await state.storage.get<Json>("session"))!;
      await state.storage.put("session", { ...stored, lastSeen: Date.now() - stored.idleMs - 1 });
    });
    expect((await legacy(rpc("ping"), "2025-11-25", session)).status).toBe(404);
  });

  it("answers GET and DELETE without a session with 405", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await fixture.fetch("http://localhost:8787/mcp", { method, headers: { accept: "text/event-stream" } });
      expect(response.status).toBe(405);
    }
  });

  it("leaves a 2026-07-28 request carrying a session id unaffected, whatever the id", async () => {
    const { session } = await initialize({ elicitation: {} });
    const { session: tokenOnly } = await initialize({});
    for (const id of [session!, tokenOnly!, "bogus"]) {
      const response = await send("tools/list", {}, { headers: { "mcp-session-id": id } });
      expect(response.status).toBe(200);
      expect(response.headers.get("mcp-session-id")).toBeNull();
      expect((await readMessage(response)).result).toHaveProperty("resultType", "complete");
    }
  });

  it("sends an MRTR-style tool's question as a server-to-client request and completes on the same stream", async () => {
    const { session } = await initialize({ elicitation: {} });
    const response = await legacy(rpc("tools/call", { name: "ask", arguments: { kind: "form" } }, 77), "2025-11-25", session);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const stream = sseReader(response);
    const question = (await stream.message()) as Json;
    expect(question).toMatchObject({ jsonrpc: "2.0", method: "elicitation/create", params: { message: "Proceed?" } });
    expect(question.params).not.toHaveProperty("mode");
    const answered = await legacy(
      { jsonrpc: "2.0", id: question.id, result: { action: "accept", content: { ok: true } } },
      "2025-11-25",
      session,
    );
    expect(answered.status).toBe(202);
    expect(await stream.message()).toMatchObject({ id: 77, result: { content: [{ type: "text", text: "form: accept ok=true" }] } });
  });

  it("asks each kind of question with its 2025 request on the call's stream, and the tool gets the answer", async () => {
    const { session } = await initialize({ elicitation: { form: {}, url: {} }, sampling: {}, roots: {} });
    const cases: [string, Json, Json, string][] = [
      [
        "form",
        { method: "elicitation/create", params: { message: "Proceed?" } },
        { action: "accept", content: { ok: true } },
        "form: accept ok=true",
      ],
      [
        "url",
        { method: "elicitation/create", params: { mode: "url", url: "https://example.com/sign-in", elicitationId: expect.any(String) } },
        { action: "accept" },
        "url: accept",
      ],
      [
        "sampling",
        { method: "sampling/createMessage", params: { maxTokens: 10 } },
        { role: "assistant", content: { type: "text", text: "yes" }, model: "test-model" },
        "sampling: yes",
      ],
      ["roots", { method: "roots/list" }, { roots: [{ uri: "file:///work" }] }, "roots: 1"],
    ];
    for (const [kind, asked, answer, reported] of cases) {
      const stream = sseReader(await legacy(rpc("tools/call", { name: "ask", arguments: { kind } }, kind), "2025-11-25", session));
      const question = (await stream.message()) as Json;
      expect(question, kind).toMatchObject({ jsonrpc: "2.0", id: expect.any(String), ...asked });
      expect((await legacy({ jsonrpc: "2.0", id: question.id, result: answer }, "2025-11-25", session)).status).toBe(202);
      expect(await stream.message(), kind).toMatchObject({ id: kind, result: { content: [{ type: "text", text: reported }] } });
    }
  });

  it("reports a tool that needs input as a tool error to a client without a session, or one that declared nothing", async () => {
    const { session: tokenOnly } = await initialize({});
    for (const session of [undefined, tokenOnly]) {
      const asked = await legacyCall("tools/call", { name: "ask", arguments: { kind: "form" } }, "2025-11-25", session);
      expect(asked.result).toMatchObject({
        isError: true,
        content: [{ text: expect.stringContaining("Missing required client capability: elicitation.form") }],
      });
    }
  });

  it("streams log messages at the level a client that declared nothing set with logging/setLevel, on the tool call's stream", async () => {
    const { session } = await initialize({});
    expect((await legacyCall("logging/setLevel", { level: "debug" }, "2025-11-25", session)).result).toEqual({});
    const stream = sseReader(await legacy(rpc("tools/call", { name: "log", arguments: {} }), "2025-11-25", session));
    expect(await stream.message()).toMatchObject({ method: "notifications/message", params: { level: "debug", logger: "log" } });
  });

  it("sends a session no log message before logging/setLevel, and none below the level it set", async () => {
    const server = testServer(FIXTURE);
    const headers = (session: string) => ({ ...BASE, "mcp-protocol-version": "2025-11-25", "mcp-session-id": session });
    const init = await server.post(rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {} }), BASE);
    const session = init.headers.get("mcp-session-id")!;
    const before = await server.post(rpc("tools/call", { name: "log", arguments: {} }), headers(session));
    expect(before.headers.get("content-type")).toContain("application/json");
    await server.post(rpc("logging/setLevel", { level: "info" }), headers(session));
    const after = await readSse(await server.post(rpc("tools/call", { name: "log", arguments: {} }), headers(session)));
    expect(after.map((message) => (message.params as Json | undefined)?.level ?? "result")).toEqual(["info", "warning", "result"]);
  });

  it("touches no Durable Object for a session that stored nothing until it uses a stateful feature or a handler writes a log", async () => {
    const { calls, namespace } = recordingSessions();
    const server = testServer(FIXTURE, { LEGACY_SESSIONS: namespace });
    const init = await server.post(rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {} }), BASE);
    const session = init.headers.get("mcp-session-id")!;
    expect(session).toMatch(SESSION_TOKEN);
    const headers = { ...BASE, "mcp-protocol-version": "2025-11-25", "mcp-session-id": session };
    for (const method of ["ping", "tools/list", "resources/list"]) await readMessage(await server.post(rpc(method), headers));
    await readMessage(await server.post(rpc("tools/call", { name: "echo", arguments: {} }), headers));
    await readMessage(await server.post(rpc("resources/read", { uri: "fixture://readme" }), headers));
    expect(calls).toEqual([]);
    // A handler's log message needs the level the client may have set since: one read, for that request.
    await readMessage(await server.post(rpc("tools/call", { name: "log", arguments: {} }), headers));
    expect(calls).toHaveLength(1);
  });

  it("reads a session stored at initialize (the client can be asked things) once per request", async () => {
    const { calls, namespace } = recordingSessions();
    const server = testServer(FIXTURE, { LEGACY_SESSIONS: namespace });
    const init = await server.post(rpc("initialize", { protocolVersion: "2025-11-25", capabilities: { elicitation: {} } }), BASE);
    const session = init.headers.get("mcp-session-id")!;
    const opened = calls.length;
    expect(opened).toBeGreaterThan(0);
    const headers = { ...BASE, "mcp-protocol-version": "2025-11-25", "mcp-session-id": session };
    await readMessage(await server.post(rpc("tools/call", { name: "log", arguments: {} }), headers));
    expect(calls.slice(opened)).toEqual(["load"]);
  });

  it("answers DELETE of a session that stored nothing at initialize with 405; the session keeps working", async () => {
    const { session } = await initialize({});
    const deleted = await fixture.fetch("http://localhost:8787/mcp", { method: "DELETE", headers: { "mcp-session-id": session! } });
    expect(deleted.status).toBe(405);
    expect((await legacy(rpc("ping"), "2025-11-25", session)).status).toBe(200);
  });

  it("opens the GET stream of a client that declared nothing, and delivers resources/updated once it subscribes", async () => {
    const { session } = await initialize({});
    const uri = valueUri("declared-nothing");
    expect((await legacyCall("resources/subscribe", { uri }, "2025-11-25", session)).result).toEqual({});
    const stream = sseReader(
      await fixture.fetch("http://localhost:8787/mcp", {
        headers: { accept: "text/event-stream", "mcp-session-id": session!, "mcp-protocol-version": "2025-11-25" },
      }),
    );
    expect(await stream.frame()).toEqual({ comment: "listening" });
    await sessionStreamAttached(session!);
    await legacyCall("tools/call", { name: "publish", arguments: { what: "updated", uri } }, "2025-11-25", session);
    expect(await stream.message()).toEqual({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri } });
    await stream.cancel();
  });

  it("reads the GET stream's Accept as the POST checks do: text/* opens it, a refused (q=0) event stream is 406", async () => {
    const { session } = await initialize({});
    const open = (accept: string) =>
      fixture.fetch("http://localhost:8787/mcp", {
        headers: { accept, "mcp-session-id": session!, "mcp-protocol-version": "2025-11-25" },
      });
    const refused = await open("text/event-stream;q=0, application/json");
    expect(refused.status).toBe(406);
    await refused.arrayBuffer();
    const stream = sseReader(await open("text/*"));
    expect(await stream.frame()).toEqual({ comment: "listening" });
    await stream.cancel();
  });

  it("advertises logging and resources.subscribe exactly where logging/setLevel and resources/subscribe are served, in every binding set", async () => {
    for (const [label, vars] of [
      ["all bindings", {}],
      ["no SUBSCRIPTIONS", { SUBSCRIPTIONS: undefined }],
      ["no LEGACY_SESSIONS", { LEGACY_SESSIONS: undefined }],
      ["neither", { SUBSCRIPTIONS: undefined, LEGACY_SESSIONS: undefined }],
    ] as const) {
      const server = testServer(FIXTURE, vars as unknown as Record<string, string>);
      for (const capabilities of [{}, { elicitation: {} }]) {
        const init = await server.post(rpc("initialize", { protocolVersion: "2025-11-25", capabilities }), BASE);
        const session = init.headers.get("mcp-session-id");
        const offered = (await readMessage(init)).result?.capabilities;
        const headers = { ...BASE, "mcp-protocol-version": "2025-11-25", ...(session && { "mcp-session-id": session }) };
        const subscribed = await readMessage(await server.post(rpc("resources/subscribe", { uri: valueUri("a") }), headers));
        const levelSet = await readMessage(await server.post(rpc("logging/setLevel", { level: "info" }), headers));
        const context = `${label}, ${JSON.stringify(capabilities)}`;
        expect(subscribed.result !== undefined, context).toBe(offered?.resources?.subscribe === true);
        expect(levelSet.result !== undefined, context).toBe(offered?.logging !== undefined);
      }
    }
  });

  it("delivers resources/updated for a subscribed resource on the session's GET stream", async () => {
    const { session } = await initialize({ sampling: {} });
    const uri = valueUri("subscribed");
    const update = () => legacyCall("tools/call", { name: "publish", arguments: { what: "updated", uri } }, "2025-11-25", session);

    const stream = sseReader(
      await fixture.fetch("http://localhost:8787/mcp", {
        headers: { accept: "text/event-stream", "mcp-session-id": session!, "mcp-protocol-version": "2025-11-25" },
      }),
    );
    expect(await stream.frame()).toEqual({ comment: "listening" });
    // Subscribing after the stream opened updates its filter in place.
    expect((await legacyCall("resources/subscribe", { uri }, "2025-11-25", session)).result).toEqual({});
    await update();
    expect(await stream.message()).toEqual({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri } });
    await legacyCall("resources/unsubscribe", { uri }, "2025-11-25", session);
    await update();
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
