/**
 * Every binding the engine understands is optional (src/worker/bindings.ts). A server built without one runs with
 * exactly that feature off, and says so: it does not advertise what it cannot deliver, and what needs the missing
 * binding answers with a clear error instead of failing later.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { createMcpWorker, definePrompt, defineResource, defineTool, defineView, type EngineBindings, elicitForm, text } from "../../src";
import { readMessage, rpc } from "../helpers/rpc";
import { withLogs, withoutAccessLog } from "../helpers/wire";

const writes: string[] = [];

const definition = {
  name: "bindings-test",
  version: "1.0.0",
  tools: [
    defineTool({
      name: "write_and_publish",
      description: "Writes, then tells listeners.",
      input: z.strictObject({}),
      async handler(_args, ctx) {
        writes.push(ctx.traceId);
        await ctx.publish.toolsListChanged();
        return { content: [text("written")] };
      },
    }),
    defineTool({
      name: "confirm_once",
      description: "Asks a single-use question.",
      input: z.strictObject({}),
      async handler(_args, ctx) {
        const { ok } = await ctx.ask({ ok: elicitForm("Sure?", z.object({ ok: z.boolean() })) }, { singleUse: true });
        return { content: [text(ok.action)] };
      },
    }),
    defineTool({
      name: "confirm",
      description: "Asks a question that may be answered again.",
      input: z.strictObject({}),
      async handler(_args, ctx) {
        const { ok } = await ctx.ask({ ok: elicitForm("Sure?", z.object({ ok: z.boolean() })) });
        return { content: [text(ok.action)] };
      },
    }),
    defineTool({
      name: "maybe_task",
      description: "Runs as a task where it can.",
      input: z.strictObject({}),
      taskSupport: "optional",
      async handler(_args, ctx) {
        ctx.progress(0, 1, "Working");
        return { content: [text("done")] };
      },
    }),
    defineTool({
      name: "task_only",
      description: "Runs only as a task.",
      input: z.strictObject({}),
      taskSupport: "required",
      async handler(_args, ctx) {
        ctx.progress(0, 1, "Working");
        return { content: [text("done")] };
      },
    }),
  ],
  resources: [defineResource({ uri: "info://about", name: "about", read: () => [{ uri: "info://about", text: "about" }] })],
  prompts: [definePrompt({ name: "hello", get: () => ({ messages: [] }) })],
};

/** The test server with the real bindings, less the named ones. */
function serverWithout(...missing: (keyof EngineBindings)[]) {
  const worker = createMcpWorker(definition);
  const reduced = Object.fromEntries(Object.entries({ ...env }).filter(([name]) => !missing.includes(name as keyof EngineBindings)));
  return rpc((request) => worker.fetch(request, reduced as EngineBindings, createExecutionContext()));
}

const FORM = { elicitation: { form: {} } };
const LEGACY = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" };

async function discover(server: ReturnType<typeof serverWithout>) {
  return (await server.call("server/discover")).capabilities as Record<string, Record<string, unknown>>;
}

async function initialize(server: ReturnType<typeof serverWithout>, capabilities: Record<string, unknown>) {
  const body = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities } };
  const response = await server.post(body, LEGACY);
  return { response, result: (await readMessage(response)).result as Record<string, any> };
}

describe("a server with every binding", () => {
  it("advertises change notifications and keeps 2025 sessions", async () => {
    const server = serverWithout();
    const capabilities = await discover(server);
    expect(capabilities.tools).toEqual({ listChanged: true });
    expect(capabilities.resources).toEqual({ subscribe: true, listChanged: true });
    const { response } = await initialize(server, FORM);
    expect(response.headers.get("mcp-session-id")).toMatch(/\S/);
  });
});

describe("a server without SUBSCRIPTIONS", () => {
  const server = serverWithout("SUBSCRIPTIONS");

  it("advertises no change notifications, on either era", async () => {
    const capabilities = await discover(server);
    expect(capabilities.tools).toEqual({});
    expect(capabilities.resources).toEqual({});
    expect(capabilities.prompts).toEqual({});
    const { result } = await initialize(server, {});
    expect(result.capabilities.tools).toEqual({});
    expect(result.capabilities.resources).toEqual({});
  });

  it("answers subscriptions/listen with -32601 (the method is off)", async () => {
    const response = await server.send("subscriptions/listen", { notifications: { toolsListChanged: true } });
    expect(response.status).toBe(404);
    expect((await readMessage(response)).error?.code).toBe(-32601);
  });

  it("lets a tool that publishes succeed: publishing is then a no-op", async () => {
    const before = writes.length;
    const result = await server.call("tools/call", { name: "write_and_publish", arguments: {} });
    expect(result.isError).toBeUndefined();
    expect(writes.length).toBe(before + 1);
  });
});

describe("a server without LEGACY_SESSIONS", () => {
  const server = serverWithout("LEGACY_SESSIONS");

  it("serves 2025 clients statelessly: no Mcp-Session-Id even for a client that declares elicitation", async () => {
    const { response, result } = await initialize(server, FORM);
    expect(response.headers.get("mcp-session-id")).toBeNull();
    expect(result.protocolVersion).toBe("2025-11-25");
  });

  it("refuses a GET notification stream with 405", async () => {
    const response = await server.fetch(new Request("http://localhost:8787/mcp", { headers: { accept: "text/event-stream" } }));
    expect(response.status).toBe(405);
  });

  it("still serves 2026-07-28 multi round-trip questions, which need no session", async () => {
    const result = await server.call("tools/call", { name: "confirm", arguments: {} }, { capabilities: FORM });
    expect(result.resultType).toBe("input_required");
  });
});

describe("a server without REPLAY_GUARD", () => {
  const server = serverWithout("REPLAY_GUARD");

  it("refuses a single-use question with a clear error before asking it", async () => {
    const { value: response, entries } = await withLogs(() =>
      server.send("tools/call", { name: "confirm_once", arguments: {} }, { capabilities: FORM }),
    );
    const message = await readMessage(response);
    expect(response.status).toBe(500);
    expect(message.error).toMatchObject({ code: -32603, message: expect.stringContaining("REPLAY_GUARD") });
    expect(withoutAccessLog(entries)).toEqual([
      expect.objectContaining({ level: "error", message: "single-use input needs the REPLAY_GUARD binding" }),
    ]);
  });

  it("still asks questions that are not single use", async () => {
    const result = await server.call("tools/call", { name: "confirm", arguments: {} }, { capabilities: FORM });
    expect(result.resultType).toBe("input_required");
  });
});

describe("a server without TASKS", () => {
  const server = serverWithout("TASKS");
  const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
  const taskClient = { extensions: { [TASKS_EXTENSION]: {} } };

  it("does not advertise the Tasks extension (a server with the binding does)", async () => {
    expect((await discover(server)).extensions).toBeUndefined();
    expect((await discover(serverWithout())).extensions).toEqual({ [TASKS_EXTENSION]: {} });
  });

  it("runs an optional task tool synchronously, even for a client that declared the extension", async () => {
    const result = await server.call("tools/call", { name: "maybe_task", arguments: {} }, { capabilities: taskClient });
    expect(result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "done" }] });
  });

  it("answers a task-only tool with a clear error naming the missing binding", async () => {
    const { value: response, entries } = await withLogs(() =>
      server.send("tools/call", { name: "task_only", arguments: {} }, { capabilities: taskClient }),
    );
    expect((await readMessage(response)).error).toMatchObject({ code: -32603, message: expect.stringContaining("no TASKS binding") });
    expect(withoutAccessLog(entries)).toEqual([
      expect.objectContaining({ level: "error", message: "a task-only tool needs the TASKS binding", tool: "task_only" }),
    ]);
  });

  it("answers tasks/get with -32601 (the methods are off)", async () => {
    const response = await server.send(
      "tasks/get",
      { taskId: "AAAAAAAAAAAAAAAAAAAAAA" },
      { capabilities: taskClient, headers: { "mcp-name": "AAAAAAAAAAAAAAAAAAAAAA" } },
    );
    expect((await readMessage(response)).error?.code).toBe(-32601);
  });
});

describe("a server without ASSETS", () => {
  const UI = "io.modelcontextprotocol/ui";
  const rendersViews = { extensions: { [UI]: {} } };
  const view = defineView({ uri: "ui://bindings/view", name: "view", asset: "/views/view.html" });
  const withView = {
    ...definition,
    tools: [defineTool({ name: "show", description: "Shows a view.", input: z.strictObject({}), view, handler: () => ({ content: [] }) })],
  };
  const assets = { fetch: async () => new Response("<!doctype html><p>view</p>") } as unknown as Fetcher;
  const serve = (bindings: Partial<EngineBindings>) => {
    const worker = createMcpWorker(withView);
    const testEnv = { ...env, ...bindings } as Record<string, unknown>;
    if (!bindings.ASSETS) delete testEnv.ASSETS;
    return rpc((request) => worker.fetch(request, testEnv as EngineBindings, createExecutionContext()));
  };

  it("offers no view, even to a client that declares the extension (the same server with ASSETS does)", async () => {
    for (const [server, offered] of [
      [serve({}), false],
      [serve({ ASSETS: assets }), true],
    ] as const) {
      const capabilities = (await server.call("server/discover", {}, { capabilities: rendersViews })).capabilities as Record<string, any>;
      expect(capabilities.extensions?.[UI] !== undefined).toBe(offered);
      const [tool] = (await server.call("tools/list", {}, { capabilities: rendersViews })).tools as Record<string, unknown>[];
      expect(tool!._meta !== undefined).toBe(offered);
      const resources = (await server.call("resources/list", {}, { capabilities: rendersViews })).resources as { uri: string }[];
      expect(resources.some((resource) => resource.uri === "ui://bindings/view")).toBe(offered);
    }
  });

  it("answers a read of the view with 'Resource not found'", async () => {
    const response = await serve({}).send("resources/read", { uri: "ui://bindings/view" }, { capabilities: rendersViews });
    expect((await readMessage(response)).error).toMatchObject({ code: -32602, message: "Resource not found" });
  });
});

describe("a server without RATE_LIMITER", () => {
  it("does not limit requests (the same burst is refused where a tight limiter is bound)", async () => {
    // Seven requests: more than two of TIGHT_LIMITER's windows allow (3 each), so one is refused even when its window,
    // a minute of the wall clock, ends mid-burst.
    const burst = async (server: ReturnType<typeof serverWithout>) => {
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++)
        statuses.push((await server.send("server/discover", {}, { headers: { "cf-connecting-ip": "203.0.113.77" } })).status);
      return statuses;
    };
    expect(await burst(serverWithout("RATE_LIMITER"))).toEqual(Array(7).fill(200));
    const tight = createMcpWorker(definition);
    const tightEnv = { ...env, RATE_LIMITER: (env as unknown as Record<string, RateLimit>).TIGHT_LIMITER };
    const limited = rpc((request) => tight.fetch(request, tightEnv, createExecutionContext()));
    expect(await burst(limited)).toContain(429);
  });
});

describe("a server with no optional binding at all", () => {
  it("still serves tools, resources and prompts", async () => {
    const server = serverWithout("SUBSCRIPTIONS", "LEGACY_SESSIONS", "REPLAY_GUARD", "RATE_LIMITER");
    expect((await server.call("tools/call", { name: "write_and_publish", arguments: {} })).content).toEqual([
      { type: "text", text: "written" },
    ]);
    expect((await server.call("resources/read", { uri: "info://about" })).contents).toHaveLength(1);
    expect((await server.call("prompts/get", { name: "hello" })).messages).toEqual([]);
  });
});
