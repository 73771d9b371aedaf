/**
 * The test client as a 2026-07-28 client, against the engine's fixture server: what it sends, how it answers each
 * kind of question (handlers, scripts by key, queues), its limits (a question nothing answers, too many rounds),
 * every method a test uses, errors as errors and tool errors as results, and listening.
 */
import { afterEach, describe, expect, it } from "vitest";
import { accept, connect, decline, type Listener, McpClientError, McpError, type Question, roots, sampled } from "../../src/testing";
import { valueUri } from "../helpers/fixture";
import { clientFixture, recording } from "./recording";

const server = clientFixture.fetch;
const META = {
  version: "io.modelcontextprotocol/protocolVersion",
  capabilities: "io.modelcontextprotocol/clientCapabilities",
  info: "io.modelcontextprotocol/clientInfo",
};

describe("the test client on 2026-07-28: what it sends", () => {
  it("sends each request with the version, capabilities and client info in _meta, and the headers that mirror the body", async () => {
    const wire = recording(server);
    const client = await connect(wire.fetch, { capabilities: { elicitation: {} }, headers: { "x-test": "kept" } });
    expect(wire.sent).toEqual([]);
    await client.callTool("echo", { text: "hi" });
    const [call] = wire.posted("tools/call");
    expect(call!.body!.params).toEqual({
      name: "echo",
      arguments: { text: "hi" },
      _meta: {
        [META.version]: "2026-07-28",
        [META.capabilities]: { elicitation: {} },
        [META.info]: { name: "mcp-test-client", version: expect.any(String) },
      },
    });
    expect(call!.headers).toMatchObject({
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "echo",
      "x-test": "kept",
    });
    expect(call!.headers).not.toHaveProperty("mcp-session-id");
    await client.readResource("fixture://readme");
    expect(wire.posted("resources/read")[0]!.headers).toMatchObject({ "mcp-method": "resources/read", "mcp-name": "fixture://readme" });
    await client.getPrompt("brief", { topic: "tests" });
    expect(wire.posted("prompts/get")[0]!.headers).toMatchObject({ "mcp-name": "brief" });
    await client.listPrompts();
    expect(wire.posted("prompts/list")[0]!.headers).not.toHaveProperty("mcp-name");
  });

  it("declares elicitation, sampling, roots and the Tasks extension when no capabilities are given", async () => {
    const wire = recording(server);
    await (await connect(wire.fetch)).callTool("echo");
    expect(wire.posted("tools/call")[0]!.body!.params._meta[META.capabilities]).toEqual({
      elicitation: { form: {}, url: {} },
      sampling: {},
      roots: {},
      extensions: { "io.modelcontextprotocol/tasks": {} },
    });
  });

  it("mirrors x-mcp-header arguments in Mcp-Param headers, base64-encoding a value that is not plain ASCII, after listing the tools once", async () => {
    const wire = recording(server);
    const client = await connect(wire.fetch);
    expect((await client.callTool("routed", { region: "Zürich", shard: 7 })).content[0]!.text).toBe("region Zürich shard 7");
    expect((await client.callTool("routed", { region: "eu-west" })).content[0]!.text).toBe("region eu-west");
    const [first, second] = wire.posted("tools/call");
    expect(first!.headers).toMatchObject({ "mcp-param-region": `=?base64?${btoa("Z\u00c3\u00bcrich")}?=`, "mcp-param-shard": "7" });
    expect(second!.headers).toMatchObject({ "mcp-param-region": "eu-west" });
    expect(second!.headers).not.toHaveProperty("mcp-param-shard");
    expect(wire.posted("tools/list")).toHaveLength(1);
  });

  it("encodes a resource URI that is not plain ASCII in Mcp-Name, so the server compares the same value", async () => {
    const wire = recording(server);
    const client = await connect(wire.fetch);
    // Not -32020 (header mismatch): the server decoded the header and found no such value.
    await expect(client.readResource(valueUri("café"))).rejects.toMatchObject({ code: -32602, message: "Resource not found" });
    expect(wire.posted("resources/read")[0]!.headers["mcp-name"]).toMatch(/^=\?base64\?[A-Za-z0-9+/=]+\?=$/);
  });

  it("retries a round with the inputResponses and the server's requestState, and a first request with neither", async () => {
    const wire = recording(server);
    const client = await connect(wire.fetch, { answers: { answer: accept({ ok: true }) } });
    expect((await client.callTool("ask", { kind: "form", once: true })).content[0]!.text).toBe("form: accept ok=true");
    const [first, retry] = wire.posted("tools/call").map((request) => request.body!);
    expect(first!.params).not.toHaveProperty("requestState");
    expect(first!.params).not.toHaveProperty("inputResponses");
    expect(retry!.params).toMatchObject({
      inputResponses: { answer: { action: "accept", content: { ok: true } } },
      requestState: expect.any(String),
    });
    expect(retry!.id).not.toBe(first!.id);
  });
});

describe("the test client on 2026-07-28: answering questions", () => {
  it("answers a form, a URL, a sampling and a roots question with its handlers, which get the question's params and key", async () => {
    const asked: Question[] = [];
    const client = await connect(server, {
      onElicit: (params, question) => {
        asked.push(question);
        return params.mode === "url" ? accept() : accept({ ok: true });
      },
      onSample: (_params, question) => {
        asked.push(question);
        return sampled("yes");
      },
      onRoots: (_params, question) => {
        asked.push(question);
        return roots("file:///work", { uri: "file:///home", name: "home" });
      },
    });
    const reported = async (kind: string) => (await client.callTool("ask", { kind })).content[0]!.text;
    expect(await reported("form")).toBe("form: accept ok=true");
    expect(await reported("url")).toBe("url: accept");
    expect(await reported("sampling")).toBe("sampling: yes");
    expect(await reported("roots")).toBe("roots: 2");
    expect(asked.map(({ key, method, round, asker }) => ({ key, method, round, asker }))).toEqual([
      { key: "answer", method: "elicitation/create", round: 1, asker: "tools/call ask" },
      { key: "answer", method: "elicitation/create", round: 1, asker: "tools/call ask" },
      { key: "answer", method: "sampling/createMessage", round: 1, asker: "tools/call ask" },
      { key: "answer", method: "roots/list", round: 1, asker: "tools/call ask" },
    ]);
    expect(asked[0]!.params).toMatchObject({ mode: "form", message: "Proceed?", requestedSchema: { type: "object" } });
    expect(asked[1]!.params).toMatchObject({ mode: "url", url: "https://example.com/sign-in" });
    expect(asked[2]!.params).toMatchObject({ maxTokens: 10 });
  });

  it("answers from scripts: by key, a function of the question, or a queue in order; a call's answers come before the client's", async () => {
    const byKey = await connect(server, { answers: { answer: decline() } });
    expect((await byKey.callTool("ask", { kind: "form" })).content[0]!.text).toBe("form: decline");
    const computed = await connect(server, { answers: { answer: (question) => (question.method === "roots/list" ? roots() : decline()) } });
    expect((await computed.callTool("ask", { kind: "roots" })).content[0]!.text).toBe("roots: 0");
    const queued = await connect(server, { answers: [accept({ ok: true }), accept({ ok: false }), accept({ ok: true })] });
    const steps = await queued.callTool("steps", { count: 3 });
    expect(steps.content[0]!.text).toBe("accepted 3 of 3");
    const overridden = await byKey.callTool("ask", { kind: "form" }, { answers: { answer: accept({ ok: false }) } });
    expect(overridden.content[0]!.text).toBe("form: accept ok=false");
    const byHandler = await byKey.callTool("ask", { kind: "form" }, { onElicit: () => accept({ ok: true }) });
    expect(byHandler.content[0]!.text).toBe("form: accept ok=true");
  });

  it("fails a question that no handler or script answers, naming its key, its method and what it asks", async () => {
    const client = await connect(server, { onSample: () => sampled("not this one") });
    const failure = await client.callTool("ask", { kind: "form" }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(McpClientError);
    expect(failure).toMatchObject({ kind: "unanswered", question: { key: "answer", method: "elicitation/create" } });
    expect((failure as Error).message).toBe(
      'No answer for question "answer" (elicitation/create from tools/call ask: "Proceed?"): give the client or the call answers: { "answer": ... } or an onElicit handler',
    );
  });

  it("stops after maxRounds rounds with a clear error, and takes as many rounds as allowed", async () => {
    const client = await connect(server, { onElicit: () => accept({ ok: true }), maxRounds: 3 });
    expect((await client.callTool("steps", { count: 3 })).content[0]!.text).toBe("accepted 3 of 3");
    await expect(client.callTool("steps", { count: 4 })).rejects.toThrow(
      new McpClientError(
        "rounds",
        "tools/call steps: still input_required after 3 rounds of answers (last asked: step4); pass a higher maxRounds if the tool really asks that often",
      ),
    );
    expect((await client.callTool("steps", { count: 4 }, { maxRounds: 4 })).content[0]!.text).toBe("accepted 4 of 4");
  });

  it("leaves an input_required result to the test when it sends the request itself", async () => {
    const client = await connect(server);
    const first = await client.request("tools/call", { name: "ask", arguments: { kind: "form" } });
    expect(first).toMatchObject({ resultType: "input_required", inputRequests: { answer: { method: "elicitation/create" } } });
  });
});

describe("the test client on 2026-07-28: results and errors", () => {
  it("reads resources, gets prompts, lists every kind, pages, completes and discovers", async () => {
    const client = await connect(server);
    expect((await client.readResource("fixture://readme")).contents[0]).toMatchObject({ text: "# Engine fixture\n" });
    const prompt = await client.getPrompt("brief", { topic: "tests", tone: "terse" });
    expect(prompt.messages[0]!.content.text).toBe("Write a terse brief about tests.");
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("echo");
    expect((await client.listResources()).resources.map((resource) => resource.uri)).toContain("fixture://readme");
    expect((await client.listResourceTemplates()).resourceTemplates[0]).toMatchObject({ uriTemplate: "fixture://values/{key}" });
    expect((await client.listPrompts()).prompts.map((entry) => entry.name)).toEqual(["brief"]);
    const pages = await client.pages("tools/list");
    expect(pages.at(-1)).not.toHaveProperty("nextCursor");
    const tones = await client.complete({ type: "ref/prompt", name: "brief" }, { name: "tone", value: "f" });
    expect(tones.completion.values).toEqual(["formal", "friendly"]);
    expect((await client.discover()).supportedVersions).toContain("2026-07-28");
  });

  it("throws a JSON-RPC error as McpError with its code, message, data and HTTP status", async () => {
    const client = await connect(server, { capabilities: {} });
    await expect(client.callTool("no_such_tool")).rejects.toMatchObject({
      name: "McpError",
      method: "tools/call",
      code: -32602,
      httpStatus: 200,
    });
    const missing = await client.callTool("ask", { kind: "form" }).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(McpError);
    expect(missing).toMatchObject({
      code: -32021,
      message: "Missing required client capability: elicitation.form",
      data: { requiredCapabilities: { elicitation: { form: {} } } },
      httpStatus: 400,
    });
  });

  it("throws a refusal made before the request was read (an id-less error) as McpError with the HTTP status", async () => {
    const client = await connect(server, { headers: { origin: "https://elsewhere.example" } });
    await expect(client.callTool("echo")).rejects.toMatchObject({
      code: -32600,
      message: `Forbidden: Origin "https://elsewhere.example" is not allowed (ALLOWED_ORIGINS adds an origin)`,
      httpStatus: 403,
    });
  });

  it("returns a tool error as a result with isError, not as an exception", async () => {
    const client = await connect(server);
    const result = await client.callTool("publish", { what: "updated" });
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "An update needs the uri of the resource that changed." }],
    });
  });

  it("asks for progress with a progressToken and hands each report to the call's callbacks, in order", async () => {
    const client = await connect(server);
    const progress: unknown[] = [];
    const methods: string[] = [];
    const result = await client.callTool(
      "progress",
      { steps: 2 },
      {
        onProgress: (report) => progress.push(report),
        onNotification: (message) => methods.push(String(message.method)),
        logLevel: "info",
      },
    );
    expect(result.content[0]!.text).toBe("done");
    expect(progress).toEqual([
      { progress: 1, total: 2, message: "step 1" },
      { progress: 2, total: 2, message: "step 2" },
    ]);
    expect(methods).toEqual(["notifications/progress", "notifications/progress"]);
  });
});

describe("the test client on 2026-07-28: listening", () => {
  const open: Listener[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((listener) => listener.close()));
  });

  it("opens subscriptions/listen once acknowledged, and reads each notification with a timeout", async () => {
    const client = await connect(server);
    const uri = valueUri(`listened-${crypto.randomUUID().slice(0, 8)}`);
    const listener = await client.listen({ resourceSubscriptions: [uri], promptsListChanged: true });
    open.push(listener);
    expect(listener.acknowledged).toEqual({ resourceSubscriptions: [uri], promptsListChanged: true });
    await client.callTool("publish", { what: "updated", uri });
    expect(await listener.next()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { uri, _meta: { "io.modelcontextprotocol/subscriptionId": listener.id } },
    });
    expect(await listener.tryNext(200)).toBeUndefined();
    await expect(listener.next(200)).rejects.toThrow(`subscriptions/listen ${listener.id}: no notification within 200 ms`);
  });

  it("reports a stream that ended: an empty filter is acknowledged and completed at once", async () => {
    const client = await connect(server);
    const listener = await client.listen({});
    expect(listener.acknowledged).toEqual({});
    await expect(listener.next()).rejects.toMatchObject({ kind: "listen", message: expect.stringContaining("completion result") });
  });

  it("closes every open listener when the client closes", async () => {
    const client = await connect(server);
    const listener = await client.listen({ toolsListChanged: true });
    await client.close();
    await expect(listener.next()).rejects.toMatchObject({ kind: "listen", message: expect.stringContaining("has ended") });
  });
});
