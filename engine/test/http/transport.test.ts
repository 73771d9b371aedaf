import { describe, expect, it, vi } from "vitest";
import { cancelledRequests, FIXTURE } from "../helpers/fixture";
import { fixture, meta, readMessage, readSse, send, standardHeaders, testServer } from "../helpers/rpc";

describe("HTTP surface", () => {
  it("answers GET and DELETE on /mcp with 405, Allow: POST and a JSON-RPC error without id or detail", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await fixture.fetch("http://localhost:8787/mcp", { method });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
      // No detail beyond the refusal itself: no id, no data.
      expect(await response.json()).toEqual({
        jsonrpc: "2.0",
        error: { code: -32600, message: expect.stringMatching(/^Method Not Allowed/) },
      });
    }
  });

  it("answers GET /health with 200 {status: ok} under load, without touching storage or showing config", async () => {
    const responses = await Promise.all(Array.from({ length: 50 }, () => fixture.fetch("http://localhost:8787/health")));
    expect(responses.map((response) => response.status)).toEqual(responses.map(() => 200));
    for (const response of responses) expect(await response.json()).toEqual({ status: "ok" });

    // Every storage binding throws when touched: /health still answers.
    const untouchable = new Proxy(
      {},
      {
        get: () => {
          throw new Error("storage touched");
        },
      },
    );
    const bindings = { REPLAY_GUARD: untouchable, SUBSCRIPTIONS: untouchable, LEGACY_SESSIONS: untouchable };
    const noStorage = testServer({}, bindings as unknown as Record<string, string>);
    const health = await noStorage.fetch(new Request("http://localhost:8787/health"));
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
  });

  it("answers unknown paths with 404", async () => {
    expect((await fixture.fetch("http://localhost:8787/nope")).status).toBe(404);
  });

  it("ignores Mcp-Session-Id and Last-Event-ID: never minted or echoed", async () => {
    const response = await send("tools/list", {}, { headers: { "mcp-session-id": "abc", "last-event-id": "5" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("mcp-session-id")).toBeNull();
    expect((await readMessage(response)).result?.tools).toBeDefined();
  });

  it("answers a plain request as application/json with a request id header", async () => {
    const response = await send("tools/list");
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

/** A call that takes five steps of 20 ms, reporting progress and logging at info and debug on each. */
const slow = { name: "progress", arguments: {} };
/** How long a test waits for a handler to see its cancellation (at its next step): a bound on a hang, never a measurement. */
const HANDLER_SEES_IT = { timeout: 10_000, interval: 20 };

describe("observability", () => {
  it("writes one structured log line per request with ACCESS_LOG=all: era, method, tool, status, code and duration, and no arguments", async () => {
    const spy = vi.spyOn(console, "log");
    try {
      const response = await testServer(FIXTURE, { ACCESS_LOG: "all" }).send("tools/call", {
        name: "echo",
        arguments: { text: "hunter2" },
      });
      await readMessage(response);
      const lines = spy.mock.calls.map(([line]) => String(line)).filter((line) => line.includes('"message":"mcp request"'));
      expect(lines).toHaveLength(1);
      const entry = JSON.parse(lines[0]!);
      expect(entry).toMatchObject({
        level: "info",
        traceId: response.headers.get("x-request-id"),
        era: "2026-07-28",
        method: "tools/call",
        name: "echo",
        status: 200,
      });
      expect(entry.durationMs).toBeGreaterThanOrEqual(0);
      expect(lines[0]).not.toContain("hunter2");
    } finally {
      spy.mockRestore();
    }
  });

  it("writes only failures by default (ACCESS_LOG=errors), and nothing with ACCESS_LOG=off", async () => {
    const spy = vi.spyOn(console, "log");
    try {
      await readMessage(await fixture.send("tools/list"));
      await readMessage(await fixture.send("nope/method"));
      await readMessage(await testServer({}, { ACCESS_LOG: "off" }).send("nope/method"));
      const lines = spy.mock.calls.map(([line]) => String(line)).filter((line) => line.includes('"message":"mcp request"'));
      expect(lines.map((line) => JSON.parse(line).status)).toEqual([404]);
    } finally {
      spy.mockRestore();
    }
  });

  it("logs by default a 2025 request answered with HTTP 200 and a JSON-RPC error, with its code", async () => {
    const spy = vi.spyOn(console, "log");
    try {
      const legacyHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" };
      const response = await fixture.post({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "nope" } }, legacyHeaders);
      expect(response.status).toBe(200);
      await response.text();
      const lines = spy.mock.calls.map(([line]) => String(line)).filter((line) => line.includes('"message":"mcp request"'));
      expect(lines.map((line) => JSON.parse(line))).toEqual([expect.objectContaining({ era: "2025-03-26", status: 200, code: -32602 })]);
    } finally {
      spy.mockRestore();
    }
  });

  it("never logs a tool name or method the server does not declare: only what it has, else _OTHER", async () => {
    const spy = vi.spyOn(console, "log");
    try {
      const logged = testServer(FIXTURE, { ACCESS_LOG: "all" });
      await readMessage(await logged.send("tools/call", { name: "my secret diary", arguments: {} }));
      await readMessage(await logged.send("my secret diary"));
      await readMessage(await logged.send("tools/call", { name: "echo", arguments: { text: "x" } }));
      const lines = spy.mock.calls.map(([line]) => String(line)).filter((line) => line.includes('"message":"mcp request"'));
      expect(lines.join("\n")).not.toContain("secret");
      expect(lines.map((line) => [JSON.parse(line).method, JSON.parse(line).name])).toEqual([
        ["tools/call", undefined],
        ["_OTHER", undefined],
        ["tools/call", "echo"],
      ]);
    } finally {
      spy.mockRestore();
    }
  });

  it("logs the JSON-RPC error code of a refused request", async () => {
    const spy = vi.spyOn(console, "log");
    try {
      await fixture.send("nope/method");
      const entry = JSON.parse(spy.mock.calls.map(([line]) => String(line)).find((line) => line.includes("mcp request"))!);
      expect(entry).toMatchObject({ status: 404, code: -32601, method: "nope/method" });
    } finally {
      spy.mockRestore();
    }
  });
});

describe("streaming", () => {
  it("answers with JSON when nothing is streamed", async () => {
    const response = await fixture.send("tools/call", slow);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect((await readMessage(response)).result?.content).toEqual([{ type: "text", text: "done" }]);
  });

  it("streams progress as SSE with X-Accel-Buffering: no, then ends with the response", async () => {
    const response = await fixture.send("tools/call", slow, { id: 9, metaExtra: { progressToken: "p1" } });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    const events = await readSse(response);
    const progress = events.filter((event) => event.method === "notifications/progress");
    expect(progress.map((event) => (event.params as { progress: number }).progress)).toEqual([1, 2, 3, 4, 5]);
    expect(progress[0]?.params).toEqual({ progressToken: "p1", progress: 1, total: 5, message: "step 1" });
    expect(events.at(-1)).toMatchObject({ id: 9, result: { content: [{ type: "text", text: "done" }] } });
    expect(events.some((event) => event.method === "notifications/message")).toBe(false);
  });

  it("sends no log messages on 2026-07-28, even when the request sets a logLevel (logging is not declared there)", async () => {
    const response = await fixture.send("tools/call", slow, {
      metaExtra: { "io.modelcontextprotocol/logLevel": "debug", progressToken: "p" },
    });
    const events = await readSse(response);
    expect(events.filter((event) => event.method === "notifications/progress")).toHaveLength(5);
    expect(events.filter((event) => event.method === "notifications/message")).toEqual([]);
  });

  it("sends a 2025 session's log messages only at or above the level it set", async () => {
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    // A session id is assigned on the initialize response only; logging/setLevel then sets that session's level.
    const init = await fixture.post(
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {} } },
      headers,
    );
    const session = { ...headers, "mcp-protocol-version": "2025-11-25", "mcp-session-id": init.headers.get("mcp-session-id")! };
    const setLevel = await fixture.post({ jsonrpc: "2.0", id: 2, method: "logging/setLevel", params: { level: "info" } }, session);
    expect((await readMessage(setLevel)).result).toEqual({});
    const response = await fixture.post({ jsonrpc: "2.0", id: 3, method: "tools/call", params: slow }, session);
    const logs = (await readSse(response)).filter((event) => event.method === "notifications/message");
    expect(logs).toHaveLength(5);
    expect(logs.every((event) => (event.params as { level: string }).level === "info")).toBe(true);
  });

  it("treats a client going away before a JSON answer as cancellation too: a handler that watches its signal sees it aborted", async () => {
    const client = new AbortController();
    const params = { name: "progress", arguments: { steps: 10 }, _meta: meta() };
    const answer = fixture.post(
      { jsonrpc: "2.0", id: "gone-before-json", method: "tools/call", params },
      standardHeaders("tools/call", params),
      {
        signal: client.signal,
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 30));
    client.abort();
    await answer.catch(() => undefined);
    await expect.poll(() => cancelledRequests, HANDLER_SEES_IT).toContain("gone-before-json");
  });

  it("treats a client closing the SSE response mid-call as cancellation: the handler sees an aborted signal", async () => {
    const response = await fixture.send("tools/call", slow, { id: "cancel-me", metaExtra: { progressToken: 1 } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    await expect.poll(() => cancelledRequests, HANDLER_SEES_IT).toContain("cancel-me");
  });
});
