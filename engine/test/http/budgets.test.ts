/**
 * Budgets: a tool's own (define/budget.ts: an `isError` result that says when to retry, the tool not run) and the
 * request budget on /mcp (http/rate-limit.ts: 429 with the time left, RateLimit-Limit and RateLimit-Remaining, and
 * SEP-3304's -32023 behind `rateLimitError`). The tight limiter allows 3 per key, a binding of this file's own
 * (helpers/limiter.ts: no window that ends mid-test); each test counts its own callers (its own client addresses).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import * as z from "zod/mini";
import { defineTool, type EngineOptions, elicitForm, text, validateServer } from "../../src";
import { counted, runs } from "../helpers/fixture";
import { countingLimiter } from "../helpers/limiter";
import { readMessage, testServer } from "../helpers/rpc";
import { expectError, withLogs, withoutAccessLog } from "../helpers/wire";

const TIGHT = countingLimiter(3) as unknown as string;
const costlyRuns = { count: 0 };
const costly = defineTool({
  name: "costly",
  description: "Costs the server a lot.",
  input: z.strictObject({}),
  budget: { binding: "TIGHT_LIMITER", calls: 3, periodMs: 60_000 },
  handler: () => {
    costlyRuns.count++;
    return { content: [text("done")] };
  },
});
const from = (address: string) => ({ headers: { "cf-connecting-ip": address } });

afterEach(() => {
  vi.useRealTimers();
});

describe("a tool's own budget", () => {
  const server = testServer({ tools: [costly, counted] }, { TIGHT_LIMITER: TIGHT });

  it("runs the tool up to its budget, then tells the model when to retry and does not run it", async () => {
    const before = costlyRuns.count;
    for (let call = 0; call < 3; call++)
      expect(await server.call("tools/call", { name: "costly", arguments: {} }, from("198.51.100.1"))).toMatchObject({
        content: [{ text: "done" }],
      });
    const refused = await server.call("tools/call", { name: "costly", arguments: {} }, from("198.51.100.1"));
    expect(refused).toMatchObject({
      isError: true,
      content: [
        {
          text: "Tool costly is over its budget for this caller (3 calls per 60 s): nothing was done. Retry in 60 seconds, or go on without it.",
        },
      ],
    });
    expect(costlyRuns.count).toBe(before + 3);
  });

  it("is the tool's alone: the same caller's other tools still run, and another caller has a budget of its own", async () => {
    for (let call = 0; call < 4; call++) await server.call("tools/call", { name: "costly", arguments: {} }, from("198.51.100.2"));
    const before = runs.counted;
    expect(await server.call("tools/call", { name: "counted", arguments: {} }, from("198.51.100.2"))).toMatchObject({
      content: [{ text: "ran" }],
    });
    expect(runs.counted).toBe(before + 1);
    expect(await server.call("tools/call", { name: "costly", arguments: {} }, from("198.51.100.3"))).toMatchObject({
      content: [{ text: "done" }],
    });
  });

  it("counts an IPv6 caller by its /64, as every limit does", async () => {
    for (const host of [1, 2, 3]) await server.call("tools/call", { name: "costly", arguments: {} }, from(`2001:db8:77:1::${host}`));
    expect(await server.call("tools/call", { name: "costly", arguments: {} }, from("2001:db8:77:1::4"))).toMatchObject({ isError: true });
  });

  it("says the time left, counting down from the first refusal", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-12-01T12:00:00Z"));
    for (let call = 0; call < 4; call++) await server.call("tools/call", { name: "costly", arguments: {} }, from("198.51.100.4"));
    vi.setSystemTime(new Date("2026-12-01T12:00:20Z"));
    const later = await server.call("tools/call", { name: "costly", arguments: {} }, from("198.51.100.4"));
    expect((later.content as { text: string }[])[0]!.text).toContain("Retry in 40 seconds");
  });

  it("refuses to run a tool whose budget binding the Worker lacks, naming it, rather than run it unmetered", async () => {
    const unbound = defineTool({ ...costly, name: "unbound", budget: { binding: "NO_SUCH_LIMITER", calls: 3, periodMs: 60_000 } } as never);
    const before = costlyRuns.count;
    const { value: response, entries } = await withLogs(() =>
      testServer({ tools: [unbound] }).send("tools/call", { name: "unbound", arguments: {} }),
    );
    const message = await expectError(response, 500, -32603);
    expect(message.error?.message).toBe("Tool unbound has a budget, and this server has no NO_SUCH_LIMITER binding to keep it");
    expect(costlyRuns.count).toBe(before);
    expect(withoutAccessLog(entries)).toEqual([
      expect.objectContaining({
        level: "error",
        message: "a tool's budget needs its rate-limiting binding",
        tool: "unbound",
        binding: "NO_SUCH_LIMITER",
      }),
    ]);
  });

  it("is checked at startup, naming the tool: a budget out of range never reaches a request", () => {
    const withBudget = (budget: unknown) => () =>
      validateServer({ name: "t", version: "1", tools: [defineTool({ ...costly, budget } as never)] });
    expect(withBudget({ binding: "lower_case", calls: 3, periodMs: 60_000 })).toThrow(
      'Tool "costly": budget.binding must name a rate-limiting binding (A-Z, 0-9 and _, starting with a letter)',
    );
    for (const calls of [0, 1.5, 1_000_001, "3"]) {
      expect(withBudget({ binding: "L", calls, periodMs: 60_000 })).toThrow(
        'Tool "costly": budget.calls must be an integer from 1 to 1000000',
      );
    }
    expect(withBudget({ binding: "L", calls: 3, periodMs: 30_000 })).toThrow(
      'Tool "costly": budget.periodMs must be 10000 or 60000 (the binding\'s period)',
    );
    expect(withBudget("3 per minute")).toThrow('Tool "costly": budget must be an object { binding, calls, periodMs }');
  });
});

/** What `wipe` did: how many times it wiped (after the user confirmed). */
const wiped = { count: 0 };
/** A destructive tool with a budget of one call per caller per minute, which asks the user to confirm first. */
const wipe = defineTool({
  name: "wipe",
  description: "Deletes everything, once the user confirms.",
  input: z.strictObject({}),
  budget: { binding: "ONCE_LIMITER", calls: 1, periodMs: 60_000 },
  async handler(_args, ctx) {
    const { sure } = await ctx.ask({ sure: elicitForm("Wipe everything?", z.object({ ok: z.boolean() })) });
    if (sure.action !== "accept" || !sure.content.ok) return { content: [text("kept")] };
    wiped.count++;
    return { content: [text("wiped")] };
  },
});

describe("a tool's budget over a multi round-trip call", () => {
  const server = testServer({ tools: [wipe] }, { ONCE_LIMITER: countingLimiter(1) as unknown as string });
  const FORMS = { elicitation: { form: {} } };
  const confirmed = { sure: { action: "accept", content: { ok: true } } };
  /** Calls `wipe` from `address`, as a first call or as a retry with `requestState` and the user's answer. */
  const callWipe = (address: string, retry?: { requestState: unknown }) =>
    server.call(
      "tools/call",
      { name: "wipe", arguments: {}, ...(retry && { requestState: retry.requestState, inputResponses: confirmed }) },
      { capabilities: FORMS, ...from(address) },
    );
  const overBudget = { isError: true, content: [{ text: expect.stringContaining("Tool wipe is over its budget") }] };

  it("charges a call once, on its first round: with a budget of 1, the confirmed retry runs", async () => {
    const before = wiped.count;
    const first = await callWipe("198.51.100.31");
    expect(first).toMatchObject({ resultType: "input_required", inputRequests: { sure: { method: "elicitation/create" } } });
    expect(await callWipe("198.51.100.31", first as { requestState: string })).toMatchObject({ content: [{ text: "wiped" }] });
    expect(wiped.count).toBe(before + 1);
    // A new call is a new charge: the budget of 1 is spent.
    expect(await callWipe("198.51.100.31")).toMatchObject(overBudget);
  });

  it("charges a retry that replays state already retried once: a charged call's state buys one uncharged round, not many", async () => {
    const before = wiped.count;
    const first = (await callWipe("198.51.100.32")) as { requestState: string };
    expect(await callWipe("198.51.100.32", first)).toMatchObject({ content: [{ text: "wiped" }] });
    expect(await callWipe("198.51.100.32", first)).toMatchObject(overBudget);
    expect(wiped.count).toBe(before + 1);
  });

  it("never lets a forged or altered claim skip the charge: such state is refused with -32602 before anything is charged or run", async () => {
    const before = wiped.count;
    const minted = ((await callWipe("198.51.100.33")) as { requestState: string }).requestState;
    // Well-formed state whose body claims that the call was charged, with a MAC nobody computed; and real state altered.
    const body = { e: Date.now() + 600_000, x: { answers: {}, state: {}, asked: { sure: "form" }, admitted: crypto.randomUUID() } };
    const forged = `v2.test.${new TextEncoder().encode(JSON.stringify(body)).toBase64({ alphabet: "base64url", omitPadding: true })}.${"A".repeat(43)}`;
    const [version, kid, payload, mac] = minted.split(".");
    const altered = [version, kid, `${payload!.slice(0, -2)}AA`, mac].join(".");
    for (const requestState of [forged, altered]) {
      const response = await server.send(
        "tools/call",
        { name: "wipe", arguments: {}, requestState, inputResponses: confirmed },
        { capabilities: FORMS, ...from("198.51.100.34") },
      );
      expect((await readMessage(response)).error, requestState).toMatchObject({ code: -32602, message: "Invalid requestState" });
    }
    expect(wiped.count).toBe(before);
    // Refused before the charge: this caller's budget of 1 is still whole.
    expect(await callWipe("198.51.100.34")).toMatchObject({ resultType: "input_required" });
  });

  it("charges every 2025 call, which has no rounds: a second call of the same caller is over the budget of 1", async () => {
    const legacy = testServer({ tools: [wipe] }, { ONCE_LIMITER: countingLimiter(1) as unknown as string });
    /** A 2025 call of `wipe` (no session) from one caller, as JSON-RPC request `id`. */
    const callAsLegacy = async (id: number) =>
      readMessage(
        await legacy.post(
          { jsonrpc: "2.0", id, method: "tools/call", params: { name: "wipe", arguments: {} } },
          {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            "mcp-protocol-version": "2025-06-18",
            "cf-connecting-ip": "198.51.100.36",
          },
        ),
      );
    const first = await callAsLegacy(1);
    // Without a session nothing can be asked: the tool says so, after the call was charged.
    expect(first.result).toMatchObject({ isError: true });
    const second = await callAsLegacy(2);
    expect(second.result).toMatchObject(overBudget);
  });
});

describe("the request budget on /mcp", () => {
  const limited = (options: EngineOptions = {}) =>
    testServer({ tools: [counted], limits: { rateLimit: { requests: 3 } }, ...options }, { RATE_LIMITER: TIGHT });

  it("answers 429 with the time left in Retry-After, counting down, and RateLimit-Limit and RateLimit-Remaining", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-12-01T13:00:00Z"));
    const server = limited();
    for (let call = 0; call < 3; call++) expect((await server.send("server/discover", {}, from("203.0.113.70"))).status).toBe(200);
    const refused = await server.send("server/discover", {}, from("203.0.113.70"));
    const message = await expectError(refused, 429, -32600, null);
    expect(message.error?.message).toBe("Too Many Requests: retry in 60 seconds");
    expect(
      Object.fromEntries(["retry-after", "ratelimit-limit", "ratelimit-remaining"].map((name) => [name, refused.headers.get(name)])),
    ).toEqual({
      "retry-after": "60",
      "ratelimit-limit": "3",
      "ratelimit-remaining": "0",
    });
    vi.setSystemTime(new Date("2026-12-01T13:00:45Z"));
    expect((await server.send("server/discover", {}, from("203.0.113.70"))).headers.get("retry-after")).toBe("15");
  });

  it("answers SEP-3304's -32023 with retryAfterMs, limit and remaining when rateLimitError is sep-3304", async () => {
    const server = limited({ rateLimitError: "sep-3304" });
    for (let call = 0; call < 3; call++) await server.send("server/discover", {}, from("203.0.113.71"));
    const refused = await server.send("server/discover", {}, from("203.0.113.71"));
    const message = await expectError(refused, 429, -32023, null);
    expect(message.error?.data).toEqual({ retryAfterMs: 60_000, limit: 3, remaining: 0 });
    expect(refused.headers.get("retry-after")).toBe("60");
  });

  it("refuses an unknown rateLimitError at startup", () => {
    expect(() => testServer({ rateLimitError: "-32023" as never })).toThrow(
      'createMcpWorker: rateLimitError must be "invalid-request" or "sep-3304"',
    );
  });

  it("lets browser clients read the budget headers (CORS)", async () => {
    const response = await limited().send("server/discover", {}, { headers: { origin: "https://chatgpt.com" } });
    expect(response.headers.get("access-control-expose-headers")).toContain("RateLimit-Limit, RateLimit-Remaining");
  });
});
