/**
 * Property-based fuzzing of the whole Worker over raw HTTP (fast-check): JSON-RPC envelopes, per-request `_meta`,
 * header sets, tool arguments and requestState tokens. For every input, whatever it is:
 *
 * - no 5xx, only 200, 202 or a documented refusal status; a 202 has an empty body;
 * - every JSON body and every SSE message is a well-formed JSON-RPC message (see `inspect` in helpers/wire.ts);
 * - the server logs no internal fault (no "internal error", no "tool handler threw");
 * - no built-in prototype gains a property;
 * - and, where the input determines it, the exact status and error code (the "oracle" of each property).
 *
 * Each property prints its seed and its count of cases (all of them in CI, a tenth locally: test/helpers/seed.ts);
 * replay a failure with `FC_SEED=<seed> FC_RUNS=<count> npm test`. A fault the fuzzing finds can
 * be listed in KNOWN_FAULTS while it is being fixed: the properties then count it instead of stopping (so the
 * search goes on). The two it found so far are fixed, and kept as regression tests at the end of this file.
 */
import { createExecutionContext, listDurableObjectIds } from "cloudflare:test";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import * as z from "zod/mini";
import { createMcpWorker, definePrompt, defineResource, defineResourceTemplate, defineTool, elicitForm, text } from "../../src";
import { authServer, jsonPost, storedClients } from "../helpers/auth-server";
import { FIXTURE, recall, storedValueCount, storeTools } from "../helpers/fixture";
import { type Json, MODERN, meta, readMessage, rpc, SERVED_VERSIONS, testServer } from "../helpers/rpc";
import { seedFor } from "../helpers/seed";
import { wasWoken } from "../helpers/storage";
import { assertUnpolluted, type Inspected, inspect, prototypeSnapshot } from "../helpers/wire";
import {
  ABSENT,
  anyString,
  envelope,
  headerValue,
  hostileObject,
  maybe,
  metaOf,
  metaParts,
  mirroredHeaders,
  nest,
  objectOf,
  oversizedRegistration,
  printable,
  sentinel,
  storeKey,
  TOOL_NAMES,
  unmintedTaskId,
  uri,
  value,
  withoutMeta,
} from "./generators";

// ---------------------------------------------------------------------------------------------------------------
// Servers, all the engine's own (never the example app's): the fixture with its value store (a handle-based app's
// shapes: reads of keys nobody stored, bounded fields, a single-use confirmation), served with the real bindings; a
// test server of simple, never-throwing declarations; and, for one smaller property, the fixture in the form a
// deployed Worker has: declarations built on the first request, default limits, the bindings as the pool gives them.
// ---------------------------------------------------------------------------------------------------------------

/** A listen stream the fuzzer opens ends after 100 ms (not 30 min); a 2025 session question unanswered times out in 1 s. */
const SHORT_WAITS = { listen: { maxLifetimeMs: 100, keepAliveMs: 50 }, sessions: { inputTimeoutMs: 1_000 } };
const STORE = { ...FIXTURE, tools: [...FIXTURE.tools, ...storeTools], prompts: [...FIXTURE.prompts, recall] };
const store = testServer({ ...STORE, limits: SHORT_WAITS });
const { tools: storeToolList, resources: storeResources, prompts: storePrompts, ...storeInfo } = STORE;
const deployedWorker = createMcpWorker({
  ...storeInfo,
  declarations: () => ({ tools: storeToolList, resources: storeResources, prompts: storePrompts }),
});
const deployed = rpc((request) => deployedWorker.fetch(request, env, createExecutionContext()));

/** What a handler saw, so a property can tell whether a hostile key reached it as a prototype. */
const seen = (args: object) =>
  JSON.stringify({
    protoIntact: Object.getPrototypeOf(args) === Object.prototype,
    polluted: "polluted" in args && !Object.hasOwn(args, "polluted"),
  });
const asking = { ok: elicitForm("Sure?", z.object({ ok: z.boolean() })) };
const fuzzTools = [
  defineTool({
    name: "echo_loose",
    description: "Echoes any object.",
    input: z.looseObject({ text: z.optional(z.string()) }),
    handler: (args) => ({ content: [text(seen(args))] }),
  }),
  defineTool({
    name: "echo_strict",
    description: "Echoes known keys.",
    input: z.strictObject({
      text: z.string().check(z.maxLength(200_000)),
      n: z.optional(z.number()),
      list: z.optional(z.array(z.unknown())),
    }),
    output: z.object({ length: z.number() }),
    handler: (args) => ({ structuredContent: { length: args.text.length }, content: [text(seen(args))] }),
  }),
  defineTool({
    name: "echo_record",
    description: "Echoes a record.",
    input: z.strictObject({ map: z.record(z.string(), z.unknown()) }),
    handler: ({ map }) => ({ content: [text(seen(map))] }),
  }),
  defineTool({
    name: "asker",
    description: "Asks for confirmation.",
    input: z.strictObject({ item: z.optional(z.string()) }),
    async handler(_args, ctx) {
      const { ok } = await ctx.ask(asking);
      return { content: [text(`ok=${ok.action}`)] };
    },
  }),
];
const fuzzServer = testServer({
  limits: SHORT_WAITS,
  tools: fuzzTools,
  resources: [
    defineResource({ uri: "test://text", name: "text", read: () => [{ uri: "test://text", text: "hello" }] }),
    defineResource({
      uri: "test://ask",
      name: "ask",
      async read(ctx) {
        const { ok } = await ctx.ask(asking);
        return [{ uri: "test://ask", text: `ok=${ok.action}` }];
      },
    }),
    defineResourceTemplate({
      uriTemplate: "test://items/{id}",
      name: "item",
      read: (uri, { id }) => [{ uri, text: `item ${id}` }],
      complete: { id: (value) => [`${value}1`, `${value}2`] },
    }),
  ],
  prompts: [
    definePrompt({
      name: "greet",
      description: "Greets.",
      arguments: z.strictObject({ name: z.string() }),
      get: ({ name }) => ({ messages: [{ role: "user", content: text(`hi ${name}`) }] }),
    }),
    definePrompt({
      name: "ask_prompt",
      description: "Asks.",
      async get(_args, ctx) {
        const { ok } = await ctx.ask(asking);
        return { messages: [{ role: "user", content: text(`ok=${ok.action}`) }] };
      },
    }),
  ],
});
type Target = ReturnType<typeof rpc>;

// ---------------------------------------------------------------------------------------------------------------
// Log capture, known faults, and the one function every property sends through.
// ---------------------------------------------------------------------------------------------------------------

/** The server's structured log lines of the request in flight (kept out of the test report). */
const sink: Json[] = [];
let baseline = "";
beforeAll(() => {
  baseline = prototypeSnapshot();
  for (const level of ["log", "info", "warn", "error", "debug"] as const) {
    const original = console[level].bind(console);
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      const line = args.map(String).join(" ");
      if (!line.startsWith('{"level"')) return original(...args);
      try {
        sink.push(JSON.parse(line) as Json);
      } catch {
        original(...args);
      }
    });
  }
});
afterAll(() => {
  vi.restoreAllMocks();
  for (const [name, seen] of Object.entries(outcomes)) {
    const sorted = Object.entries(seen).sort(([, a], [, b]) => b - a);
    console.log(`outcomes of ${name}: ${sorted.map(([outcome, count]) => `${outcome} x${count}`).join(", ")}`);
  }
  const hits = Object.entries(knownHits).filter(([, count]) => count > 0);
  if (hits.length) console.log(`known faults hit while fuzzing: ${hits.map(([name, count]) => `${name} x${count}`).join(", ")}`);
});

/**
 * Faults the fuzzing found, recognised by the internal fault the server logs. Reproduced (and failing) at the end
 * of this file; counted, not fatal, inside the properties so that the search continues past them.
 */
const KNOWN_FAULTS: Record<string, (detail: string) => boolean> = {};
const knownHits: Record<string, number> = Object.fromEntries(Object.keys(KNOWN_FAULTS).map((name) => [name, 0]));

/** What each property's requests came back as ("200 result complete", "400 -32020", ...), to show how deep it reached. */
const outcomes: Record<string, Record<string, number>> = {};
let property = "";
function record(inspected: Inspected): void {
  const answer = inspected.messages[0];
  const result = answer?.result as Json | undefined;
  const what =
    inspected.kind === "empty"
      ? ""
      : answer?.error
        ? String((answer.error as Json).code)
        : result
          ? `result ${result.isError ? "isError" : (result.resultType ?? "legacy")}`
          : inspected.kind;
  const outcome = `${inspected.status}${inspected.messages.length > 1 ? " batch" : ""} ${what}`.trim();
  const counts = outcomes[property] ?? {};
  outcomes[property] = counts;
  counts[outcome] = (counts[outcome] ?? 0) + 1;
}
/**
 * Fails when clearly fewer than `share` of this property's requests had an outcome matching `pattern`: the generator
 * has become shallow. "Clearly": the count falls short of `share` of the requests by more than three standard
 * deviations of such a count (binomial), so the check means the same at a local run's tenth of the cases as at CI's
 * full count, and a generator that does reach `share` fails it by chance at most about once in 700 runs.
 */
function expectReached(pattern: RegExp, share: number): void {
  const seen = Object.entries(outcomes[property] ?? {});
  const total = seen.reduce((sum, [, count]) => sum + count, 0);
  const matching = seen.filter(([outcome]) => pattern.test(outcome)).reduce((sum, [, count]) => sum + count, 0);
  const slack = 3 * Math.sqrt(total * share * (1 - share));
  expect(
    matching,
    `${property}: outcomes matching ${pattern}, of ${total} (expected about ${share * total} or more)`,
  ).toBeGreaterThanOrEqual(share * total - slack);
}

/** Faults that are not bugs: in a 2025 session, a question the fuzzer (as the client) never answers times out. */
const EXPECTED_FAULTS = ["The client did not answer in time"];
/** Internal faults the server logged for the request in flight. */
const faults = () =>
  sink
    .filter((entry) => entry.level === "error" && entry.message !== "mcp request")
    .map((entry) => String(entry.detail ?? entry.message))
    .filter((detail) => !EXPECTED_FAULTS.includes(detail));
function knownFault(details: string[]): string | undefined {
  if (details.length === 0) return undefined;
  const names = details.map((detail) => Object.keys(KNOWN_FAULTS).find((name) => KNOWN_FAULTS[name]!(detail)));
  return names.every((name) => name !== undefined && name === names[0]) ? names[0] : undefined;
}

async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | null = null;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no complete answer within ${ms} ms: ${what}`)), ms))),
    ]);
  } finally {
    if (timer !== null) clearTimeout(timer);
  }
}

/**
 * Sends one request and checks the invariants. Returns what came back, or `undefined` when the request hit a
 * known fault (counted in `knownHits`). Throws, with the request, on anything else.
 */
async function exchange(target: Target, body: string, headers: Record<string, string | undefined>): Promise<Inspected | undefined> {
  sink.length = 0;
  const clean: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) clean[name] = value;
  const describe = () => `headers ${JSON.stringify(clean).slice(0, 600)} body ${body.slice(0, 600)}`;
  let inspected: Inspected;
  try {
    inspected = await within(10_000, describe(), target.post(body, clean).then(inspect));
  } catch (error) {
    const known = knownFault(faults());
    if (known) {
      knownHits[known]!++;
      return undefined;
    }
    throw new Error(`${(error as Error).message}\n  request: ${describe()}\n  logged: ${faults().join(" | ")}`);
  }
  const logged = faults();
  if (logged.length) {
    const known = knownFault(logged);
    if (!known) throw new Error(`the server logged an internal fault: ${logged.join(" | ")}\n  request: ${describe()}`);
    knownHits[known]!++;
    return undefined;
  }
  assertUnpolluted(baseline);
  record(inspected);
  try {
    documentedStatus(inspected);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n  request: ${describe()}`);
  }
  return inspected;
}

/** The status and code of an answer agree (src/wire/errors.ts, defaultHttpStatus), and every answer names its trace id. */
function documentedStatus(inspected: Inspected): void {
  if (inspected.kind !== "empty") expect(inspected.headers.get("x-request-id"), "X-Request-Id").toMatch(/^[0-9a-f-]{36}$/);
  if (inspected.kind !== "json" || inspected.messages.length !== 1) return;
  const code = (only(inspected)?.error as { code?: number } | undefined)?.code;
  if (code === undefined) return;
  if ([-32700, -32020, -32021, -32022].includes(code)) expect(inspected.status, `status of ${code}`).toBe(400);
  if ([401, 403, 405, 406, 413, 415, 429].includes(inspected.status)) expect(code, `code of HTTP ${inspected.status}`).toBe(-32600);
}

/** The first (or only) answer, for properties that send one request per case. */
const only = (inspected: Inspected) =>
  inspected.messages[0] as (Json & { error?: { code: number; message: string; data?: unknown }; result?: Json }) | undefined;

const BASE_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/** A body for the deployed form must never open a listen stream: with default limits it would stay open for 30 minutes. */
const opensListen = (body: unknown) => JSON.stringify(body).includes("subscriptions/listen");

// ---------------------------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------------------------

describe("fuzzing the Worker over raw HTTP", () => {
  /** A 2025-11-25 session per server, with every client capability, so that envelopes reach the session paths too. */
  const sessions = new Map<Target, string>();
  beforeAll(async () => {
    for (const target of [fuzzServer, store]) {
      const init = {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: { elicitation: {}, sampling: {}, roots: {} } },
      };
      const response = await target.post(init, BASE_HEADERS);
      expect(response.status).toBe(200);
      sessions.set(target, response.headers.get("mcp-session-id")!);
    }
  });

  /** Envelopes, single or batched, with the headers a client would derive from them, or legacy, or odd ones. */
  async function envelopes(name: string, numRunsWanted: number, pick: (body: unknown, coin: boolean) => Target | undefined) {
    const { seed, numRuns } = seedFor(name, numRunsWanted);
    property = name;
    const single = fc.tuple(
      envelope,
      fc.constantFrom("mirror", "mirror", "mirror", "legacy", "legacy-2025-11-25", "legacy-session", "random-version"),
      fc.boolean(),
    );
    const batch = fc.tuple(fc.array(envelope, { maxLength: 6 }), fc.constantFrom("legacy", "mirror"), fc.boolean());
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ weight: 5, arbitrary: single }, { weight: 1, arbitrary: batch }),
        anyString,
        async ([generated, mode, coin], randomVersion) => {
          const body = mode.startsWith("legacy") ? withoutMeta(generated) : generated;
          const target = pick(body, coin);
          fc.pre(target !== undefined);
          const mirrored = Array.isArray(body) ? { "mcp-protocol-version": MODERN } : mirroredHeaders(body);
          const versions: Record<string, string | undefined> = {
            mirror: mirrored["mcp-protocol-version"],
            legacy: undefined,
            "legacy-2025-11-25": "2025-11-25",
            "legacy-session": "2025-11-25",
            "random-version": headerValue(randomVersion),
          };
          const session = mode === "legacy-session" ? sessions.get(target!) : undefined;
          const headers = {
            ...BASE_HEADERS,
            ...(mode === "mirror" ? mirrored : {}),
            "mcp-protocol-version": versions[mode],
            "mcp-session-id": session,
          };
          const inspected = await exchange(target!, JSON.stringify(body), headers);
          if (!inspected) return;

          // Oracle: answers echo the request id they answer; a well-formed notification is acknowledged with 202.
          const sent = JSON.parse(JSON.stringify(body)) as Json | Json[];
          if (!Array.isArray(sent)) {
            const message = sent;
            const answer = only(inspected);
            // Each era answers in its own shape: 2025 results know nothing of resultType, 2026-07-28 results always carry it.
            const result = answer?.result as Json | undefined;
            if (result && mode.startsWith("legacy"))
              for (const field of ["resultType", "ttlMs", "cacheScope"])
                expect(result, `legacy result field ${field}`).not.toHaveProperty(field);
            if (result && mode === "mirror" && inspected.kind === "json") expect(result.resultType).toMatch(/^(complete|input_required)$/);
            if (answer && "id" in answer) expect(answer.id).toBe(message.id);
            const paramsOk =
              !("params" in message) || (typeof message.params === "object" && message.params !== null && !Array.isArray(message.params));
            const notification =
              message.jsonrpc === "2.0" && typeof message.method === "string" && message.method !== "" && !("id" in message) && paramsOk;
            if (notification) expect(inspected.status).toBe(202);
            if (message.jsonrpc !== "2.0") expect([inspected.status, answer?.error?.code]).toEqual([400, -32600]);
          } else {
            const ids = sent.map((item) => (item as Json).id);
            for (const answer of inspected.messages) if ("id" in answer) expect(ids).toContainEqual(answer.id);
          }
        },
      ),
      { seed, numRuns },
    );
    assertUnpolluted(baseline);
  }

  it("arbitrary JSON-RPC envelopes (batches, odd ids, odd methods, odd params) never crash the Worker (3,000 cases in CI)", {
    timeout: 120_000,
  }, async () => {
    await envelopes("envelopes", 3_000, (_body, coin) => (coin ? store : fuzzServer));
    expectReached(/^200 (batch )?result/, 0.1);
    expectReached(/^202$/, 0.02);
  });

  it("the Worker in its deployed form (declarations built on first use, default limits) answers arbitrary envelopes the same way (200 cases)", {
    timeout: 120_000,
  }, async () => {
    await envelopes("deployed-form", 200, (body) => (opensListen(body) ? undefined : deployed));
  });

  it("arbitrary _meta objects get the documented answer: -32602, -32020, -32022 or a result (2,000 cases in CI)", {
    timeout: 120_000,
  }, async () => {
    const { seed, numRuns } = seedFor("meta", 2_000);
    property = "meta";
    const requests = fc.constantFrom(
      { method: "server/discover", params: {} },
      { method: "tools/list", params: {} },
      { method: "tools/call", params: { name: "asker", arguments: {} } },
      { method: "tools/call", params: { name: "echo_strict", arguments: { text: "x" } } },
      { method: "resources/read", params: { uri: "test://ask" } },
      { method: "prompts/get", params: { name: "ask_prompt" } },
      {
        method: "completion/complete",
        params: { ref: { type: "ref/resource", uri: "test://items/{id}" }, argument: { name: "id", value: "a" } },
      },
    );
    await fc.assert(
      fc.asyncProperty(requests, metaParts, fc.integer({ min: 1, max: 1e6 }), async (request, parts, requestId) => {
        const _meta = metaOf(parts);
        const body = { jsonrpc: "2.0", id: requestId, method: request.method, params: { ...request.params, _meta } };
        const headers = { ...BASE_HEADERS, ...mirroredHeaders(body) };
        const inspected = await exchange(fuzzServer, JSON.stringify(body), headers);
        if (!inspected) return;
        const answer = only(inspected)!;
        expect(answer.id).toBe(requestId);

        // Oracle, in the server's order of checks.
        const version = parts.version;
        const header = (headers as Record<string, string | undefined>)["mcp-protocol-version"]!;
        const isObject = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);
        const levels = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
        const token = parts.progressToken;
        let expected: [number, number | undefined];
        if (header.length > 1_024) expected = [400, -32020];
        else if (typeof version !== "string" || !isObject(parts.capabilities)) expected = [400, -32602];
        else if (parts.logLevel !== ABSENT && !levels.includes(parts.logLevel as string)) expected = [400, -32602];
        else if (token !== ABSENT && typeof token !== "string" && !Number.isSafeInteger(token)) expected = [400, -32602];
        else if (version !== MODERN) expected = [400, -32022];
        else expected = [200, undefined];
        if (expected[0] === 200 && answer.error) {
          // Asking a client that did not declare elicitation.form is the one refusal left: -32021, HTTP 400.
          expect([inspected.status, answer.error.code]).toEqual([400, -32021]);
        } else {
          expect([inspected.status, answer.error?.code]).toEqual(expected);
        }
        if (expected[1] === -32022) expect(answer.error?.data).toMatchObject({ supported: SERVED_VERSIONS });
      }),
      { seed, numRuns },
    );
    assertUnpolluted(baseline);
    expectReached(/^200 result/, 0.1);
  });

  it("arbitrary header sets (version, method, name incl. =?base64?...?=, session id, Origin, Accept, Content-Type, Host) get the status the first failing check names (2,000 cases in CI)", {
    timeout: 120_000,
  }, async () => {
    const { seed, numRuns } = seedFor("headers", 2_000);
    property = "headers";
    type Labelled = { value: string | undefined; ok: boolean | undefined };
    /** Mostly values the server must accept, so that the checks after this one are reached too. */
    const pool = (entries: [string | undefined, boolean][], random: fc.Arbitrary<string>) =>
      fc.oneof(
        { weight: 12, arbitrary: fc.constantFrom(...entries.filter(([, ok]) => ok).map(([value]): Labelled => ({ value, ok: true }))) },
        { weight: 3, arbitrary: fc.constantFrom(...entries.filter(([, ok]) => !ok).map(([value]): Labelled => ({ value, ok: false }))) },
        { weight: 1, arbitrary: random.map((value): Labelled => ({ value, ok: undefined })) },
      );
    const host = pool(
      [
        [undefined, true],
        ["localhost:8787", true],
        ["127.0.0.1", true],
        ["[::1]:8787", true],
        ["app.localhost", true],
        ["evil.example", false],
        ["localhost.evil.example", false],
        ["127.0.0.1.nip.io", false],
      ],
      printable,
    );
    const origin = pool(
      [
        [undefined, true],
        ["http://localhost:8787", true],
        ["http://localhost:8787/", true],
        ["http://127.0.0.1:6274", true],
        ["https://evil.example", false],
        ["null", false],
        ["http://localhost:8787/path", false],
        ["not a url", false],
        ["file://", false],
      ],
      printable,
    );
    const contentType = pool(
      [
        ["application/json", true],
        ["application/json; charset=utf-8", true],
        ["Application/JSON", true],
        ['application/json;charset="UTF-8"', true],
        [undefined, false],
        ["text/plain", false],
        ["application/json; charset=latin1", false],
        ["application/json-seq", false],
      ],
      printable,
    );
    const accept = pool(
      [
        ["application/json, text/event-stream", true],
        ["*/*", true],
        ["application/*, text/*", true],
        ["text/event-stream, application/json;q=0.5", true],
        [undefined, false],
        ["application/json", false],
        ["text/event-stream", false],
        ["application/json;q=0, text/event-stream", false],
        ["text/html", false],
      ],
      printable,
    );
    /** MCP headers relative to the body's own value: labelled by whether the server must accept them. */
    const mirror = fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom("same", "encoded", "padded") },
      { weight: 1, arbitrary: fc.constantFrom("absent", "other", "encoded-other", "malformed", "too-long", "case", "random") },
    );
    const mirrorValue = (kind: string, own: string, random: string): Labelled => {
      switch (kind) {
        case "same":
          return { value: headerValue(own), ok: true };
        case "encoded":
          return { value: sentinel(own), ok: sentinel(own).length <= 1_024 };
        case "padded":
          return { value: ` ${headerValue(own)}\t`, ok: true };
        case "absent":
          return { value: undefined, ok: false };
        case "other":
          return { value: headerValue(`${own}x`), ok: false };
        case "encoded-other":
          return { value: sentinel(`${own} `), ok: false };
        case "malformed":
          return { value: `=?base64?${sentinel(own).slice(9, -3)}!?=`, ok: false };
        case "too-long":
          return { value: "=".repeat(1_025), ok: false };
        case "case":
          return { value: headerValue(own.toUpperCase()), ok: own.toUpperCase() === own };
        default:
          return { value: random, ok: random.startsWith("=?base64?") ? undefined : random.trim() === own };
      }
    };
    const bodies = fc.constantFrom(
      { method: "tools/call", params: { name: "echo_strict", arguments: { text: "hi" } } },
      { method: "resources/read", params: { uri: "test://items/grüße aus köln" } },
      { method: "prompts/get", params: { name: "greet", arguments: { name: "x" } } },
      { method: "server/discover", params: {} },
      { method: "tools/list", params: {} },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          host,
          origin,
          contentType,
          accept,
          body: bodies,
          version: mirror,
          method: mirror,
          name: mirror,
          random: printable,
          session: maybe(fc.oneof(printable, fc.stringMatching(/^[A-Za-z0-9_-]{43}$/))),
          authorization: maybe(printable, 4),
        }),
        async (input) => {
          const body = { jsonrpc: "2.0", id: 1, method: input.body.method, params: { ...input.body.params, _meta: meta() } };
          const target = (input.body.params as Json).name ?? (input.body.params as Json).uri;
          const version = mirrorValue(input.version, MODERN, input.random);
          const methodHeader = mirrorValue(input.method, input.body.method, input.random);
          const name: Labelled =
            typeof target === "string"
              ? mirrorValue(input.name, target, input.random)
              : { value: mirrorValue(input.name, "x", input.random).value, ok: true };
          const headers = {
            host: input.host.value,
            origin: input.origin.value,
            "content-type": input.contentType.value,
            accept: input.accept.value,
            "mcp-protocol-version": version.value,
            "mcp-method": methodHeader.value,
            "mcp-name": name.value,
            "mcp-session-id": input.session,
            authorization: input.authorization,
          };
          const inspected = await exchange(fuzzServer, JSON.stringify(body), headers);
          if (!inspected) return;

          // Oracle: the first check that fails decides; an unknown label before it means no prediction.
          const checks: [Labelled, number, number][] = [
            [input.host, 403, -32600],
            [input.origin, 403, -32600],
            [input.contentType, 415, -32600],
            [input.accept, 406, -32600],
            [
              {
                value: "",
                ok:
                  version.ok === undefined || methodHeader.ok === undefined || name.ok === undefined
                    ? undefined
                    : version.ok && methodHeader.ok && name.ok,
              },
              400,
              -32020,
            ],
          ];
          for (const [label, status, code] of checks) {
            if (label.ok === undefined) return;
            if (!label.ok) {
              expect([inspected.status, only(inspected)?.error?.code]).toEqual([status, code]);
              return;
            }
          }
          expect(inspected.status).toBe(200);
          expect(only(inspected)?.result).toBeDefined();
        },
      ),
      { seed, numRuns },
    );
    assertUnpolluted(baseline);
    expectReached(/^200 result/, 0.1);
  });

  it("arbitrary tool arguments (__proto__, constructor, prototype, deep nesting, huge strings) to the fixture's tools and echo tools (2,000 cases in CI)", {
    timeout: 120_000,
  }, async () => {
    const { seed, numRuns } = seedFor("tool-arguments", 2_000);
    property = "tool-arguments";
    /** The members the fixture's tools take (key, value, query, keys, limit, kind, once, steps, what, uri), often almost right. */
    const knownArguments = fc.record({
      key: maybe(fc.oneof(storeKey, anyString, value), 4),
      value: maybe(fc.oneof(anyString, value), 3),
      query: maybe(anyString, 3),
      keys: maybe(fc.oneof(fc.array(fc.oneof(storeKey, anyString), { maxLength: 12 }), value), 4),
      limit: maybe(fc.oneof(fc.integer({ min: -5, max: 60 }), value), 4),
      kind: maybe(fc.oneof(fc.constantFrom("form", "url", "sampling", "roots"), anyString), 3),
      once: maybe(fc.oneof(fc.boolean(), value), 4),
      steps: maybe(fc.oneof(fc.integer({ min: -2, max: 12 }), value), 4),
      what: maybe(fc.oneof(fc.constantFrom("tools", "prompts", "resources", "updated"), anyString), 3),
      uri: maybe(uri, 4),
      text: maybe(anyString, 3),
      n: maybe(fc.oneof(fc.double(), value), 4),
      list: maybe(fc.array(value, { maxLength: 4 }), 4),
      map: maybe(hostileObject, 3),
    });
    const argumentsArb = fc.oneof(
      {
        weight: 4,
        arbitrary: fc
          .tuple(knownArguments, hostileObject)
          .map(([known, hostile]) => objectOf([...Object.entries(known).filter(([, v]) => v !== ABSENT), ...Object.entries(hostile)])),
      },
      { weight: 2, arbitrary: hostileObject },
      {
        weight: 1,
        arbitrary: fc
          .tuple(hostileObject, fc.integer({ min: 1, max: 80 }), fc.boolean())
          .map(([inner, levels, asArray]) => ({ text: "deep", list: [nest(inner, levels, asArray)] })),
      },
      {
        weight: 1,
        arbitrary: fc
          .tuple(fc.integer({ min: 1_000, max: 300_000 }), fc.constantFrom("x", "ü", "\u{1F600}", "\\", '"'))
          .map(([size, unit]) => ({ text: unit.repeat(size), key: "k", value: unit.repeat(Math.min(size, 30_000)) })),
      },
      { weight: 1, arbitrary: fc.constantFrom<unknown>(null, [], "arguments", 7, { text: "x".repeat(1_100_000) }) },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...TOOL_NAMES),
        argumentsArb,
        fc.constantFrom({}, { elicitation: {}, sampling: {}, roots: {} }),
        async (name, args, clientCapabilities) => {
          const body = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args, _meta: meta(clientCapabilities) } };
          const json = JSON.stringify(body);
          const target = name.startsWith("echo_") || name === "asker" ? fuzzServer : store;
          const inspected = await exchange(target, json, { ...BASE_HEADERS, ...mirroredHeaders(body) });
          if (!inspected) return;
          const answer = only(inspected);

          // Oracle: size, then shape, then the tool: a result (isError for bad arguments), never an internal fault.
          const depth = (v: unknown): number => (typeof v === "object" && v !== null ? 1 + Math.max(0, ...Object.values(v).map(depth)) : 0);
          const members = (v: unknown): number =>
            typeof v === "object" && v !== null
              ? (Array.isArray(v) ? 0 : Object.keys(v).length) + Object.values(v).reduce<number>((sum, child) => sum + members(child), 0)
              : 0;
          if (new TextEncoder().encode(json).byteLength > 1_048_576) return void expect(inspected.status).toBe(413);
          if (depth(body) > 64 || members(body) > 10_000)
            return void expect([inspected.status, answer?.error?.code]).toEqual([400, -32700]);
          // Arguments that are not an object, null included, are -32602 (the official SDK refuses null too).
          if (typeof args !== "object" || args === null || Array.isArray(args))
            return void expect([inspected.status, answer?.error?.code]).toEqual([200, -32602]);
          if (inspected.status === 400) return void expect(answer?.error?.code).toBe(-32021); // ask/remove asking a client without forms
          expect(inspected.status).toBe(200);
          const result = answer!.result!;
          expect(result).toBeDefined();
          expect(["complete", "input_required"]).toContain(result.resultType);
          const first = (result.content as { text?: string }[] | undefined)?.[0]?.text ?? "";
          expect(first).not.toContain("failed unexpectedly");
          // A hostile key never becomes the prototype of what a handler receives.
          if (first.startsWith('{"protoIntact"')) expect(JSON.parse(first)).toEqual({ protoIntact: true, polluted: false });
        },
      ),
      { seed, numRuns },
    );
    assertUnpolluted(baseline);
    expectReached(/^200 result (complete|input_required)$/, 0.05);
    expectReached(/^413|^400 -32700/, 0.01);
  });

  it("reads of keys nobody stored and task ids nobody minted answer 'not found', store nothing and wake no Durable Object (300 cases in CI)", {
    timeout: 120_000,
  }, async () => {
    const { seed, numRuns } = seedFor("unminted-ids", 300);
    property = "unminted-ids";
    const TASK_CLIENT = { elicitation: { form: {} }, extensions: { "io.modelcontextprotocol/tasks": {} } };
    const namespaces: Record<string, DurableObjectNamespace> = {
      SUBSCRIPTIONS: env.SUBSCRIPTIONS,
      LEGACY_SESSIONS: env.LEGACY_SESSIONS,
      REPLAY_GUARD: env.REPLAY_GUARD,
      TASKS: env.TASKS,
    };
    /** How many objects each of the engine's namespaces holds: a read must add none. */
    const objects = async () =>
      Object.fromEntries(
        await Promise.all(Object.entries(namespaces).map(async ([name, ns]) => [name, (await listDurableObjectIds(ns)).length])),
      );
    const keyRead = fc.constantFrom("get", "remove", "resources/read", "complete key", "complete focus", "prompts/get");
    const taskRead = fc.constantFrom("tasks/get", "tasks/update", "tasks/cancel");
    const read = fc.oneof(
      fc.record({ kind: fc.constant("key" as const), read: keyRead, key: storeKey }),
      fc.record({ kind: fc.constant("task" as const), read: taskRead, taskId: unmintedTaskId }),
    );
    await fc.assert(
      fc.asyncProperty(read, async (request) => {
        if (request.kind === "task") {
          const { taskId } = request;
          const params = { taskId, ...(request.read === "tasks/update" && { inputResponses: { q: { action: "decline" } } }) };
          const body = { jsonrpc: "2.0", id: 1, method: request.read, params: { ...params, _meta: meta(TASK_CLIENT) } };
          const headers = { ...BASE_HEADERS, ...mirroredHeaders(body), "mcp-name": taskId };
          const inspected = await exchange(store, JSON.stringify(body), headers);
          if (!inspected) return;
          // Oracle: "not found", and the Worker addressed no object for the id: it has no storage file at all.
          expect(only(inspected)?.error).toEqual({ code: -32602, message: "Failed to retrieve task: Task not found" });
          expect(await wasWoken(env.TASKS, taskId), taskId).toBe(false);
          return;
        }
        const { key } = request;
        const uri = `fixture://values/${key}`;
        const calls: Record<string, [string, Json]> = {
          get: ["tools/call", { name: "get", arguments: { key } }],
          remove: ["tools/call", { name: "remove", arguments: { key } }],
          "resources/read": ["resources/read", { uri }],
          "complete key": [
            "completion/complete",
            { ref: { type: "ref/resource", uri: "fixture://values/{key}" }, argument: { name: "key", value: key } },
          ],
          "complete focus": [
            "completion/complete",
            { ref: { type: "ref/prompt", name: "recall" }, argument: { name: "focus", value: "" }, context: { arguments: { key } } },
          ],
          "prompts/get": ["prompts/get", { name: "recall", arguments: { key } }],
        };
        const [method, params] = calls[request.read]!;
        const [storedBefore, objectsBefore] = [storedValueCount(), await objects()];
        const body = { jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: meta(TASK_CLIENT) } };
        const inspected = await exchange(store, JSON.stringify(body), { ...BASE_HEADERS, ...mirroredHeaders(body) });
        if (!inspected) return;
        const answer = only(inspected)!;
        // Oracle: "not found" in the form each method has for it.
        if (method === "tools/call") {
          expect(answer.result).toMatchObject({
            isError: true,
            content: [{ text: expect.stringContaining(`Nothing is stored at key ${key}`) }],
          });
        } else if (method === "resources/read") {
          expect(answer.error).toMatchObject({ code: -32602, message: "Resource not found", data: { uri } });
        } else if (method === "completion/complete") {
          expect(answer.result).toMatchObject({ completion: { values: [] } });
        } else {
          expect(answer.result?.messages).toHaveLength(1);
        }
        // And nothing was stored or woken for it: no value, and no new object in any of the engine's namespaces.
        expect(storedValueCount(), key).toBe(storedBefore);
        expect(await objects(), key).toEqual(objectsBefore);
      }),
      { seed, numRuns },
    );
    assertUnpolluted(baseline);
  });

  describe("requestState", () => {
    const capabilities = { elicitation: {} };
    const accept = { ok: { action: "accept", content: { ok: true } }, confirm: { action: "accept", content: { delete: true } } };
    let rounds: { target: Target; name: string; args: Json; state: string }[] = [];
    /** The value the single-use confirmation (`remove`) would delete: no mutated confirmation may delete it. */
    const kept = { key: "keep-me" };

    beforeAll(async () => {
      const first = async (target: Target, name: string, args: Json) => {
        const { result } = await readMessage(await target.send("tools/call", { name, arguments: args }, { capabilities }));
        expect(result?.resultType).toBe("input_required");
        return { target, name, args, state: result!.requestState as string };
      };
      await store.call("tools/call", { name: "put", arguments: { ...kept, value: "still here" } });
      rounds = [await first(fuzzServer, "asker", { item: "x" }), await first(store, "remove", kept)];
    });

    it("mutated requestState tokens on the retry of a real input_required call are all refused the same way (1,200 cases in CI)", {
      timeout: 120_000,
    }, async () => {
      const { seed, numRuns } = seedFor("request-state", 1_200);
      property = "request-state";
      const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.=+/! ~%".split("");
      const mutation = fc.oneof(
        fc.record({ kind: fc.constantFrom("replace", "insert", "delete"), at: fc.nat(), char: fc.constantFrom(...alphabet) }),
        fc.record({ kind: fc.constant("truncate"), at: fc.nat() }),
        fc.record({ kind: fc.constant("append"), text: anyString }),
        fc.record({ kind: fc.constant("segments"), order: fc.shuffledSubarray([0, 1, 2, 3, 0, 3], { minLength: 1 }) }),
        fc.record({ kind: fc.constant("kid"), kid: fc.stringMatching(/^[A-Za-z0-9_-]{1,16}$/) }),
        fc.record({ kind: fc.constant("version"), version: anyString }),
        fc.record({
          kind: fc.constant("claims"),
          claims: fc.record({
            e: maybe(fc.oneof(fc.integer(), fc.constant(8_640_000_000_000_000))),
            p: maybe(anyString),
            b: maybe(anyString),
            x: maybe(value),
          }),
        }),
        fc.record({
          kind: fc.constant("random"),
          text: fc.oneof(anyString, fc.stringMatching(/^v2\.test\.[A-Za-z0-9_-]{10,200}\.[A-Za-z0-9_-]{43}$/)),
        }),
        fc.record({ kind: fc.constant("swap") }),
        fc.record({ kind: fc.constant("oversize"), size: fc.integer({ min: 16_385, max: 60_000 }) }),
        fc.record({ kind: fc.constant("type"), value: fc.constantFrom<unknown>(null, 0, 1, true, false, [], {}, ["v1"], { token: "v1" }) }),
      );
      await fc.assert(
        fc.asyncProperty(fc.nat({ max: 1 }), mutation, async (which, change) => {
          const round = rounds[which]!;
          const token = round.state;
          const parts = token.split(".");
          let mutated: unknown;
          switch (change.kind) {
            case "replace":
            case "insert":
            case "delete": {
              const at = change.at % (token.length + (change.kind === "insert" ? 1 : 0));
              const skip = change.kind === "insert" ? 0 : 1;
              mutated = token.slice(0, at) + (change.kind === "delete" ? "" : change.char) + token.slice(at + skip);
              break;
            }
            case "truncate":
              mutated = token.slice(0, change.at % token.length);
              break;
            case "append":
              mutated = token + change.text;
              break;
            case "segments":
              mutated = change.order.map((index) => parts[index]).join(".");
              break;
            case "kid":
              mutated = [parts[0], change.kid, parts[2], parts[3]].join(".");
              break;
            case "version":
              mutated = [change.version, parts[1], parts[2], parts[3]].join(".");
              break;
            case "claims": {
              const claims = JSON.parse(new TextDecoder().decode(Uint8Array.fromBase64(parts[2]!, { alphabet: "base64url" }))) as Json;
              for (const [name, replacement] of Object.entries(change.claims)) if (replacement !== ABSENT) claims[name] = replacement;
              const payload = new TextEncoder().encode(JSON.stringify(claims)).toBase64({ alphabet: "base64url", omitPadding: true });
              mutated = [parts[0], parts[1], payload, parts[3]].join(".");
              break;
            }
            case "random":
              mutated = change.text;
              break;
            case "swap":
              mutated = rounds[1 - which]!.state;
              break;
            case "oversize":
              mutated = `${parts[0]}.${parts[1]}.${"A".repeat(change.size)}.${parts[3]}`;
              break;
            case "type":
              mutated = change.value;
              break;
          }
          fc.pre(mutated !== token);
          const body = {
            jsonrpc: "2.0",
            id: 1,
            method: "tools/call",
            params: { name: round.name, arguments: round.args, requestState: mutated, inputResponses: accept, _meta: meta(capabilities) },
          };
          const inspected = await exchange(round.target, JSON.stringify(body), { ...BASE_HEADERS, ...mirroredHeaders(body) });
          if (!inspected) return;
          expect(inspected.status).toBe(200);
          expect(only(inspected)).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32602, message: "Invalid requestState" } });
        }),
        { seed, numRuns },
      );
      assertUnpolluted(baseline);
      // No mutated confirmation deleted the value.
      const read = await readMessage(await store.send("tools/call", { name: "get", arguments: kept }));
      expect(read.result?.structuredContent?.value).toBe("still here");
    });
  });
});

describe("fuzzing dynamic client registration in authorization-server mode", () => {
  it("refuses every registration with a member over its limit or of an odd type with 400, and stores nothing (300 cases in CI)", {
    timeout: 120_000,
  }, async () => {
    const { seed, numRuns } = seedFor("registration", 300);
    const call = authServer();
    await fc.assert(
      fc.asyncProperty(oversizedRegistration, async (registration) => {
        const before = await storedClients();
        const response = await call("/register", jsonPost(registration));
        const body = (await response.json()) as { error?: unknown; error_description?: unknown };
        const sent = () => JSON.stringify(registration).slice(0, 300);
        expect(response.status, sent()).toBe(400);
        expect(["invalid_client_metadata", "invalid_redirect_uri"], sent()).toContain(body.error);
        expect(typeof body.error_description === "string" && body.error_description.length > 0, sent()).toBe(true);
        expect(await storedClients(), sent()).toBe(before);
      }),
      { seed, numRuns },
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Faults the fuzzing found, each reduced to a minimal reproduction; fixed, and kept as regression tests.
// ---------------------------------------------------------------------------------------------------------------

describe("faults found by fuzzing", () => {
  it("prompts/get with an argument the prompt's schema refuses (recall with a malformed key) is a client error (-32602), not HTTP 500", async () => {
    const response = await deployed.send("prompts/get", { name: "recall", arguments: { key: "Not A Key!" } });
    expect([response.status, (await readMessage(response)).error?.code]).toEqual([200, -32602]);
    const legacy = await deployed.post(
      { jsonrpc: "2.0", id: 1, method: "prompts/get", params: { name: "recall", arguments: { key: "Not A Key!" } } },
      BASE_HEADERS,
    );
    expect(legacy.status).toBe(200);
    expect((await readMessage(legacy)).error?.code).toBe(-32602);
  });

  it("clientCapabilities {elicitation: null} is refused as -32602 (or treated as absent), never an internal fault", async () => {
    const nullElicitation = { elicitation: null } as unknown as Json;
    for (const [method, params] of [
      ["resources/read", { uri: "test://ask" }],
      ["prompts/get", { name: "ask_prompt" }],
      ["tools/call", { name: "asker", arguments: {} }],
    ] as const) {
      const response = await fuzzServer.send(method, params, { capabilities: nullElicitation });
      const message = await readMessage(response);
      expect(message.result?.content?.[0]?.text ?? "", method).not.toContain("failed unexpectedly");
      expect(response.status, method).toBe(400);
      expect([-32602, -32021], method).toContain(message.error?.code);
    }
  });
});
