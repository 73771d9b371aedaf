/**
 * 2025-era stream semantics: a dropped connection is not cancellation (notifications/cancelled is), response and
 * GET streams carry event ids (with a priming event for 2025-11-25), and a session resumes them with
 * Last-Event-ID. The 2026-07-28 wire keeps its own rules (closing the stream cancels; no ids, no resumption).
 */
import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { defineTool, elicitForm, text } from "../../src";
import { type Json, readMessage, readSse, testServer, URL_MCP } from "../helpers/rpc";
import { type Frame, sseReader } from "../helpers/sse";

const BASE = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const rpc = (method: string, params: Json = {}, id: number | string = 1) => ({ jsonrpc: "2.0", id, method, params });

/** What each `patient` call saw, by request id. */
const outcomes = new Map<unknown, { aborted: boolean }>();

/** Reports progress (when asked for it), waits `waitMs` or until cancelled, and records whether it was cancelled. */
const patient = defineTool({
  name: "patient",
  description: "Waits, then reports whether it was cancelled.",
  input: z.strictObject({ waitMs: z.number() }),
  async handler({ waitMs }, ctx) {
    ctx.progress(1, 2, "started");
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, waitMs);
      const stop = () => {
        clearTimeout(timer);
        resolve();
      };
      ctx.signal.addEventListener("abort", stop, { once: true });
    });
    outcomes.set(ctx.requestId, { aborted: ctx.signal.aborted });
    ctx.progress(2, 2, "done");
    return { content: [text(ctx.signal.aborted ? "cancelled" : "finished")] };
  },
});

/** Asks the client a question and records whether its signal was aborted while it waited. */
const confirm = defineTool({
  name: "confirm",
  description: "Asks for confirmation.",
  input: z.strictObject({}),
  async handler(_args, ctx) {
    try {
      const { ok } = await ctx.ask({ ok: elicitForm("Sure?", z.object({ ok: z.boolean() })) });
      outcomes.set(ctx.requestId, { aborted: ctx.signal.aborted });
      return { content: [text(`answered ${ok.action}`)] };
    } catch (error) {
      outcomes.set(ctx.requestId, { aborted: ctx.signal.aborted });
      throw error;
    }
  },
});

/** Reports progress, then after a moment answers with `kilobytes` of text. */
const big = defineTool({
  name: "big",
  description: "Answers with a large text.",
  input: z.strictObject({ kilobytes: z.number() }),
  async handler({ kilobytes }, ctx) {
    ctx.progress(1, 1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    return { content: [text("x".repeat(kilobytes * 1024))] };
  },
});

const trigger = defineTool({
  name: "trigger",
  description: "Announces a tool list change.",
  input: z.strictObject({}),
  async handler(_args, ctx) {
    await ctx.publish.toolsListChanged();
    return { content: [text("ok")] };
  },
});

const server = testServer({ tools: [patient, confirm, big, trigger], limits: { listen: { keepAliveMs: 60_000 } } });

function legacy(body: unknown, version = "2025-11-25", session?: string, init: RequestInit = {}) {
  return server.post(body, { ...BASE, "mcp-protocol-version": version, ...(session && { "mcp-session-id": session }) }, init);
}

/** A 2025 session (the client declares elicitation, so the server keeps one). */
async function openSession(protocolVersion = "2025-11-25"): Promise<string> {
  const response = await legacy(
    rpc("initialize", { protocolVersion, capabilities: { elicitation: {} }, clientInfo: { name: "streams-test", version: "1" } }),
    protocolVersion,
  );
  const session = response.headers.get("mcp-session-id");
  expect(session).toBeTruthy();
  await readMessage(response);
  return session!;
}

const callPatient = (id: number | string, waitMs: number, version?: string, session?: string, init?: RequestInit) =>
  legacy(rpc("tools/call", { name: "patient", arguments: { waitMs }, _meta: { progressToken: `p-${id}` } }, id), version, session, init);

function getStream(session: string, lastEventId?: string, version = "2025-11-25") {
  const headers: Record<string, string> = { accept: "text/event-stream", "mcp-session-id": session, "mcp-protocol-version": version };
  if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
  return server.fetch(new Request(URL_MCP, { method: "GET", headers }));
}

/** Waits (bounded: a bound on a hang, never a measurement) until `patient` or `confirm` recorded what it saw for this request id. */
async function outcome(id: unknown, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!outcomes.has(id) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return outcomes.get(id);
}

/**
 * Every frame until the stream ends (or nothing arrives for `idleMs`: a bound on a hang, long enough for a busy
 * machine, so that a slow frame is never mistaken for the end).
 */
async function framesUntilEnd(reader: ReturnType<typeof sseReader>, idleMs = 10_000): Promise<Frame[]> {
  const frames: Frame[] = [];
  for (;;) {
    const frame = await reader.frame(idleMs);
    if (frame === "end" || frame === "timeout") return frames;
    frames.push(frame);
  }
}

/** The event id of a message or priming frame. */
function idOf(frame: Frame | "timeout" | "end"): string | undefined {
  if (typeof frame !== "object") return undefined;
  if ("priming" in frame) return frame.priming;
  return "id" in frame ? frame.id : undefined;
}

describe("2025: a dropped connection is not cancellation", () => {
  it("lets a session-less call run to completion when its client drops the response stream", async () => {
    const reader = sseReader(await callPatient("drop-stream", 200));
    expect(await reader.message()).toMatchObject({ method: "notifications/progress" });
    await reader.cancel();
    expect(await outcome("drop-stream")).toEqual({ aborted: false });
  });

  it("lets a call run to completion when its client goes away before any response", async () => {
    const gone = new AbortController();
    const response = legacy(rpc("tools/call", { name: "patient", arguments: { waitMs: 200 } }, "drop-json"), "2025-11-25", undefined, {
      signal: gone.signal,
    });
    gone.abort();
    await response.catch(() => undefined);
    expect(await outcome("drop-json")).toEqual({ aborted: false });
  });
});

describe("2025: notifications/cancelled cancels", () => {
  it("aborts the handler of the session's request it names, and no response is sent for it", async () => {
    const session = await openSession();
    const reader = sseReader(await callPatient(42, 5_000, "2025-11-25", session));
    expect(await reader.message()).toMatchObject({ method: "notifications/progress" });
    const cancelled = await legacy({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 42 } }, "2025-11-25", session);
    expect(cancelled.status).toBe(202);
    expect(await outcome(42)).toEqual({ aborted: true });
    const rest = await framesUntilEnd(reader);
    expect(rest.filter((frame) => "data" in frame && frame.data.id === 42)).toEqual([]);
  });

  it("reaches a handler that has been running for a while", async () => {
    const session = await openSession();
    const reader = sseReader(await callPatient("long", 8_000, "2025-11-25", session));
    await reader.message();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await legacy({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "long" } }, "2025-11-25", session);
    expect(await outcome("long")).toEqual({ aborted: true });
    await reader.cancel();
  });

  it("answers a request cancelled before it streamed anything with an empty stream, not a response", async () => {
    const session = await openSession();
    const pending = legacy(rpc("tools/call", { name: "patient", arguments: { waitMs: 5_000 } }, "quiet"), "2025-11-25", session);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await legacy({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "quiet" } }, "2025-11-25", session);
    const response = await pending;
    expect(await outcome("quiet")).toEqual({ aborted: true });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(await readSse(response)).toEqual([]);
  });

  it("aborts a handler waiting for the client's answer to its question at once", async () => {
    const session = await openSession();
    const reader = sseReader(await legacy(rpc("tools/call", { name: "confirm", arguments: {} }, "asking"), "2025-11-25", session));
    expect(await reader.message()).toMatchObject({ method: "elicitation/create" });
    await legacy({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "asking" } }, "2025-11-25", session);
    expect(await outcome("asking")).toEqual({ aborted: true });
    const rest = await framesUntilEnd(reader);
    expect(rest.filter((frame) => "data" in frame && frame.data.id === "asking")).toEqual([]);
  });

  it("leaves a cancelled request out of a 2025-03-26 batch's answers", async () => {
    const session = await openSession("2025-03-26");
    const batch = legacy(
      [rpc("tools/call", { name: "patient", arguments: { waitMs: 5_000 } }, 7), rpc("ping", {}, 8)],
      "2025-03-26",
      session,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await legacy({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7 } }, "2025-03-26", session);
    const answers = (await (await batch).json()) as Json[];
    expect(answers).toEqual([{ jsonrpc: "2.0", id: 8, result: {} }]);
    expect(await outcome(7)).toEqual({ aborted: true });
  });

  it("accepts notifications/cancelled from a session-less client, which cannot reach its request (ids are per session)", async () => {
    const reader = sseReader(await callPatient("unreachable", 300));
    await reader.message();
    const cancelled = await legacy({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "unreachable" } });
    expect(cancelled.status).toBe(202);
    expect(await outcome("unreachable")).toEqual({ aborted: false });
    await reader.cancel();
  });
});

describe("2025: event ids and priming on response streams", () => {
  it("opens a 2025-11-25 session's response stream with a priming event and gives every event its own id", async () => {
    const session = await openSession();
    const frames = await framesUntilEnd(sseReader(await callPatient("ids", 10, "2025-11-25", session)));
    expect(frames[0]).toEqual({ priming: expect.any(String) });
    const messages = frames.slice(1);
    expect(messages.map((frame) => ("data" in frame ? (frame.data.method ?? "response") : "other"))).toEqual([
      "notifications/progress",
      "notifications/progress",
      "response",
    ]);
    const ids = frames.map(idOf);
    expect(ids.every((id) => typeof id === "string" && /^[\x21-\x7e]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("gives a 2025-06-18 session's events ids but no priming event (empty data breaks older clients)", async () => {
    const session = await openSession("2025-06-18");
    const frames = await framesUntilEnd(sseReader(await callPatient("older", 10, "2025-06-18", session)));
    expect(frames.every((frame) => "data" in frame && typeof frame.id === "string")).toBe(true);
    expect(frames).toHaveLength(3);
  });

  it("gives a session-less client's response stream no ids: without a session nothing could resume it", async () => {
    const frames = await framesUntilEnd(sseReader(await callPatient("stateless", 10)));
    expect(frames.map(idOf)).toEqual([undefined, undefined, undefined]);
  });

  it("leaves 2026-07-28 response streams without ids or priming", async () => {
    const response = await server.send(
      "tools/call",
      { name: "patient", arguments: { waitMs: 10 } },
      { metaExtra: { progressToken: "modern" } },
    );
    const frames = await framesUntilEnd(sseReader(response));
    expect(frames).toHaveLength(3);
    expect(frames.map(idOf)).toEqual([undefined, undefined, undefined]);
  });
});

describe("2025: resuming a response stream", () => {
  it("replays what a dropped response stream missed, ending with the response, on GET with its Last-Event-ID", async () => {
    const session = await openSession();
    const reader = sseReader(await callPatient("resumed", 300, "2025-11-25", session));
    expect(await reader.frame()).toEqual({ priming: expect.any(String) });
    const first = await reader.frame();
    expect(first).toMatchObject({ data: { method: "notifications/progress", params: { progress: 1 } } });
    await reader.cancel();

    const resumed = await getStream(session, idOf(first));
    expect(resumed.status).toBe(200);
    const frames = await framesUntilEnd(sseReader(resumed));
    expect(frames.map((frame) => ("data" in frame ? frame.data : frame))).toEqual([
      expect.objectContaining({ method: "notifications/progress", params: expect.objectContaining({ progress: 2 }) }),
      expect.objectContaining({ id: "resumed", result: { content: [{ type: "text", text: "finished" }] } }),
    ]);
    expect(frames.every((frame) => typeof idOf(frame) === "string" && idOf(frame) !== idOf(first))).toBe(true);
  });

  it("replaces a kept final response larger than the session keeps with an error response saying so", async () => {
    const session = await openSession();
    const reader = sseReader(
      await legacy(
        rpc("tools/call", { name: "big", arguments: { kilobytes: 600 }, _meta: { progressToken: "big" } }, "huge"),
        "2025-11-25",
        session,
      ),
    );
    await reader.frame();
    const progress = await reader.frame();
    await reader.cancel();
    const frames = await framesUntilEnd(sseReader(await getStream(session, idOf(progress))));
    expect(frames).toEqual([
      {
        id: expect.any(String),
        data: {
          jsonrpc: "2.0",
          id: "huge",
          error: { code: -32603, message: "The response was larger than the 524288 bytes kept for resumption" },
        },
      },
    ]);
  });

  it("answers 405 to a Last-Event-ID of a response stream that has nothing left to resume", async () => {
    const session = await openSession();
    const frames = await framesUntilEnd(sseReader(await callPatient("complete", 10, "2025-11-25", session)));
    const resumed = await getStream(session, idOf(frames.at(-1)!));
    expect(resumed.status).toBe(405);
    await resumed.body?.cancel();
  });
});

describe("2025: the session's GET stream", () => {
  const publish = () =>
    server.post(rpc("tools/call", { name: "trigger", arguments: {} }), { ...BASE, "mcp-protocol-version": "2025-11-25" });

  it("opens with a priming event, and its notifications carry ids", async () => {
    const session = await openSession();
    const reader = sseReader(await getStream(session));
    expect(await reader.frame()).toEqual({ comment: "listening" });
    expect(await reader.frame()).toEqual({ priming: expect.any(String) });
    await readMessage(await publish());
    const event = await reader.frame();
    expect(event).toMatchObject({ data: { method: "notifications/tools/list_changed" }, id: expect.any(String) });
    await reader.cancel();
  });

  it("replays the notifications a client missed when it reconnects with Last-Event-ID, then continues live", async () => {
    const session = await openSession();
    const first = sseReader(await getStream(session));
    await first.frame();
    await first.frame();
    await readMessage(await publish());
    const seen = await first.frame();
    await first.cancel();

    await readMessage(await publish());
    await readMessage(await publish());
    const second = sseReader(await getStream(session, idOf(seen)));
    const replayed = [await second.message(), await second.message()];
    expect(replayed).toEqual([
      { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
      { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
    ]);
    await readMessage(await publish());
    expect(await second.message()).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    expect(await second.message(300)).toBe("timeout");
    await second.cancel();
  });

  it("leaves 2026-07-28 listen streams without ids, even on a hub that keeps a replay buffer for sessions", async () => {
    const session = await openSession();
    const legacyStream = sseReader(await getStream(session));
    await legacyStream.frame();
    await legacyStream.frame();
    const listen = sseReader(await server.send("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id: "modern" }));
    expect(await listen.frame()).toEqual({ comment: "listening" });
    expect(await listen.frame()).toMatchObject({ data: { method: "notifications/subscriptions/acknowledged" } });
    await readMessage(await publish());
    expect(await listen.frame()).toEqual({
      data: {
        jsonrpc: "2.0",
        method: "notifications/tools/list_changed",
        params: { _meta: { "io.modelcontextprotocol/subscriptionId": "modern" } },
      },
    });
    expect(await legacyStream.frame()).toMatchObject({ id: expect.any(String) });
    await Promise.all([listen.cancel(), legacyStream.cancel()]);
  });

  it("starts a fresh stream for a Last-Event-ID it does not know", async () => {
    const session = await openSession();
    for (const lastEventId of ["nonsense", "get:xxxxxxxxxxxx:999999999:999999999"]) {
      const reader = sseReader(await getStream(session, lastEventId));
      expect(await reader.frame()).toEqual({ comment: "listening" });
      expect(await reader.frame()).toEqual({ priming: expect.any(String) });
      expect(await reader.message(300)).toBe("timeout");
      await reader.cancel();
    }
  });
});
