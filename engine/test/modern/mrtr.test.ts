import { describe, expect, it, vi } from "vitest";
import * as z from "zod/mini";
import { definePrompt, defineResource, defineTool, elicitForm, elicitUrl, listRoots, sample, samplingText, text } from "../../src";
import { fixture, type Json, readMessage, testServer } from "../helpers/rpc";
import { withLogs, withoutAccessLog } from "../helpers/wire";

const ALL = { elicitation: { form: {}, url: {} }, sampling: { tools: {} }, roots: {} };
let runs = 0;

const wizard = defineTool({
  name: "wizard",
  description: "Three rounds, with state kept between them.",
  input: z.strictObject({ topic: z.string() }),
  async handler({ topic }, ctx) {
    runs++;
    ctx.state.startedWith ??= topic;
    const { name } = await ctx.ask({ name: elicitForm("Name?", z.object({ name: z.string().check(z.minLength(1)) })) });
    ctx.state.rounds = Number(ctx.state.rounds ?? 0) + 1;
    const { color, roots } = await ctx.ask({
      color: elicitForm("Color?", z.object({ color: z.enum(["red", "blue"]) })),
      roots: listRoots(),
    });
    const { poem } = await ctx.ask({
      poem: sample({ messages: [{ role: "user", content: { type: "text", text: "poem" } }], maxTokens: 5 }),
    });
    const who = name.action === "accept" ? name.content.name : "?";
    const hue = color.action === "accept" ? color.content.color : "?";
    return { content: [text(`${ctx.state.startedWith}: ${who} likes ${hue}, ${roots.roots.length} root(s), ${samplingText(poem)}`)] };
  },
});
const linkOut = defineTool({
  name: "link_out",
  description: "URL elicitation.",
  input: z.strictObject({}),
  async handler(_args, ctx) {
    const { go } = await ctx.ask({ go: elicitUrl("Authorize at the provider", "https://provider.example/authorize") });
    return { content: [text(`went: ${go.action}`)] };
  },
});
const toolSampling = defineTool({
  name: "tool_sampling",
  description: "Sampling with tools needs sampling.tools.",
  input: z.strictObject({}),
  async handler(_args, ctx) {
    await ctx.ask({ s: sample({ messages: [], maxTokens: 1, tools: [{ name: "x", inputSchema: { type: "object" } }] }) });
    return { content: [] };
  },
});
const swallower = defineTool({
  name: "swallower",
  description: "Catches everything, including the engine's signal.",
  input: z.strictObject({}),
  async handler(_args, ctx) {
    try {
      await ctx.ask({ q: elicitForm("Q?", z.object({ a: z.string() })) });
    } catch {
      // a careless handler
    }
    return { content: [text("should not be sent")] };
  },
});
const hoarder = defineTool({
  name: "hoarder",
  description: "Keeps too much state.",
  input: z.strictObject({}),
  async handler(_args, ctx) {
    ctx.state.blob = "x".repeat(40_000);
    await ctx.ask({ q: elicitForm("Q?", z.object({ a: z.string() })) });
    return { content: [] };
  },
});
const contextual = defineTool({
  name: "contextual",
  description: "Sampling that includes the server's context needs sampling.context.",
  input: z.strictObject({ include: z.enum(["none", "thisServer", "allServers"]) }),
  async handler({ include }, ctx) {
    const { s } = await ctx.ask({ s: sample({ messages: [], maxTokens: 1, includeContext: include }) });
    return { content: [text(samplingText(s))] };
  },
});
const plain = defineTool({
  name: "plain",
  description: "Asks nothing.",
  input: z.strictObject({}),
  handler: () => ({ content: [text("plain")] }),
});

const server = testServer({
  tools: [wizard, linkOut, toolSampling, contextual, swallower, hoarder, plain],
  prompts: [
    definePrompt({
      name: "asking_prompt",
      description: "Asks for context.",
      async get(_args, ctx) {
        const { c } = await ctx.ask({ c: elicitForm("Context?", z.object({ c: z.string() })) });
        return { messages: [{ role: "user", content: text(c.action === "accept" ? c.content.c : "none") }] };
      },
    }),
  ],
  resources: [
    defineResource({
      uri: "test://gated",
      name: "gated",
      cache: { ttlMs: 9_000, cacheScope: "public" },
      async read(ctx) {
        const { ok } = await ctx.ask({ ok: elicitForm("Read it?", z.object({ ok: z.boolean() })) });
        return [{ uri: "test://gated", text: `ok=${ok.action}` }];
      },
    }),
  ],
});

async function callTool(name: string, args: Json, extra: Json = {}, capabilities: Json = ALL) {
  return readMessage(await server.send("tools/call", { name, arguments: args, ...extra }, { capabilities }));
}

describe("multi round-trip requests", () => {
  it("runs three rounds with several questions at once, state kept and changed between rounds", async () => {
    const args = { topic: "t" };
    const r1 = await callTool("wizard", args);
    expect(r1.result).toMatchObject({ resultType: "input_required", inputRequests: { name: { method: "elicitation/create" } } });
    expect(r1.result).not.toHaveProperty("ttlMs");

    const r2 = await callTool("wizard", args, {
      requestState: r1.result?.requestState,
      inputResponses: { name: { action: "accept", content: { name: "Ada" } } },
    });
    expect(Object.keys(r2.result?.inputRequests)).toEqual(["color", "roots"]);
    expect(r2.result?.inputRequests.roots).toEqual({ method: "roots/list", params: {} });
    expect(r2.result?.requestState).not.toBe(r1.result?.requestState);

    const r3 = await callTool("wizard", args, {
      requestState: r2.result?.requestState,
      inputResponses: { color: { action: "accept", content: { color: "blue" } }, roots: { roots: [{ uri: "file:///w" }] } },
    });
    expect(Object.keys(r3.result?.inputRequests)).toEqual(["poem"]);

    const done = await callTool("wizard", args, {
      requestState: r3.result?.requestState,
      inputResponses: { poem: { role: "assistant", content: { type: "text", text: "roses" }, model: "m" } },
    });
    expect(done.result).toMatchObject({ resultType: "complete", content: [{ text: "t: Ada likes blue, 1 root(s), roses" }] });
  });

  it("asks again, with fresh state, when a required answer is missing (not an error)", async () => {
    const r1 = await callTool("wizard", { topic: "t" });
    const again = await callTool(
      "wizard",
      { topic: "t" },
      { requestState: r1.result?.requestState, inputResponses: { other: { action: "accept" } } },
    );
    expect(again.result).toMatchObject({ resultType: "input_required", inputRequests: { name: {} } });
  });

  it("ignores answers to questions it did not ask", async () => {
    const r1 = await callTool("wizard", { topic: "t" });
    const r2 = await callTool(
      "wizard",
      { topic: "t" },
      {
        requestState: r1.result?.requestState,
        inputResponses: {
          name: { action: "accept", content: { name: "Ada" } },
          color: { action: "accept", content: { color: "red" } },
          junk: 1,
        },
      },
    );
    expect(Object.keys(r2.result?.inputRequests)).toEqual(["color", "roots"]);
  });

  it("answers malformed inputResponses with -32602", async () => {
    const r1 = await callTool("wizard", { topic: "t" });
    const cases: unknown[] = [
      null,
      [],
      "x",
      { name: 12345 },
      { name: { action: "maybe" } },
      { name: { action: "accept", content: { name: "" } } },
    ];
    for (const inputResponses of cases) {
      const message = await callTool("wizard", { topic: "t" }, { requestState: r1.result?.requestState, inputResponses });
      expect(message.error?.code).toBe(-32602);
    }
  });

  // The state's binding to the tool and its arguments (a retry with other arguments is refused): row 35 of
  // test/checklist.test.ts.

  it("verifies a retry's requestState, bound to its tool and arguments, with one HMAC and mints none when the call completes", async () => {
    const first = await callTool("link_out", {});
    const sign = vi.spyOn(crypto.subtle, "sign");
    const verify = vi.spyOn(crypto.subtle, "verify");
    try {
      const done = await callTool(
        "link_out",
        {},
        { requestState: first.result?.requestState, inputResponses: { go: { action: "accept" } } },
      );
      expect(done.result?.content).toEqual([{ type: "text", text: "went: accept" }]);
      expect({ sign: sign.mock.calls.length, verify: verify.mock.calls.length }).toEqual({ sign: 0, verify: 1 });
    } finally {
      sign.mockRestore();
      verify.mockRestore();
    }
  });

  it("verifies requestState even for a tool that asks nothing", async () => {
    const { value: forged, entries } = await withLogs(() => callTool("plain", {}, { requestState: "v2.x.y.z" }));
    expect(forged.error?.code).toBe(-32602);
    expect(withoutAccessLog(entries)).toEqual([
      expect.objectContaining({ level: "warn", message: "requestState rejected", reason: "malformed" }),
    ]);
    expect((await callTool("plain", {}, { requestState: 42 })).error?.code).toBe(-32602);
  });

  it("asks URL elicitation only of clients that declared it, and otherwise answers -32021", async () => {
    const asked = await callTool("link_out", {});
    expect(asked.result?.inputRequests.go).toEqual({
      method: "elicitation/create",
      params: { mode: "url", message: "Authorize at the provider", url: "https://provider.example/authorize" },
    });
    const formOnly = await server.send("tools/call", { name: "link_out", arguments: {} }, { capabilities: { elicitation: {} } });
    expect(formOnly.status).toBe(400);
    expect((await readMessage(formOnly)).error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: { url: {} } } },
    });
  });

  it("needs sampling.tools to ask for sampling with tools", async () => {
    const message = await callTool("tool_sampling", {}, {}, { sampling: {} });
    expect(message.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: { tools: {} } } } });
  });

  it("still ends the round when a handler swallows the engine's signal", async () => {
    expect((await callTool("swallower", {})).result?.resultType).toBe("input_required");
  });

  it("treats state over STATE_MAX_BYTES as a failed tool run, with the reason in the log only", async () => {
    const { value: message, entries } = await withLogs(() => callTool("hoarder", {}));
    expect(message.result?.isError).toBe(true);
    expect(message.result?.content[0].text).toMatch(/^Tool hoarder failed unexpectedly\. Reference: /);
    expect(withoutAccessLog(entries)).toEqual([
      expect.objectContaining({
        level: "error",
        message: "tool handler threw",
        tool: "hoarder",
        detail: expect.stringMatching(/^requestState is \d+ bytes, over limits\.state\.maxBytes/),
      }),
    ]);
  });

  it("works on prompts/get and resources/read; a retried read is never cached", async () => {
    const prompt = await readMessage(await server.send("prompts/get", { name: "asking_prompt" }, { capabilities: ALL }));
    expect(prompt.result?.resultType).toBe("input_required");
    const read = await readMessage(await server.send("resources/read", { uri: "test://gated" }, { capabilities: ALL }));
    expect(read.result).toMatchObject({ resultType: "input_required" });
    const retried = await readMessage(
      await server.send(
        "resources/read",
        {
          uri: "test://gated",
          requestState: read.result?.requestState,
          inputResponses: { ok: { action: "accept", content: { ok: true } } },
        },
        { capabilities: ALL },
      ),
    );
    expect(retried.result).toMatchObject({ resultType: "complete", contents: [{ text: "ok=accept" }], ttlMs: 0, cacheScope: "private" });
  });

  it("never returns input_required from other methods", async () => {
    for (const method of ["tools/list", "prompts/list", "resources/list", "server/discover"]) {
      expect((await readMessage(await server.send(method, {}, { capabilities: ALL }))).result?.resultType).toBe("complete");
    }
  });

  it("replays the handler from the top each round (side effects belong after the last ask)", async () => {
    const before = runs;
    await callTool("wizard", { topic: "t" });
    expect(runs).toBe(before + 1);
  });
  it("carries only the fields a question defines: padding in an answer never reaches the next round's state", async () => {
    const r1 = await callTool("wizard", { topic: "t" });
    const padding = "x".repeat(20_000);
    const { value: r2, entries } = await withLogs(() =>
      callTool(
        "wizard",
        { topic: "t" },
        {
          requestState: r1.result?.requestState,
          inputResponses: { name: { action: "accept", content: { name: "Ada", extra: padding }, padding } },
        },
      ),
    );
    expect(r2.result).toMatchObject({ resultType: "input_required", inputRequests: { color: {}, roots: {} } });
    expect(r2.result?.requestState.length).toBeLessThan(2_000);
    expect(entries.filter((entry) => entry.level === "error")).toEqual([]);

    const r3 = await callTool(
      "wizard",
      { topic: "t" },
      {
        requestState: r2.result?.requestState,
        inputResponses: {
          color: { action: "accept", content: { color: "red" }, padding },
          roots: { roots: [{ uri: "file:///w", name: "w", padding }], padding },
        },
      },
    );
    expect(r3.result?.requestState.length).toBeLessThan(2_000);
    const done = await callTool(
      "wizard",
      { topic: "t" },
      {
        requestState: r3.result?.requestState,
        inputResponses: { poem: { role: "assistant", content: { type: "text", text: "ok" }, model: "m", padding } },
      },
    );
    expect(done.result?.content[0].text).toBe("t: Ada likes red, 1 root(s), ok");
  });

  it("carries only the action of a declined form or a URL answer", async () => {
    const r1 = await callTool("wizard", { topic: "t" });
    const r2 = await callTool(
      "wizard",
      { topic: "t" },
      { requestState: r1.result?.requestState, inputResponses: { name: { action: "decline", content: { name: "x".repeat(20_000) } } } },
    );
    expect(r2.result?.resultType).toBe("input_required");
    expect(r2.result?.requestState.length).toBeLessThan(2_000);
  });

  it("answers -32602, not an internal fault, when the client's answers alone would push the state over limits.state.maxBytes", async () => {
    const r1 = await callTool("wizard", { topic: "t" });
    const { value: message, entries } = await withLogs(() =>
      callTool(
        "wizard",
        { topic: "t" },
        { requestState: r1.result?.requestState, inputResponses: { name: { action: "accept", content: { name: "x".repeat(20_000) } } } },
      ),
    );
    expect(message.error).toMatchObject({
      code: -32602,
      message: expect.stringMatching(/^Invalid inputResponses: .*limits\.state\.maxBytes/),
    });
    expect(entries.filter((entry) => entry.level === "error")).toEqual([]);
  });

  it("refuses an invalid form answer in the round it arrives, even while other questions are still open", async () => {
    const r1 = await callTool("wizard", { topic: "t" });
    const r2 = await callTool(
      "wizard",
      { topic: "t" },
      { requestState: r1.result?.requestState, inputResponses: { name: { action: "accept", content: { name: "Ada" } } } },
    );
    const message = await callTool(
      "wizard",
      { topic: "t" },
      { requestState: r2.result?.requestState, inputResponses: { color: { action: "accept", content: { color: "green" } } } },
    );
    expect(message.error).toMatchObject({ code: -32602, message: expect.stringContaining("color.content.color") });
  });

  it("needs sampling.context to ask for sampling that includes context (2026-07-28)", async () => {
    for (const include of ["thisServer", "allServers"]) {
      const response = await server.send("tools/call", { name: "contextual", arguments: { include } }, { capabilities: { sampling: {} } });
      expect(response.status).toBe(400);
      expect((await readMessage(response)).error).toEqual({
        code: -32021,
        message: "Missing required client capability: sampling.context",
        data: { requiredCapabilities: { sampling: { context: {} } } },
      });
      const asked = await callTool("contextual", { include }, {}, { sampling: { context: {} } });
      expect(asked.result?.inputRequests.s.params.includeContext).toBe(include);
    }
    expect((await callTool("contextual", { include: "none" }, {}, { sampling: {} })).result?.resultType).toBe("input_required");
  });

  it("needs sampling.context on the 2025 path too: the tool reports the missing capability", async () => {
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const init = await server.post(
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: { sampling: {} }, clientInfo: { name: "c", version: "1" } },
      },
      headers,
    );
    const session = init.headers.get("mcp-session-id")!;
    expect(session).toBeTruthy();
    const call = await server.post(
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "contextual", arguments: { include: "thisServer" } } },
      { ...headers, "mcp-protocol-version": "2025-11-25", "mcp-session-id": session },
    );
    expect((await readMessage(call)).result).toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining("Missing required client capability: sampling.context") }],
    });
  });

  it("accepts a single-use round's answers once: the same retry replayed is refused with -32602", async () => {
    const args = { kind: "form", once: true };
    const first = await readMessage(await fixture.send("tools/call", { name: "ask", arguments: args }, { capabilities: ALL }));
    expect(first.result?.resultType).toBe("input_required");
    const retry = {
      name: "ask",
      arguments: args,
      requestState: first.result?.requestState,
      inputResponses: { answer: { action: "accept", content: { ok: true } } },
    };
    const answered = await readMessage(await fixture.send("tools/call", retry, { capabilities: ALL }));
    expect(answered.result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "form: accept ok=true" }] });
    const { value: replayed, entries } = await withLogs(async () =>
      readMessage(await fixture.send("tools/call", retry, { capabilities: ALL })),
    );
    expect(replayed.error).toEqual({ code: -32602, message: "Invalid requestState" });
    expect(withoutAccessLog(entries)).toEqual([
      expect.objectContaining({ level: "warn", message: "requestState rejected", reason: "replay" }),
    ]);
  });

  it("leaves single-use state good after a malformed answer: -32602, then the corrected retry runs once, and a replay is refused", async () => {
    const capabilities = { elicitation: { form: {} } };
    const first = await fixture.call("tools/call", { name: "ask", arguments: { kind: "form", once: true } }, { capabilities });
    expect(first.resultType).toBe("input_required");
    const retry = (content: unknown) =>
      fixture
        .send(
          "tools/call",
          {
            name: "ask",
            arguments: { kind: "form", once: true },
            requestState: first.requestState,
            inputResponses: { answer: { action: "accept", content } },
          },
          { capabilities },
        )
        .then(readMessage);
    for (const malformed of [{ ok: "yes" }, { ok: 1 }, {}]) {
      expect((await retry(malformed)).error, JSON.stringify(malformed)).toMatchObject({
        code: -32602,
        message: expect.stringMatching(/^Invalid inputResponses: answer\.content/),
      });
    }
    expect((await retry({ ok: true })).result?.content).toEqual([{ type: "text", text: "form: accept ok=true" }]);
    const { value: replayed, entries } = await withLogs(() => retry({ ok: true }));
    expect(replayed.error).toEqual({ code: -32602, message: "Invalid requestState" });
    expect(withoutAccessLog(entries)).toEqual([
      expect.objectContaining({ level: "warn", message: "requestState rejected", reason: "replay" }),
    ]);
  });
});
