import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { audio, defineTool, embeddedResource, image, resourceLink, text, toolError, validateServer } from "../../src";
import { checkToolNames } from "../../src/define/tools";
import { FIXTURE } from "../helpers/fixture";
import { fixture, readMessage, testServer } from "../helpers/rpc";
import { expectError, prototypeSnapshot, withLogs } from "../helpers/wire";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

const echo = defineTool({
  name: "echo",
  description: "Echoes a short text.",
  input: z.strictObject({
    text: z.string().check(z.minLength(1), z.maxLength(10)),
    times: z.optional(z.int().check(z.minimum(1), z.maximum(5))),
  }),
  output: z.object({ echoed: z.string() }),
  annotations: { readOnlyHint: true },
  handler: ({ text: value, times }) => ({ structuredContent: { echoed: value.repeat(times ?? 1) } }),
});

const everyContent = defineTool({
  name: "every_content",
  description: "Returns one block of every content type.",
  input: z.strictObject({}),
  handler: () => ({
    content: [
      text("hello"),
      image(PNG, "image/png"),
      audio("UklGRiYAAABXQVZF", "audio/wav"),
      resourceLink({ uri: "test://linked", name: "linked", mimeType: "text/plain" }),
      embeddedResource({ uri: "test://embedded", mimeType: "text/plain", text: "embedded text" }),
    ],
  }),
});

const fails = defineTool({
  name: "fails",
  description: "Throws, as a buggy tool would.",
  input: z.strictObject({}),
  handler: () => {
    throw new Error("secret detail: database password is hunter2");
  },
});

const failsKindly = defineTool({
  name: "fails_kindly",
  description: "Reports a business failure.",
  input: z.strictObject({}),
  handler: () => toolError("The date 2026-02-30 does not exist; use a real date."),
});

const lies = defineTool({
  name: "lies",
  description: "Returns structured content that breaks its own output schema.",
  input: z.strictObject({}),
  output: z.object({ count: z.number() }),
  handler: () => ({ structuredContent: { count: "many" } as unknown as { count: number } }),
});

const explains = defineTool({
  name: "explains",
  description: "Returns structured content with its own content; `mirror` adds the JSON text itself.",
  input: z.strictObject({ mirror: z.boolean() }),
  output: z.object({ total: z.number() }),
  handler: ({ mirror }) => ({
    structuredContent: { total: 3 },
    content: [text("Three in total."), ...(mirror ? [text('{"total":3}')] : [])],
  }),
});

const many = Array.from({ length: 120 }, (_, index) =>
  defineTool({
    name: `tool_${String(index).padStart(3, "0")}`,
    description: `Tool ${index}`,
    input: z.strictObject({}),
    handler: () => ({ content: [] }),
  }),
);

const server = testServer({ tools: [echo, everyContent, fails, failsKindly, lies] });
const call = (name: string, args?: unknown) => server.send("tools/call", { name, ...(args !== undefined && { arguments: args }) });

describe("tool declarations", () => {
  it("accepts every declaration of the engine's fixture: tool names, JSON Schemas, header bindings, prompts", () => {
    expect(() => validateServer(FIXTURE)).not.toThrow();
  });

  it("refuses invalid and duplicate tool names at startup", () => {
    const named = (name: string) => defineTool({ name, description: "x", input: z.strictObject({}), handler: () => ({ content: [] }) });
    expect(() => checkToolNames([named("has space")])).toThrow(/must be 1-128 characters/);
    expect(() => checkToolNames([named("x".repeat(129))])).toThrow(/must be 1-128 characters/);
    expect(() => checkToolNames([named("")])).toThrow(/must be 1-128 characters/);
    expect(() => testServer({ tools: [named("same"), named("same")] })).toThrow(/Tool "same" is declared twice/);
    expect(() => testServer({ tools: [named("bad/name")] })).toThrow();
  });

  it("builds declarations given as a function on the first request, once, and serves them from then on", async () => {
    let built = 0;
    const lazyServer = testServer({
      declarations: () => {
        built++;
        return { tools: [echo] };
      },
    });
    expect(built).toBe(0);
    const first = await lazyServer.call("tools/call", { name: "echo", arguments: { text: "hi" } });
    expect(first.structuredContent).toEqual({ echoed: "hi" });
    const listed = await lazyServer.call<{ tools: { name: string }[] }>("tools/list");
    expect(listed.tools.map((tool) => tool.name)).toEqual(["echo"]);
    expect(built).toBe(1);
  });

  it("checks declarations given as a function on first use, and in validateServer", async () => {
    const named = (name: string) => defineTool({ name, description: "x", input: z.strictObject({}), handler: () => ({ content: [] }) });
    const broken = { declarations: () => ({ tools: [named("same"), named("same")] }) };
    const lazyServer = testServer(broken);
    await expect(lazyServer.send("tools/list")).rejects.toThrow(/Tool "same" is declared twice/);
    expect(() => validateServer({ name: "t", version: "1", ...broken })).toThrow(/Tool "same" is declared twice/);
    expect(() => testServer({ tools: [echo], declarations: () => ({}) })).toThrow(/either directly or in declarations/);
  });
});

describe("tools/list", () => {
  it("lists tools in declaration order with 2020-12 input and output schemas, annotations and cache hints", async () => {
    const { result } = await readMessage(await server.send("tools/list"));
    const tools = result?.tools as Record<string, unknown>[];
    expect(tools.map((tool) => tool.name)).toEqual(["echo", "every_content", "fails", "fails_kindly", "lies"]);
    expect(tools[0]).toMatchObject({
      inputSchema: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: { text: { type: "string", minLength: 1, maxLength: 10 } },
        required: ["text"],
        additionalProperties: false,
      },
      outputSchema: { type: "object", properties: { echoed: { type: "string" } } },
      annotations: { readOnlyHint: true },
    });
    expect(result).toMatchObject({ ttlMs: 60_000, cacheScope: "public", resultType: "complete" });
    expect(result).not.toHaveProperty("nextCursor");
  });

  it("returns the same schema object on every call (derived once per isolate)", async () => {
    const first = await readMessage(await server.send("tools/list"));
    const second = await readMessage(await server.send("tools/list"));
    expect(second.result?.tools).toEqual(first.result?.tools);
  });

  it("pages long lists with opaque cursors and refuses cursors it did not issue with -32602", async () => {
    const paged = testServer({ tools: many });
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const { result } = await readMessage(await paged.send("tools/list", cursor ? { cursor } : {}));
      names.push(...(result!.tools as { name: string }[]).map((tool) => tool.name));
      cursor = result?.nextCursor as string | undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(names).toEqual(many.map((tool) => tool.name));
    for (const bad of ["nonsense", "", "bzk5OTk5", 42]) {
      const response = await paged.send("tools/list", { cursor: bad });
      expect(response.status).toBe(200);
      expect((await readMessage(response)).error?.code).toBe(-32602);
    }
  });
});

describe("tools/call", () => {
  it("returns structuredContent and mirrors it as text for clients that ignore it", async () => {
    const { result } = await readMessage(await call("echo", { text: "ab", times: 2 }));
    expect(result).toMatchObject({ resultType: "complete", structuredContent: { echoed: "abab" } });
    expect(result!.content).toEqual([{ type: "text", text: '{"echoed":"abab"}' }]);
  });

  it("appends the serialised JSON to a tool's own content, once, for clients that ignore structuredContent", async () => {
    const structured = testServer({ tools: [explains] });
    const call = (name: string, args: unknown) => structured.send("tools/call", { name, arguments: args });
    const own = await readMessage(await call("explains", { mirror: false }));
    expect(own.result?.content).toEqual([
      { type: "text", text: "Three in total." },
      { type: "text", text: '{"total":3}' },
    ]);
    const mirrored = await readMessage(await call("explains", { mirror: true }));
    expect(mirrored.result?.content).toEqual(own.result?.content);
  });

  it("answers an unknown tool with -32602 (a protocol error, HTTP 200)", async () => {
    const message = await expectError(await server.send("tools/call", { name: "nope", arguments: {} }, { id: 19 }), 200, -32602, 19);
    expect(message.error).toMatchObject({ code: -32602, message: "Unknown tool: nope" });
  });

  it("answers a missing or non-string name and non-object arguments with -32602", async () => {
    expect((await readMessage(await server.send("tools/call", { arguments: {} }))).error?.code).toBe(-32602);
    expect((await readMessage(await call("echo", [1]))).error?.code).toBe(-32602);
    expect((await readMessage(await call("echo", "text"))).error?.code).toBe(-32602);
  });

  it("refuses arguments: null with -32602, as the official SDK does (the schema makes arguments an optional object, never null), where a missing arguments member runs the tool with {}", async () => {
    const refused = await readMessage(await server.send("tools/call", { name: "echo", arguments: null }, { id: 23 }));
    expect(refused).toMatchObject({ id: 23, error: { code: -32602, message: 'Invalid params: "arguments" must be an object' } });
    const prompt = await readMessage(await fixture.send("prompts/get", { name: "brief", arguments: null }, { id: 24 }));
    expect(prompt).toMatchObject({ id: 24, error: { code: -32602, message: 'Invalid params: "arguments" must be an object' } });
    const absent = await readMessage(await server.send("tools/call", { name: "echo" }, { id: 25 }));
    expect(absent.result).toMatchObject({ isError: true, content: [{ text: expect.stringContaining("Invalid arguments for tool echo") }] });
  });

  it("reports invalid arguments as an isError result the model can fix its call from", async () => {
    const response = await call("echo", { text: 5, extra: true });
    expect(response.status).toBe(200);
    const { result, error } = await readMessage(response);
    expect(error).toBeUndefined();
    expect(result!.isError).toBe(true);
    const message = (result!.content as { text: string }[])[0]!.text;
    expect(message).toContain("Invalid arguments for tool echo");
    expect(message).toContain("text: Invalid input: expected string, received number");
    expect(message).toContain('Unrecognized key: "extra"');
  });

  it("reports out-of-range values and missing arguments the same way", async () => {
    for (const [args, expected] of [
      [{ text: "x".repeat(11) }, "text: Too big"],
      [{ text: "x", times: 9 }, "times: Too big"],
      [{}, "text:"],
    ] as const) {
      const response = await call("echo", args);
      expect(response.status).toBe(200);
      const { result, error } = await readMessage(response);
      expect(error).toBeUndefined();
      expect(result?.isError).toBe(true);
      const message = (result!.content as { text: string }[])[0]!.text;
      expect(message).toContain("Invalid arguments for tool echo");
      expect(message).toContain(expected);
    }
    const missing = await readMessage(await call("echo"));
    expect(missing.result?.isError).toBe(true);
  });

  it("keeps prototype-polluting keys out: __proto__, constructor and prototype are unknown keys, and no prototype changes", async () => {
    const before = prototypeSnapshot();
    const bodies = [
      '{"text":"a","extra":1}',
      '{"text":"a","__proto__":{"polluted":true,"isAdmin":true}}',
      '{"text":"a","constructor":{"prototype":{"polluted":true}}}',
      '{"text":"a","prototype":{"polluted":true}}',
      '{"text":"a","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
    ];
    for (const body of bodies) {
      const response = await call("echo", JSON.parse(body));
      expect(response.status).toBe(200);
      const { result } = await readMessage(response);
      expect(result!.isError).toBe(true);
      expect((result!.content as { text: string }[])[0]!.text).toContain("Unrecognized key");
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(prototypeSnapshot()).toBe(before);
  });

  it("returns every content type unchanged: text, image, audio, resource_link, embedded resource", async () => {
    const { result } = await readMessage(await call("every_content", {}));
    expect((result!.content as { type: string }[]).map((block) => block.type)).toEqual([
      "text",
      "image",
      "audio",
      "resource_link",
      "resource",
    ]);
  });

  it("turns a handler that throws into a generic isError result naming the request id, and logs the detail instead of answering it", async () => {
    const { value: response, entries } = await withLogs(() => call("fails", {}));
    expect(response.status).toBe(200);
    const traceId = response.headers.get("x-request-id");
    const { result } = await readMessage(response);
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: "text", text: `Tool fails failed unexpectedly. Reference: ${traceId}` }],
    });
    expect(JSON.stringify(result)).not.toContain("hunter2");
    expect(entries).toContainEqual(
      expect.objectContaining({ traceId, message: "tool handler threw", detail: expect.stringContaining("hunter2") }),
    );
  });

  it("passes a tool's own error result through", async () => {
    const { result } = await readMessage(await call("fails_kindly", {}));
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "The date 2026-02-30 does not exist; use a real date." }],
    });
  });

  it("answers structuredContent that breaks the outputSchema with -32603 (HTTP 500, a server bug) and a generic message, and logs it", async () => {
    const { value: response, entries } = await withLogs(() => server.send("tools/call", { name: "lies", arguments: {} }, { id: 25 }));
    const message = await expectError(response, 500, -32603, 25);
    expect(message.error).toEqual({ code: -32603, message: "Internal error" });
    expect(entries).toContainEqual(
      expect.objectContaining({ level: "error", message: "structuredContent does not match outputSchema", tool: "lies" }),
    );
  });
});
