/**
 * What the test client does when the server breaks the protocol: each check it makes on what it receives fails the
 * test with a clear McpClientError (kind "protocol", or "listen" for a stream that stays silent), and its own bounds
 * hold (pages). The engine never sends these, so a scripted stand-in for the Worker sends them.
 */
import { describe, expect, it } from "vitest";
import { connect, McpHttpError } from "../../src/testing";

type Body = Record<string, unknown>;

/** A stand-in Worker that answers every request with `answer(request body)`: a JSON body, or a Response as it is. */
function scripted(answer: (body: Body) => Body | Response) {
  let requests = 0;
  const fetch = async (request: Request) => {
    requests++;
    const body = (await request.json()) as Body;
    const answered = answer(body);
    return answered instanceof Response ? answered : Response.json(answered);
  };
  return { fetch, requests: () => requests };
}

/** An SSE response carrying `messages`, then closed; or left open when `open` is set. */
function sse(messages: unknown[], open = false): Response {
  const text = messages.map((message) => `event: message\ndata: ${JSON.stringify(message)}\n\n`).join("");
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      if (!open) controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

const result = (body: Body, value: Body) => ({ jsonrpc: "2.0", id: body.id, result: value });

describe("the test client when the server breaks the protocol", () => {
  it("fails a 2026-07-28 result without resultType", async () => {
    const client = await connect(scripted((body) => result(body, { content: [] })).fetch);
    await expect(client.callTool("echo")).rejects.toMatchObject({
      kind: "protocol",
      message: "tools/call echo: the result has no resultType (a 2026-07-28 server must send one)",
    });
  });

  it("fails a resultType it does not know, and a list result that is not complete", async () => {
    const client = await connect(
      scripted((body) => result(body, { resultType: body.method === "tools/call" ? "later" : "input_required", tools: [] })).fetch,
    );
    await expect(client.callTool("echo")).rejects.toMatchObject({
      kind: "protocol",
      message: 'tools/call echo: resultType "later" is none a client knows',
    });
    await expect(client.listTools()).rejects.toMatchObject({
      kind: "protocol",
      message: 'tools/list: resultType "input_required", not "complete"',
    });
  });

  it("fails a request from the server on a 2026-07-28 response stream", async () => {
    const server = scripted((body) =>
      sse([{ jsonrpc: "2.0", id: "srv-1", method: "elicitation/create", params: {} }, result(body, { resultType: "complete" })]),
    );
    const client = await connect(server.fetch);
    await expect(client.request("ping")).rejects.toMatchObject({
      kind: "protocol",
      message: "ping: a 2026-07-28 server sends no requests, yet elicitation/create arrived",
    });
  });

  it("fails a response with another request's id, and a stream that ends before the response", async () => {
    const wrongId = await connect(scripted(() => ({ jsonrpc: "2.0", id: 999, result: { resultType: "complete" } })).fetch);
    await expect(wrongId.request("ping")).rejects.toMatchObject({ kind: "protocol", message: expect.stringContaining("has id 999") });
    const cut = await connect(scripted(() => sse([{ jsonrpc: "2.0", method: "notifications/progress", params: {} }])).fetch);
    await expect(cut.request("ping")).rejects.toMatchObject({
      kind: "protocol",
      message: "ping: the SSE stream ended before the response arrived",
    });
  });

  it("throws an answer that holds no JSON-RPC message as McpHttpError, with its status and body", async () => {
    const client = await connect(scripted(() => new Response("upstream unavailable", { status: 502 })).fetch);
    const failure = await client.request("ping").catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(McpHttpError);
    expect(failure).toMatchObject({ status: 502, body: "upstream unavailable", message: "HTTP 502 for POST ping: upstream unavailable" });
  });

  it("follows at most 100 pages of a listing that never ends", async () => {
    const server = scripted((body) => result(body, { resultType: "complete", tools: [], nextCursor: "more" }));
    const client = await connect(server.fetch);
    await expect(client.pages("tools/list")).rejects.toMatchObject({
      kind: "protocol",
      message: "tools/list: still a nextCursor after 100 pages",
    });
    expect(server.requests()).toBe(100);
  });

  it("fails a listen notification that does not carry the subscription's id", async () => {
    const tag = (id: unknown) => ({ _meta: { "io.modelcontextprotocol/subscriptionId": id } });
    const server = scripted((body) =>
      sse(
        [
          { jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { ...tag(body.id), notifications: {} } },
          { jsonrpc: "2.0", method: "notifications/tools/list_changed", params: tag("someone-else") },
        ],
        true,
      ),
    );
    const listener = await (await connect(server.fetch)).listen({ toolsListChanged: true });
    await expect(listener.next()).rejects.toMatchObject({
      kind: "protocol",
      message: expect.stringContaining("does not carry the subscription id"),
    });
    await listener.close();
  });

  it("gives up on a listen stream that sends no acknowledgement within timeoutMs", async () => {
    const client = await connect(scripted(() => sse([], true)).fetch);
    await expect(client.listen({ toolsListChanged: true }, { timeoutMs: 100 })).rejects.toMatchObject({
      kind: "listen",
      message: expect.stringContaining("no acknowledgement within 100 ms"),
    });
  });

  it("fails a completed task whose result carries no resultType (it is the call's 2026-07-28 CallToolResult)", async () => {
    const task = {
      taskId: "t1",
      createdAt: "2026-07-28T00:00:00Z",
      lastUpdatedAt: "2026-07-28T00:00:00Z",
      ttlMs: 60_000,
      pollIntervalMs: 10,
    };
    const server = scripted((body) =>
      body.method === "tools/call"
        ? result(body, { resultType: "task", ...task, status: "working" })
        : result(body, { resultType: "complete", ...task, status: "completed", result: { content: [] } }),
    );
    const client = await connect(server.fetch);
    await expect(client.callTool("slow")).rejects.toMatchObject({
      kind: "protocol",
      message: 'task t1: its result has resultType undefined, not "complete" (a 2026-07-28 CallToolResult must carry it)',
    });
  });

  it("fails a 2025 initialize that the server answers with another revision", async () => {
    const server = scripted((body) =>
      result(body, { protocolVersion: "2025-03-26", capabilities: {}, serverInfo: { name: "old", version: "1" } }),
    );
    await expect(connect(server.fetch, { era: "2025" })).rejects.toMatchObject({
      kind: "protocol",
      message: "initialize: asked for 2025-11-25, the server answered 2025-03-26",
    });
  });
});
