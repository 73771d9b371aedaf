/**
 * The test client as a 2025 client, against the engine's fixture server: the initialize handshake and the session
 * id, the server's questions answered by POSTing responses while the call waits on its stream, a question nothing
 * answers (the call is cancelled), the older revisions, the GET stream after resources/subscribe, and DELETE.
 */
import { describe, expect, it } from "vitest";
import { accept, connect, McpClientError, McpHttpError, type Question, roots, sampled } from "../../src/testing";
import { FIXTURE, valueUri } from "../helpers/fixture";
import { testServer } from "../helpers/rpc";
import { withLogs } from "../helpers/wire";
import { clientFixture, recording } from "./recording";

const server = clientFixture.fetch;

describe("the test client on 2025: the handshake", () => {
  it("initializes without a version header, sends notifications/initialized, then the version and session on every request", async () => {
    const wire = recording(server);
    const client = await connect(wire.fetch, { era: "2025" });
    expect(client.version).toBe("2025-11-25");
    expect(client.sessionId).toMatch(/^v2\./);
    expect(client.initializeResult).toMatchObject({ protocolVersion: "2025-11-25", serverInfo: { name: "engine-fixture" } });
    const [initialize, initialized] = wire.sent;
    expect(initialize!.body).toMatchObject({
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} } },
    });
    expect(initialize!.headers).not.toHaveProperty("mcp-protocol-version");
    expect(initialize!.headers).not.toHaveProperty("mcp-session-id");
    expect(initialized!.body).toEqual({ jsonrpc: "2.0", method: "notifications/initialized" });
    expect(initialized!.headers).toMatchObject({ "mcp-protocol-version": "2025-11-25", "mcp-session-id": client.sessionId });

    const result = await client.callTool("echo", { text: "hi" });
    expect(result).not.toHaveProperty("resultType");
    const call = wire.posted("tools/call")[0]!;
    expect(call.body!.params).toEqual({ name: "echo", arguments: { text: "hi" } });
    expect(call.headers).toMatchObject({ "mcp-protocol-version": "2025-11-25", "mcp-session-id": client.sessionId });
    expect(call.headers).not.toHaveProperty("mcp-method");
  });

  it("negotiates an older 2025 revision when asked: 2025-06-18 offers forms only, 2025-03-26 sends no version header", async () => {
    const wire = recording(server);
    const june = await connect(wire.fetch, { era: "2025", version: "2025-06-18" });
    expect(june.initializeResult?.protocolVersion).toBe("2025-06-18");
    expect(wire.posted("initialize")[0]!.body!.params.capabilities).toEqual({ elicitation: {}, sampling: {}, roots: {} });
    const march = await connect(wire.fetch, { era: "2025", version: "2025-03-26", onSample: () => sampled("yes") });
    expect((await march.callTool("ask", { kind: "sampling" })).content[0]!.text).toBe("sampling: yes");
    for (const request of wire.sent.slice(wire.sent.findLastIndex((sent) => sent.body?.method === "initialize"))) {
      expect(request.headers).not.toHaveProperty("mcp-protocol-version");
    }
  });

  it("refuses options that do not fit the era", async () => {
    await expect(connect(server, { version: "2025-06-18" })).rejects.toMatchObject({ kind: "usage" });
    await expect(connect(server, { era: "2025", version: "2024-11-05" as never })).rejects.toMatchObject({ kind: "usage" });
    const client = await connect(server, { era: "2025" });
    await expect(client.startTask("echo")).rejects.toMatchObject({ kind: "usage" });
    await expect(client.callTool("echo", {}, { logLevel: "info" })).rejects.toMatchObject({ kind: "usage" });
  });
});

describe("the test client on 2025: the server's questions", () => {
  it("answers each kind of question the server sends on the call's stream, by POSTing the response its handler returns", async () => {
    const wire = recording(server);
    const asked: Question[] = [];
    const client = await connect(wire.fetch, {
      era: "2025",
      onElicit: (params, question) => {
        asked.push(question);
        return params.mode === "url" ? accept() : accept({ ok: true });
      },
      onSample: () => sampled("yes"),
      onRoots: () => roots("file:///work"),
    });
    const reported = async (kind: string) => (await client.callTool("ask", { kind })).content[0]!.text;
    expect(await reported("form")).toBe("form: accept ok=true");
    expect(await reported("url")).toBe("url: accept");
    expect(await reported("sampling")).toBe("sampling: yes");
    expect(await reported("roots")).toBe("roots: 1");
    // 2025 questions carry no key, and 2025-11-25 URL elicitations an elicitationId.
    expect(asked[0]).toMatchObject({ method: "elicitation/create", params: { message: "Proceed?" }, round: 1, asker: "tools/call ask" });
    expect(asked[0]).not.toHaveProperty("key");
    expect(asked[1]!.params).toMatchObject({ mode: "url", elicitationId: expect.any(String) });
    const answers = wire.sent.filter((request) => request.body && "result" in request.body);
    expect(answers).toHaveLength(4);
    expect(answers[0]!.body).toEqual({
      jsonrpc: "2.0",
      id: expect.stringMatching(/^srv-/),
      result: { action: "accept", content: { ok: true } },
    });
    expect(answers[0]!.headers).toMatchObject({ "mcp-session-id": client.sessionId });
  });

  it("answers from a queue in order; answers by key cannot match a 2025 request, and the failure says so", async () => {
    const queued = await connect(server, { era: "2025", answers: [accept({ ok: true }), accept({ ok: false })] });
    expect((await queued.callTool("steps", { count: 2 })).content[0]!.text).toBe("accepted 2 of 2");
    const keyed = await connect(server, { era: "2025", answers: { answer: accept({ ok: true }) } });
    // The cancelled tool logs that it stopped; kept out of the report.
    const { value: failure } = await withLogs(() => keyed.callTool("ask", { kind: "form" }).catch((error: unknown) => error));
    expect(failure).toMatchObject({
      message:
        'No answer for the elicitation/create from tools/call ask: "Proceed?": 2025 requests carry no question key, so give an onElicit handler or an answers queue (an array); answers by key cannot match',
    });
  });

  it("fails a question nothing answers, naming it, and cancels the call so the tool stops waiting", async () => {
    const wire = recording(server);
    const client = await connect(wire.fetch, { era: "2025" });
    const { value: failure } = await withLogs(() => client.callTool("ask", { kind: "roots" }).catch((error: unknown) => error));
    expect(failure).toBeInstanceOf(McpClientError);
    expect(failure).toMatchObject({ kind: "unanswered", question: { method: "roots/list" } });
    const call = wire.posted("tools/call")[0]!.body!;
    expect(wire.posted("notifications/cancelled")[0]!.body).toEqual({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: call.id, reason: "the test client could not answer" },
    });
    // The session is still usable.
    expect((await client.callTool("echo", { text: "after" })).structuredContent.text).toBe("after");
  });

  it("stops after maxRounds questions on one call, and cancels it", async () => {
    const wire = recording(server);
    const client = await connect(wire.fetch, { era: "2025", onElicit: () => accept({ ok: true }), maxRounds: 2 });
    const { value: failure } = await withLogs(() => client.callTool("steps", { count: 3 }).catch((error: unknown) => error));
    expect(failure).toMatchObject({ kind: "rounds" });
    expect(wire.posted("notifications/cancelled")).toHaveLength(1);
    expect((await client.callTool("steps", { count: 2 })).content[0]!.text).toBe("accepted 2 of 2");
  });

  it("hands log messages on the call's stream to onNotification once the session set its level", async () => {
    const client = await connect(server, { era: "2025" });
    expect(await client.request("logging/setLevel", { level: "info" })).toEqual({});
    const logged: unknown[] = [];
    await client.callTool("log", {}, { onNotification: (message) => logged.push(message) });
    expect(logged).toEqual([
      { jsonrpc: "2.0", method: "notifications/message", params: expect.objectContaining({ level: "info", data: "progress" }) },
      { jsonrpc: "2.0", method: "notifications/message", params: expect.objectContaining({ level: "warning", data: "careful" }) },
    ]);
  });

  it("throws a JSON-RPC error as McpError, a tool error stays a result", async () => {
    const client = await connect(server, { era: "2025" });
    await expect(client.callTool("no_such_tool")).rejects.toMatchObject({ name: "McpError", code: -32602, httpStatus: 200 });
    await expect(client.readResource(valueUri("never-stored"))).rejects.toMatchObject({ code: -32002 });
    expect(await client.callTool("publish", { what: "updated" })).toMatchObject({ isError: true });
  });
});

describe("the test client on 2025: the GET stream and the end of a session", () => {
  it("subscribes with resources/subscribe, opens the GET stream once it is live, and reads the update", async () => {
    const wire = recording(server);
    const client = await connect(wire.fetch, { era: "2025" });
    const uri = valueUri(`legacy-${crypto.randomUUID().slice(0, 8)}`);
    const listener = await client.listen({ resourceSubscriptions: [uri] });
    expect(wire.posted("resources/subscribe")[0]!.body!.params).toEqual({ uri });
    const get = wire.sent.find((request) => request.method === "GET")!;
    expect(get.headers).toMatchObject({
      accept: "text/event-stream",
      "mcp-session-id": client.sessionId,
      "mcp-protocol-version": "2025-11-25",
    });
    await client.callTool("publish", { what: "updated", uri });
    expect(await listener.next()).toEqual({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri } });
    await client.close();
  });

  it("throws a GET stream the server will not open as McpHttpError with its status and body", async () => {
    const withoutHubs = testServer(FIXTURE, { SUBSCRIPTIONS: undefined } as unknown as Record<string, string>);
    const client = await connect(withoutHubs.fetch, { era: "2025" });
    const refused = await client.listen().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(McpHttpError);
    expect(refused).toMatchObject({ request: "GET stream", status: 405, body: expect.stringContaining("Method Not Allowed") });
    await client.close();
  });

  it("ends a stored session with DELETE on close: the server forgets it", async () => {
    const wire = recording(server);
    const client = await connect(wire.fetch, { era: "2025" });
    await client.close();
    expect(wire.sent.at(-1)).toMatchObject({ method: "DELETE", headers: { "mcp-session-id": client.sessionId } });
    await expect(client.callTool("echo")).rejects.toMatchObject({ name: "McpError", httpStatus: 404 });
  });
});
