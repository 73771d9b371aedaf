/**
 * Calls of 2025 sessions that wait for the client's answers (server-to-client requests): each one holds a Worker
 * invocation, its response stream and its session object's attention while it waits, so a session and a caller
 * (principal, or client network when anonymous) may have only so many waiting at once: `limits.sessions.
 * maxWaitingPerSession` and `maxWaitingPerCaller`. A call past either is refused before its question is sent, with a
 * tool error (tools/call) or -32603 naming the limit; a call that ends gives its place back. And a client that hangs
 * up on many waiting calls leaves no uncaught error behind.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { definePrompt, elicitForm, text } from "../../src";
import { resolveOptions } from "../../src/config/options";
import { FIXTURE } from "../helpers/fixture";
import { BASE, confirmThree, rpc } from "../helpers/legacy-asking";
import { type Json, readMessage, testServer } from "../helpers/rpc";
import { sseReader } from "../helpers/sse";

/** A prompt that asks the user its topic first. */
const askedBrief = definePrompt({
  name: "asked_brief",
  description: "Asks the user for a topic, then writes a brief about it.",
  async get(_args, ctx) {
    const { topic } = await ctx.ask({ topic: elicitForm("Which topic?", z.object({ topic: z.string() })) });
    const chosen = topic.action === "accept" ? topic.content.topic : "anything";
    return { messages: [{ role: "user", content: text(`Write a brief about ${chosen}.`) }] };
  },
});

type Server = ReturnType<typeof testServer>;

/** A server whose sessions may have `perSession` calls waiting, and each caller `perCaller` (default: the defaults). */
const serverWith = (perSession?: number, perCaller?: number) =>
  testServer({
    ...FIXTURE,
    tools: [...FIXTURE.tools, confirmThree],
    prompts: [...FIXTURE.prompts, askedBrief],
    ...(perSession !== undefined && { limits: { sessions: { maxWaitingPerSession: perSession, maxWaitingPerCaller: perCaller } } }),
  });

/** A 2025 client at `address` (its caller, anonymous): its session, and what it sends in it. */
async function clientAt(server: Server, address: string) {
  const headers = (session?: string) => ({
    ...BASE,
    "mcp-protocol-version": "2025-11-25",
    "cf-connecting-ip": address,
    ...(session && { "mcp-session-id": session }),
  });
  const init = rpc("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: { elicitation: {} },
    clientInfo: { name: "waiting-calls-test", version: "1" },
  });
  const opened = await server.post(init, headers());
  await readMessage(opened);
  const session = opened.headers.get("mcp-session-id")!;
  expect((await server.post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers(session))).status).toBe(202);
  return {
    session,
    send: (body: unknown, init?: RequestInit) => server.post(body, headers(session), init),
    /** Calls the fixture's `ask` tool (one form); its response, read as a stream. */
    ask: async (id: string, init?: RequestInit) =>
      sseReader(await server.post(rpc("tools/call", { name: "ask", arguments: { kind: "form" } }, id), headers(session), init)),
    answer: (question: Json) =>
      server.post({ jsonrpc: "2.0", id: question.id, result: { action: "accept", content: { ok: true } } }, headers(session)),
    end: () => server.fetch("http://localhost:8787/mcp", { method: "DELETE", headers: headers(session) }),
  };
}

type Client = Awaited<ReturnType<typeof clientAt>>;

/** Starts `count` calls that each wait for an answer to their one question; the questions, once all were asked. */
async function waiting(client: Client, count: number, prefix: string) {
  const calls = await Promise.all(Array.from({ length: count }, (_, i) => client.ask(`${prefix}-${i}`)));
  const questions = (await Promise.all(calls.map((call) => call.message()))) as Json[];
  for (const question of questions) expect(question).toMatchObject({ method: "elicitation/create" });
  return { calls, questions };
}

/**
 * Every message a call that should be refused answers: its final result alone, as JSON. (A call that is not refused
 * streams its question and waits: what came within a moment is returned, and the stream dropped.)
 */
async function refusedCall(client: Client, id: string): Promise<Json[]> {
  const response = await client.send(rpc("tools/call", { name: "ask", arguments: { kind: "form" } }, id));
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) return [(await response.json()) as Json];
  const stream = sseReader(response);
  const messages: Json[] = [];
  for (let next = await stream.message(); typeof next === "object"; next = await stream.message(500)) messages.push(next);
  await stream.cancel();
  return messages;
}

describe("2025: calls waiting for the client's answers, per session", () => {
  it("refuses the session's 11th waiting call (limits.sessions.maxWaitingPerSession, 10 by default) with a tool error naming the limit, sends it no question, and admits one again once a waiting call is answered", async () => {
    const client = await clientAt(serverWith(), "203.0.113.61");
    const { calls, questions } = await waiting(client, 10, "held");

    expect(await refusedCall(client, "eleventh")).toMatchObject([
      {
        id: "eleventh",
        result: {
          isError: true,
          content: [
            { text: "Too many calls of this session wait for the client's answers (at most 10): answer or cancel one of them first" },
          ],
        },
      },
    ]);

    expect((await client.answer(questions[0]!)).status).toBe(202);
    expect(await calls[0]!.message()).toMatchObject({ id: "held-0", result: { content: [{ text: "form: accept ok=true" }] } });
    const again = await client.ask("again");
    expect(await again.message()).toMatchObject({ method: "elicitation/create" });
    await client.end();
  });

  it("counts a call once however many questions it asks at once: with room for one waiting call, all three of its questions are asked", async () => {
    const client = await clientAt(serverWith(1, 50), "203.0.113.62");
    const call = sseReader(await client.send(rpc("tools/call", { name: "confirm_three", arguments: {} }, "three")));
    const questions = [await call.message(), await call.message(), await call.message()] as Json[];
    for (const question of questions) expect(question).toMatchObject({ method: "elicitation/create" });
    for (const question of questions) expect((await client.answer(question)).status).toBe(202);
    expect(await call.message()).toMatchObject({ id: "three", result: { content: [{ text: "a=accept b=accept c=accept" }] } });
    await client.end();
  });

  it("refuses a prompt or resource read past the limit with -32603 naming it (data.limit and data.max), as a listener past its share is", async () => {
    const client = await clientAt(serverWith(1, 50), "203.0.113.63");
    await waiting(client, 1, "held");
    const refused = await readMessage(await client.send(rpc("prompts/get", { name: "asked_brief" }, "brief")));
    expect(refused).toMatchObject({
      id: "brief",
      error: {
        code: -32603,
        message: "Too many calls of this session wait for the client's answers (at most 1): answer or cancel one of them first",
        data: { limit: "session", max: 1 },
      },
    });
    await client.end();
  });
});

describe("2025: calls waiting for the client's answers, per caller", () => {
  it("refuses the caller's call past limits.sessions.maxWaitingPerCaller, across its sessions, while another caller's are admitted", async () => {
    const server = serverWith(2, 3);
    const first = await clientAt(server, "203.0.113.71");
    const second = await clientAt(server, "203.0.113.71");
    await waiting(first, 2, "first");
    await waiting(second, 1, "second");

    expect(await refusedCall(second, "fourth")).toMatchObject([
      {
        id: "fourth",
        result: {
          isError: true,
          content: [
            {
              text: "Too many calls of this caller wait for the client's answers (at most 3, across its sessions): answer or cancel one of them first",
            },
          ],
        },
      },
    ]);

    const other = await clientAt(server, "198.51.100.71");
    await waiting(other, 2, "other");
    await Promise.all([first.end(), second.end(), other.end()]);
  });

  it("gives the caller's places back when its session ends: the calls it kept waiting end, and a new session's are admitted", async () => {
    const server = serverWith(3, 3);
    const first = await clientAt(server, "203.0.113.72");
    const { calls } = await waiting(first, 3, "first");
    expect((await first.end()).status).toBe(204);
    for (const call of calls) expect(await call.message()).toMatchObject({ result: { content: [{ text: "form: cancel" }] } });
    const next = await clientAt(server, "203.0.113.72");
    await waiting(next, 3, "next");
    await next.end();
  });
});

describe("2025: waiting calls, on the objects that count them", () => {
  const object = (prefix: string) => env.LEGACY_SESSIONS.getByName(`${prefix}-${crypto.randomUUID()}`);

  it("a session opens no question for a new call when as many calls as it may wait, still opens more of a waiting call, and counts a call no more once its questions closed", async () => {
    const session = object("session");
    expect(await session.openQuestion(1, 60_000, "call-a", 2)).toMatch(/^srv-/);
    const b = await session.openQuestion(2, 60_000, "call-b", 2);
    expect(await session.openQuestion(3, 60_000, "call-c", 2)).toBeUndefined();
    // Another question of a waiting call is not another call, even with another request id.
    expect(await session.openQuestion(9, 60_000, "call-a", 2)).toMatch(/^srv-/);
    // Counted by the wait, never by the client's request id: a repeated id does not make two calls one.
    expect(await session.openQuestion(1, 60_000, "call-d", 2)).toBeUndefined();
    expect(await session.deliver(b!, JSON.stringify({ jsonrpc: "2.0", id: b, result: {} }))).toBe("kept");
    await session.awaitResponse(b!);
    expect(await session.openQuestion(3, 60_000, "call-c", 2)).toMatch(/^srv-/);
  });

  it("a caller's ledger admits calls up to its max, admits again after a release, and stops counting a call whose wait has ended", async () => {
    const ledger = object("waiting:ledger-test");
    // Why every counted wait ends a minute from now: a wait that could end while the test runs would make the
    // count depend on how fast this machine admits (a deadline 50 ms away passed before the third admission once).
    const soon = Date.now() + 60_000;
    expect(await ledger.admitWaiting("a", soon, 2)).toBe(true);
    expect(await ledger.admitWaiting("b", soon, 2)).toBe(true);
    expect(await ledger.admitWaiting("c", soon, 2)).toBe(false);
    await ledger.releaseWaiting("a");
    expect(await ledger.admitWaiting("c", soon, 2)).toBe(true);
    // "lost" is never released (its Worker gone, say): once its wait could have ended, it no longer counts. The test
    // waits until its deadline has passed, however long the admission took.
    const ends = Date.now() + 50;
    expect(await ledger.admitWaiting("lost", ends, 3)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, ends - Date.now()) + 20));
    expect(await ledger.admitWaiting("d", soon, 3)).toBe(true);
    expect(await ledger.admitWaiting("e", soon, 3)).toBe(false);
  });

  it("a caller's ledger deletes what lost releases left, by its alarm: nothing stays stored once every wait has ended", async () => {
    const ledger = object("waiting:ledger-alarm");
    expect(await ledger.admitWaiting("lost", Date.now() + 50, 5)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stored = await runInDurableObject(ledger, async (instance, state) => {
      await instance.alarm();
      return [...(await state.storage.list()).keys()];
    });
    expect(stored).toEqual([]);
  });
});

describe("2025: limits of waiting calls, as options", () => {
  it("defaults to 10 per session and 50 per caller, and stops the Worker at startup on a value out of range", () => {
    expect(resolveOptions().limits.sessions).toMatchObject({ maxWaitingPerSession: 10, maxWaitingPerCaller: 50 });
    expect(() => resolveOptions({ limits: { sessions: { maxWaitingPerSession: 0 } } })).toThrow(
      "limits.sessions.maxWaitingPerSession must be an integer from 1 to 1000",
    );
    expect(() => resolveOptions({ limits: { sessions: { maxWaitingPerCaller: 10_001 } } })).toThrow(
      "limits.sessions.maxWaitingPerCaller must be an integer from 1 to 10000",
    );
  });
});

describe("2025: a client that hangs up on its waiting calls", () => {
  it("leaves no uncaught error, and gives the caller's places back: 50 calls wait, the client drops every stream and connection, then its session ends", async () => {
    const address = "203.0.113.81";
    const client = await clientAt(serverWith(50, 50), address);
    const connections = Array.from({ length: 50 }, () => new AbortController());
    const calls = await Promise.all(connections.map((connection, i) => client.ask(`gone-${i}`, { signal: connection.signal })));
    for (const call of calls) expect(await call.message()).toMatchObject({ method: "elicitation/create" });
    for (const connection of connections) connection.abort();
    await Promise.all(calls.map((call) => call.cancel()));
    // The calls run on (2025: a dropped connection is not cancellation) until their session ends; the workerd pool
    // reports any rejection left unhandled meanwhile as an error of this file.
    expect((await client.end()).status).toBe(204);
    const ledger = env.LEGACY_SESSIONS.getByName(`waiting:ip4:${address}`);
    const counted = () => runInDurableObject(ledger, async (_instance, state) => (await state.storage.list({ prefix: "w:" })).size);
    // Each release reaches the ledger once its call has ended: polled, bounded (5 s).
    const deadline = Date.now() + 5_000;
    while ((await counted()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await counted()).toBe(0);
  });
});
