/**
 * @modelcontextprotocol/ext-tasks 0.2.2, a real requester, drives the task tools inside workerd: its session
 * (`withTasks`) on a port that sends each request to the test server, framed as its SDK adapter frames them
 * (2026-07-28 `_meta`, the extension declared, `Mcp-Name` on tasks/*). The full client over HTTP is
 * the template's test/e2e/ext-tasks.test.ts; here the cases that need a tool of the engine's fixtures.
 */
import {
  type ApplicationElicitResult,
  type ConnectedMcpSessionPort,
  createApplicationInputHandler,
  type JsonRpcResponse,
  type ResolvedInputExchangeContext,
  withTasks,
} from "@modelcontextprotocol/ext-tasks/client";
import { afterEach, describe, expect, it } from "vitest";
import { type Json, meta, readMessage } from "../helpers/rpc";
import { TASK_CLIENT, tasksServer } from "./fixtures";

/**
 * Polled every 100 ms (the least the server suggests). A question left unanswered fails its task after 3 s: a test
 * whose question never reaches the requester fails with that, rather than waiting for the test's own timeout.
 */
const server = tasksServer("tasks-ext-tasks", { pollIntervalMs: 100, inputTimeoutMs: 3_000 });

/** A port that sends each request to the test server as ext-tasks' SDK adapter frames it. */
function portTo(target: typeof server): ConnectedMcpSessionPort {
  return {
    endpointId: "workerd-test-server",
    taskCapabilities: { generation: "v2", capabilities: {} },
    async dispatch(request, options) {
      const { method, params = {} } = request as { method: string; params?: Json };
      const own = (params._meta ?? {}) as Json;
      const capabilities = { ...TASK_CLIENT, ...(own["io.modelcontextprotocol/clientCapabilities"] as Json) };
      const framed = { ...params, _meta: { ...own, ...meta(capabilities) } };
      const headers = Object.fromEntries(
        Object.entries(options?.context?.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
      );
      const message = await readMessage(await target.send(method, framed, { rawParams: true, headers }));
      return (message.error ? { kind: "error", error: message.error } : { kind: "result", result: message.result }) as JsonRpcResponse;
    },
    onServerRequest: () => () => true,
    onNotification: () => () => true,
    onInvalidated: () => () => true,
    invalidated: false,
  };
}

const sessions: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.close()));
});

function requester(elicit: (params: Json, context: ResolvedInputExchangeContext) => ApplicationElicitResult) {
  const errors: Error[] = [];
  const refuse = () => Promise.reject(new Error("forms only"));
  const session = withTasks(portTo(server), {
    onInputRequest: createApplicationInputHandler({
      elicitation: async (request, context) => elicit(request.params as Json, context),
      sampling: refuse,
      roots: refuse,
    }),
    onError: (error) => errors.push(error),
  });
  sessions.push(session);
  return { session, errors };
}

describe("ext-tasks 0.2.2 as the requester", () => {
  it("gets a completed task's result as the tool's CallToolResult", async () => {
    const { session, errors } = requester(() => ({ action: "cancel" }));
    const execution = await session.callTool("echo_task", { text: "via ext-tasks" });
    expect(execution.kind).toBe("task");
    const { outcome } = await execution.settle();
    expect(outcome).toMatchObject({ status: "completed", result: { resultType: "complete", content: [{ text: "echo: via ext-tasks" }] } });
    expect(errors).toEqual([]);
  });

  it("answers a question the handler asks again (its first answer refused by the handler's schema): the new key reaches it", async () => {
    const asked: string[] = [];
    const { session, errors } = requester((_params, context) => {
      asked.push(context.inputId!);
      return { action: "accept", content: { tag: asked.length === 1 ? "plain" : "#ok" } };
    });
    const execution = await session.callTool("hashtag_in_task", {});
    const { outcome } = await execution.settle();
    // Asked under an old key, ext-tasks would take it for the question it answered, and the task would wait (then fail).
    expect(outcome).toMatchObject({ status: "completed", result: { content: [{ text: "tag #ok" }] } });
    expect(asked).toEqual(["tag", "tag#2"]);
    expect(errors).toEqual([]);
  }, 15_000);
});
