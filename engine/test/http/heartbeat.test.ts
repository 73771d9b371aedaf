/**
 * A call still running after a second is answered on an SSE stream that carries keep-alive comments while it runs
 * (http/reply.ts `STREAM_AFTER_MS`, `KEEPALIVE_MS`): the writes are how a Worker learns, under `wrangler dev` and
 * behind proxies, that its client went away, and they keep an idle stream from being cut. A call that ends sooner
 * answers JSON as before. First the Reply alone on fake timers (what is sent when, and that no timer outlives the
 * answer), then through the Worker on both eras, on real time.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import * as z from "zod/mini";
import { defineTool, text } from "../../src";
import { KEEPALIVE_MS, Reply, STREAM_AFTER_MS } from "../../src/http/reply";
import { FIXTURE } from "../helpers/fixture";
import { type Json, readMessage, testServer, URL_MCP } from "../helpers/rpc";
import { type Frame, sseReader } from "../helpers/sse";

const BOTH = "application/json, text/event-stream";
const requestAccepting = (accept: string) => new Request(URL_MCP, { method: "POST", headers: { accept }, body: "{}" });
const final = { jsonrpc: "2.0", id: 1, result: { content: [] } };

/** Everything a finished SSE body carried, frame by frame, as the helpers' reader parses it. */
async function framesOf(response: Response): Promise<Frame[]> {
  const reader = sseReader(response);
  const frames: Frame[] = [];
  for (;;) {
    const next = await reader.frame();
    if (next === "end") return frames;
    if (next === "timeout") throw new Error(`the stream did not end; so far: ${JSON.stringify(frames)}`);
    frames.push(next);
  }
}

/** Whether `promise` has settled, without waiting for it. */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  const pending = Symbol("pending");
  return (await Promise.race([promise.then(() => true), Promise.resolve(pending)])) !== pending;
}

describe("Reply: when a slow method's answer turns into a keep-alive stream", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("answers a method that finishes within its first second as JSON, and leaves no timer behind", async () => {
    vi.useFakeTimers();
    const reply = new Reply(requestAccepting(BOTH));
    reply.keepAliveWhileRunning();
    vi.advanceTimersByTime(STREAM_AFTER_MS - 1);
    reply.finish(final, 200);
    const response = await reply.response;
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toEqual(final);
    expect(vi.getTimerCount()).toBe(0);
    // Once JSON is the answer nothing switches it: the stream's moment passes with no stream.
    vi.advanceTimersByTime(10 * STREAM_AFTER_MS);
    expect(reply.streaming).toBe(false);
  });

  it("turns into SSE once the method has run a second, sends a comment at once and then at each interval, and ends with the response", async () => {
    vi.useFakeTimers();
    const reply = new Reply(requestAccepting(BOTH));
    reply.keepAliveWhileRunning();
    vi.advanceTimersByTime(STREAM_AFTER_MS - 1);
    expect(await settledYet(reply.response)).toBe(false);
    vi.advanceTimersByTime(1);
    const response = await reply.response;
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(reply.streaming).toBe(true);
    // Two more intervals: three comments in all, then the answer.
    vi.advanceTimersByTime(2 * KEEPALIVE_MS);
    reply.finish(final, 200);
    // What is left runs once (the writer's last flush) and schedules nothing more.
    vi.runOnlyPendingTimers();
    expect(vi.getTimerCount()).toBe(0);
    expect(await framesOf(response)).toEqual([
      { comment: "keepalive" },
      { comment: "keepalive" },
      { comment: "keepalive" },
      { data: final },
    ]);
  });

  it("fills the silences of a stream a notification opened with comments, and only the silences", async () => {
    vi.useFakeTimers();
    const reply = new Reply(requestAccepting(BOTH));
    reply.keepAliveWhileRunning();
    const progress = (value: number) => ({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: "p", progress: value },
    });
    reply.notify(progress(1));
    const response = await reply.response;
    // The keep-alive starts after an interval that carried a notification (no comment), then one of silence (a comment).
    vi.advanceTimersByTime(STREAM_AFTER_MS + KEEPALIVE_MS);
    reply.notify(progress(2));
    // Again: an interval with a notification, then one of silence.
    vi.advanceTimersByTime(2 * KEEPALIVE_MS);
    reply.finish(final, 200);
    vi.runOnlyPendingTimers();
    expect(vi.getTimerCount()).toBe(0);
    expect(await framesOf(response)).toEqual([
      { data: progress(1) },
      { comment: "keepalive" },
      { data: progress(2) },
      { comment: "keepalive" },
      { data: final },
    ]);
  });

  it("keeps JSON for a client that does not take SSE: no stream and no comment, however long the method runs", async () => {
    vi.useFakeTimers();
    const reply = new Reply(requestAccepting("application/json"));
    reply.keepAliveWhileRunning();
    vi.advanceTimersByTime(30 * STREAM_AFTER_MS);
    expect(await settledYet(reply.response)).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
    reply.finish(final, 200);
    expect((await reply.response).headers.get("content-type")).toBe("application/json");
  });

  it("keeps JSON inside a batch, whose answers are collected", async () => {
    vi.useFakeTimers();
    const reply = new Reply(undefined, { canStream: false, disconnectCancels: false });
    reply.keepAliveWhileRunning();
    vi.advanceTimersByTime(30 * STREAM_AFTER_MS);
    expect(vi.getTimerCount()).toBe(0);
    reply.finish(final, 200);
    expect((await reply.response).headers.get("content-type")).toBe("application/json");
  });

  it("stops the comments when the request is cancelled: the stream ends and no timer is left", async () => {
    vi.useFakeTimers();
    const reply = new Reply(requestAccepting(BOTH));
    reply.keepAliveWhileRunning();
    vi.advanceTimersByTime(STREAM_AFTER_MS);
    const response = await reply.response;
    reply.cancel();
    vi.runOnlyPendingTimers();
    expect(vi.getTimerCount()).toBe(0);
    expect(await framesOf(response)).toEqual([{ comment: "keepalive" }]);
  });

  it("aborts its signal when the client cancels the keep-alive stream (2026-07-28), and stops the comments", async () => {
    vi.useFakeTimers();
    const reply = new Reply(requestAccepting(BOTH));
    const { signal } = reply;
    reply.keepAliveWhileRunning();
    vi.advanceTimersByTime(STREAM_AFTER_MS);
    await (await reply.response).body!.cancel();
    expect(signal.aborted).toBe(true);
    vi.runOnlyPendingTimers();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("leaves its signal alone when a 2025 client drops the keep-alive stream (a disconnect is not cancellation there)", async () => {
    vi.useFakeTimers();
    const reply = new Reply(requestAccepting(BOTH), { disconnectCancels: false });
    const { signal } = reply;
    reply.keepAliveWhileRunning();
    vi.advanceTimersByTime(STREAM_AFTER_MS);
    await (await reply.response).body!.cancel();
    expect(signal.aborted).toBe(false);
    // The client is gone: nothing more is written to it.
    vi.runOnlyPendingTimers();
    expect(vi.getTimerCount()).toBe(0);
  });
});

/** How each `wait` call ended, by JSON-RPC id: whether its signal had aborted, and whether its time had run out. */
const waits = new Map<string, { aborted: boolean; ranOut: boolean }>();
/** Resolves once the `wait` call with this id has ended (bounded: a bound on a hang, never a measurement). */
async function waitEnded(id: string, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!waits.has(id) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  const ended = waits.get(id);
  if (!ended) throw new Error(`the call ${id} had not ended after ${timeoutMs} ms`);
  return ended;
}

const wait = defineTool({
  name: "wait",
  description: "Waits `ms` milliseconds, or until its signal aborts, and records which.",
  input: z.strictObject({ ms: z.int().check(z.minimum(0), z.maximum(10_000)) }),
  async handler({ ms }, ctx) {
    let ranOut = false;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        ranOut = true;
        resolve();
      }, ms);
      ctx.signal.addEventListener(
        "abort",
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
    waits.set(String(ctx.requestId), { aborted: ctx.signal.aborted, ranOut });
    return { content: [text(ctx.signal.aborted ? "stopped" : `waited ${ms} ms`)] };
  },
});

const server = testServer({ ...FIXTURE, tools: [...FIXTURE.tools, wait] });
const callWait = (id: string, ms: number, metaExtra: Json = {}) =>
  server.send("tools/call", { name: "wait", arguments: { ms } }, { id, metaExtra });

const LEGACY = { "content-type": "application/json", accept: BOTH };
const legacyCall = (id: string, ms: number, headers: Record<string, string> = {}) =>
  server.post({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "wait", arguments: { ms } } }, { ...LEGACY, ...headers });

describe("a slow call through the Worker", () => {
  it("answers a 2026-07-28 call still running after a second as SSE: keep-alive comments, then its response", async () => {
    const response = await callWait("slow", 1_800);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const frames = await framesOf(response);
    const comments = frames.filter((frame) => "comment" in frame);
    expect(comments.length).toBeGreaterThanOrEqual(1);
    expect(comments.every((frame) => "comment" in frame && frame.comment === "keepalive")).toBe(true);
    expect(frames.at(-1)).toMatchObject({ data: { id: "slow", result: { content: [{ type: "text", text: "waited 1800 ms" }] } } });
    expect(await waitEnded("slow")).toMatchObject({ aborted: false });
  });

  it("answers a 2026-07-28 call that ends within its first second as JSON, as it always did", async () => {
    const response = await callWait("fast", 200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect((await readMessage(response)).result?.content).toEqual([{ type: "text", text: "waited 200 ms" }]);
  });

  it("aborts the tool's ctx.signal when the client drops the keep-alive stream of a call whose answer had no notification", async () => {
    const response = await callWait("dropped", 8_000);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = sseReader(response);
    expect(await reader.frame()).toEqual({ comment: "keepalive" });
    await reader.cancel();
    // Designed to wait 8 s: it stopped when its client left (about a second in), before its time ran out.
    expect(await waitEnded("dropped")).toEqual({ aborted: true, ranOut: false });
  });

  it("streams a slow 2025 call's answer with keep-alive comments, and runs it on when the client drops the stream", async () => {
    const response = await legacyCall("legacy-slow", 1_800);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const frames = await framesOf(response);
    expect(frames.some((frame) => "comment" in frame)).toBe(true);
    expect(frames.at(-1)).toMatchObject({ data: { id: "legacy-slow", result: { content: [{ text: "waited 1800 ms" }] } } });

    const dropped = await legacyCall("legacy-dropped", 1_500);
    const reader = sseReader(dropped);
    expect(await reader.frame()).toEqual({ comment: "keepalive" });
    await reader.cancel();
    // 2025: the client cancels with notifications/cancelled, never by hanging up.
    expect(await waitEnded("legacy-dropped")).toMatchObject({ aborted: false });
  });

  it("opens a 2025-11-25 session's slow answer with its priming event, so the client can resume it", async () => {
    const init = await server.post(
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: { elicitation: {} }, clientInfo: { name: "t", version: "1" } },
      },
      LEGACY,
    );
    await readMessage(init);
    const session = init.headers.get("mcp-session-id")!;
    expect(session).toBeTruthy();
    const response = await legacyCall("resumable", 1_800, { "mcp-protocol-version": "2025-11-25", "mcp-session-id": session });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const frames = await framesOf(response);
    // The priming event is the stream's first write; comments fill the silence after it.
    expect(frames[0]).toEqual({ priming: expect.any(String) });
    expect(frames[1]).toEqual({ comment: "keepalive" });
    expect(frames.at(-1)).toMatchObject({
      id: expect.any(String),
      data: { id: "resumable", result: { content: [{ text: "waited 1800 ms" }] } },
    });
  });
});
