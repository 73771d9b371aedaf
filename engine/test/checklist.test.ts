/**
 * The bad-input and fault checklist: 48 cases that an MCP server on Cloudflare Workers must answer with a clear error
 * and no harm done (transport and envelope, tools and internal faults, authorization, requestState,
 * subscriptions/listen, /health), one row each, in numeric order. A row is either a test here, asserting the HTTP
 * status and, where the row has one, the JSON-RPC error code, or a numbered comment for a row whose case the file
 * about that part of the engine already asserts: COVERED_ELSEWHERE names those tests, so each case is asserted once
 * and this file stays the index of all 48 (test/repo/checklist.test.ts keeps rows, comments and table in step).
 * Where this server deliberately differs from the checklist's usual answer (legacy clients are served, requestState
 * binding is always on, the state size cap is configurable), the row says so.
 *
 * Durable Objects are isolated per test file, and listener caps count every open socket of a hub, so every listen
 * stream opened here is cancelled after its test.
 */

import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as z from "zod/mini";
import { defineResource, defineTool, elicitForm, text } from "../src";
import { parseKeySpec } from "../src/config/keys";
import { canonicalJson, importKeyRing, open, seal } from "../src/config/signing";
import { createPublisher } from "../src/listen/publish";
import { ANONYMOUS } from "../src/wire/principal";
import { adminOnly, tools as fixtureTools, storeTools } from "./helpers/fixture";
import { localIssuer } from "./helpers/issuer";
import { type Json, meta, readMessage, send, standardHeaders, testServer, URL_MCP } from "./helpers/rpc";
import { sseReader } from "./helpers/sse";
import { expectError, withLogs } from "./helpers/wire";
import { ANONYMOUS_CALLERS } from "./hub-groups";

/**
 * The rows whose case another file asserts, each with the tests that assert it: row -> [file, exact test name][].
 * Those rows keep a numbered comment at their place below. Rename or remove one of these tests and
 * test/repo/checklist.test.ts fails until this table says where the case went.
 */
// biome-ignore lint/correctness/noUnusedVariables: no test here reads it; test/repo/checklist.test.ts parses it from this file.
const COVERED_ELSEWHERE = {
  1: [["test/http/transport.test.ts", "answers GET and DELETE on /mcp with 405, Allow: POST and a JSON-RPC error without id or detail"]],
  2: [["test/http/guards.test.ts", "refuses a foreign Origin with 403 and a JSON-RPC error without id, before any tool code runs"]],
  3: [
    ["test/http/guards.test.ts", "refuses Origin: null and unparseable origins with 403"],
    ["test/http/guards.test.ts", "accepts no Origin (CLI, desktop client), the server's own origin, and loopback origins in development"],
  ],
  4: [["test/http/guards.test.ts", "refuses a foreign Host (DNS rebinding against wrangler dev) in development with 403"]],
  5: [
    ["test/http/guards.test.ts", "refuses a body that is not declared as JSON, or as JSON in another charset, with 415"],
    ["test/http/guards.test.ts", "refuses a missing Accept, or one without both application/json and text/event-stream, with 406"],
  ],
  6: [["test/http/guards.test.ts", "refuses a declared Content-Length over the 1 MiB cap with 413 before reading"]],
  7: [["test/http/guards.test.ts", "stops reading a chunked body once it passes the cap and answers 413 (production)"]],
  8: [
    [
      "test/wire/envelope.test.ts",
      "answers an empty body, a body that is not JSON or is cut short, and invalid UTF-8 with -32700, HTTP 400 and no id",
    ],
  ],
  9: [
    [
      "test/http/guards.test.ts",
      "answers nesting deeper than 64 levels (limits.request.maxJsonDepth) with 400 and -32700 instead of crashing",
    ],
  ],
  10: [
    [
      "test/http/guards.test.ts",
      "answers more than 10,000 object members (limits.request.maxJsonMembers) with 400 and -32700, even inside the size cap",
    ],
  ],
  11: [
    ["test/wire/envelope.test.ts", "refuses a batch (JSON array) with -32600 and HTTP 400"],
    ["test/wire/envelope.test.ts", "refuses a JSON-RPC response or error response sent by the client with -32600 and HTTP 400"],
    ["test/legacy/legacy.test.ts", "answers a batch with an array of responses, skipping notifications"],
  ],
  12: [
    [
      "test/wire/envelope.test.ts",
      'refuses jsonrpc other than "2.0" or missing, a missing method, and null, object, fractional, array or boolean ids with -32600 and HTTP 400',
    ],
  ],
  14: [["test/wire/envelope.test.ts", "accepts a notification with 202 and an empty body"]],
  15: [
    [
      "test/legacy/legacy.test.ts",
      "treats a request with neither header nor _meta as 2025-03-26 (no title, no outputSchema, no structuredContent)",
    ],
    ["test/wire/envelope.test.ts", "answers a modern _meta with no MCP-Protocol-Version header with -32020"],
    ["test/wire/envelope.test.ts", "answers an unsupported version with -32022, HTTP 400, data.supported and data.requested"],
    ["test/legacy/legacy.test.ts", "turns away a 2025 client with -32022 and the supported versions when legacyClients is off"],
  ],
  16: [
    ["test/wire/envelope.test.ts", "answers a header version that differs from _meta with -32020 and HTTP 400"],
    ["test/http/guards.test.ts", "refuses an Mcp-Method that differs from the body, including by case"],
    ["test/http/guards.test.ts", "refuses a missing or mismatching Mcp-Name on tools/call, naming both values"],
  ],
  17: [
    ["test/http/guards.test.ts", "decodes the =?base64?...?= form before comparing"],
    ["test/http/guards.test.ts", "refuses a malformed base64 header value with 400 and -32020"],
  ],
  18: [["test/http/transport.test.ts", "ignores Mcp-Session-Id and Last-Event-ID: never minted or echoed"]],
  19: [["test/define/tools.test.ts", "answers an unknown tool with -32602 (a protocol error, HTTP 200)"]],
  20: [
    ["test/define/tools.test.ts", "reports invalid arguments as an isError result the model can fix its call from"],
    ["test/define/tools.test.ts", "reports out-of-range values and missing arguments the same way"],
  ],
  21: [
    [
      "test/define/tools.test.ts",
      "keeps prototype-polluting keys out: __proto__, constructor and prototype are unknown keys, and no prototype changes",
    ],
  ],
  22: [["test/wire/envelope.test.ts", "keeps string ids as strings and ignores unknown envelope fields"]],
  23: [
    [
      "test/define/tools.test.ts",
      "turns a handler that throws into a generic isError result naming the request id, and logs the detail instead of answering it",
    ],
  ],
  25: [
    [
      "test/define/tools.test.ts",
      "answers structuredContent that breaks the outputSchema with -32603 (HTTP 500, a server bug) and a generic message, and logs it",
    ],
  ],
  26: [
    [
      "test/http/transport.test.ts",
      "treats a client closing the SSE response mid-call as cancellation: the handler sees an aborted signal",
    ],
  ],
  27: [
    ["test/auth/auth.test.ts", "answers a request without a token with 401 and a challenge naming the metadata and the scopes to ask for"],
  ],
  30: [["test/auth/auth.test.ts", "answers a call without the tool's scope with 403 insufficient_scope and every scope it needs"]],
  38: [
    [
      "test/http/hardening.test.ts",
      "answers /mcp with 503 and a generic message, and /health with 503 {status: error, config: invalid}, in production without STATE_KEYS or with a key under 32 bytes",
    ],
  ],
  40: [
    [
      "test/listen/listen.test.ts",
      "flushes its headers at once, then sends the acknowledgement first, with the honoured filter and subscriptionId = the request id",
    ],
  ],
  41: [
    ["test/listen/listen.test.ts", "drops notification types the server cannot deliver from the acknowledgement, and never sends them"],
    [
      "test/listen/listen.test.ts",
      "answers a malformed or oversized filter (over 64 URIs, over 12,000 bytes, a URI over 2,048 characters) with -32602 as JSON",
    ],
  ],
  42: [["test/listen/listen.test.ts", "sends comment keep-alives at the configured interval (default 20 s, within 15-25 s)"]],
  43: [["test/listen/limits.test.ts", "refuses a listener over the per-hub cap in-band, before any acknowledgement"]],
  44: [
    [
      "test/listen/listen.test.ts",
      "ends the stream without a completion result when the hub restarts (evicted mid-stream), and a new listen works",
    ],
  ],
  45: [
    [
      "test/listen/listen.test.ts",
      "ends the stream gracefully with the completion result {resultType: complete, _meta: {subscriptionId}} after the maximum lifetime",
    ],
  ],
  46: [["test/listen/listen.test.ts", "never announces one principal's resource changes to another principal's listeners"]],
  48: [["test/http/transport.test.ts", "answers GET /health with 200 {status: ok} under load, without touching storage or showing config"]],
} as const;

// ---------------------------------------------------------------------------------------------------------------
// Test servers
// ---------------------------------------------------------------------------------------------------------------

const echo = defineTool({
  name: "echo",
  description: "Echoes a short text.",
  input: z.strictObject({ text: z.string().check(z.minLength(1), z.maxLength(10)) }),
  handler: ({ text: value }) => ({ content: [text(value)] }),
});
/** Asks once; `item` only exists so that two calls can differ in their arguments. */
const askingTool = (name: string, singleUse: boolean) =>
  defineTool({
    name,
    description: "Asks for confirmation.",
    input: z.strictObject({ item: z.optional(z.string()) }),
    async handler(_args, ctx) {
      const { ok } = await ctx.ask({ ok: elicitForm("Sure?", z.object({ ok: z.boolean() })) }, { singleUse });
      return { content: [text(`ok=${ok.action}`)] };
    },
  });
const broken = defineResource({
  uri: "test://broken",
  name: "broken",
  read: () => {
    throw new Error("storage unreachable: secret detail");
  },
});
const definition = {
  tools: [echo, askingTool("confirm", false), askingTool("confirm_once", true)],
  resources: [broken],
};
const server = testServer(definition);

// ---------------------------------------------------------------------------------------------------------------
// Transport, envelope and headers (rows 1-18)
// ---------------------------------------------------------------------------------------------------------------

describe("transport and envelope", () => {
  // row 1: GET /mcp and DELETE /mcp get 405 with Allow: POST. Covered by http/transport.test.ts, see COVERED_ELSEWHERE.
  // row 2: a foreign Origin gets 403 and a JSON-RPC error without id; no tool code runs. Covered by http/guards.test.ts, see
  //   COVERED_ELSEWHERE.
  // row 3: Origin null or unparseable gets 403; no Origin (CLI, desktop client) is accepted. Covered by http/guards.test.ts, see
  //   COVERED_ELSEWHERE.
  // row 4: a foreign Host (DNS rebinding against wrangler dev) gets 403. Covered by http/guards.test.ts, see COVERED_ELSEWHERE.
  // row 5: wrong or missing Content-Type gets 415; an Accept lacking either type gets 406. Covered by http/guards.test.ts, see
  //   COVERED_ELSEWHERE.
  // row 6: a Content-Length over the 1 MiB cap gets 413 before the body is read. Covered by http/guards.test.ts, see COVERED_ELSEWHERE.
  // row 7: a chunked body growing past the cap is cut off at the cap with 413, never buffered whole (production). Covered by
  //   http/guards.test.ts, see COVERED_ELSEWHERE.
  // row 8: an empty body, invalid JSON and invalid UTF-8 get 400 and -32700 with no id. Covered by wire/envelope.test.ts, see
  //   COVERED_ELSEWHERE.
  // row 9: nesting 10^5 deep gets 400 and -32700, never a crash; the limit is 64 levels (limits.request.maxJsonDepth). Covered by http/guards.test.ts,
  //   see COVERED_ELSEWHERE.
  // row 10: 10^5 distinct keys inside the cap are refused in linear time (-32700 over limits.request.maxJsonMembers = 10,000). Covered by
  //   http/guards.test.ts, see COVERED_ELSEWHERE.
  // row 11: a batch with a 2026 header, or a JSON-RPC response from the client, gets 400 and -32600 (batches without a header are
  //   2025-03-26 and served). Covered by wire/envelope.test.ts and legacy/legacy.test.ts, see COVERED_ELSEWHERE.
  // row 12: jsonrpc other than 2.0, a missing method, a null id and object or float ids get 400 and -32600. Covered by
  //   wire/envelope.test.ts, see COVERED_ELSEWHERE.

  it("row 13: an unknown method gets 404 and -32601", async () => {
    await expectError(await send("no/such/method", {}, { id: 13 }), 404, -32601, 13);
  });

  // row 14: a notification is accepted with 202 and an empty body. Covered by wire/envelope.test.ts, see COVERED_ELSEWHERE.
  // row 15: no MCP-Protocol-Version and no _meta is served as 2025-03-26; a modern request without the header gets 400/-32020; an
  //   unsupported version gets 400/-32022 with data.supported (and with legacy clients off, a request without a version gets -32022).
  //   Covered by legacy/legacy.test.ts and wire/envelope.test.ts, see COVERED_ELSEWHERE.
  // row 16: MCP-Protocol-Version != _meta version, Mcp-Method != method, Mcp-Name != params.name get 400 and -32020. Covered by
  //   wire/envelope.test.ts and http/guards.test.ts, see COVERED_ELSEWHERE.
  // row 17: Mcp-Name in =?base64?...?= form is decoded before comparison; a malformed sentinel gets 400 and -32020. Covered by
  //   http/guards.test.ts, see COVERED_ELSEWHERE.
  // row 18: Mcp-Session-Id and Last-Event-ID on a 2026 request are ignored: no session minted or echoed. Covered by
  //   http/transport.test.ts, see COVERED_ELSEWHERE.
});

// ---------------------------------------------------------------------------------------------------------------
// Tools and internal faults (rows 19-26)
// ---------------------------------------------------------------------------------------------------------------

describe("tools and faults", () => {
  // row 19: tools/call for an unknown tool gets -32602 Unknown tool (a protocol error, HTTP 200). Covered by define/tools.test.ts, see
  //   COVERED_ELSEWHERE.
  // row 20: arguments of the wrong type or out of range give an isError result (HTTP 200) with an actionable message. Covered by
  //   define/tools.test.ts, see COVERED_ELSEWHERE.
  // row 21: extra keys and __proto__/constructor/prototype keys give isError; Object.prototype stays unpolluted. Covered by
  //   define/tools.test.ts, see COVERED_ELSEWHERE.
  // row 22: unknown extra fields in the envelope are ignored. Covered by wire/envelope.test.ts, see COVERED_ELSEWHERE.
  // row 23: a throwing handler gives isError with 'Reference: <X-Request-Id>' and no detail; the detail is logged. Covered by
  //   define/tools.test.ts, see COVERED_ELSEWHERE.

  it("row 24: an internal failure outside a tool (a resource read that throws) gets -32603 with HTTP 500 and a generic message", async () => {
    const { value: response } = await withLogs(() => server.send("resources/read", { uri: "test://broken" }, { id: 24 }));
    const message = await expectError(response, 500, -32603, 24);
    expect(message.error).toEqual({ code: -32603, message: "Internal error" });
  });

  // row 25: structuredContent that does not match outputSchema gets -32603 (HTTP 500, a server bug) and is logged. Covered by
  //   define/tools.test.ts, see COVERED_ELSEWHERE.
  // row 26: a client closing the SSE response mid-call cancels the call: the handler sees an aborted signal. Covered by
  //   http/transport.test.ts, see COVERED_ELSEWHERE.
});

// ---------------------------------------------------------------------------------------------------------------
// Authorization (rows 27-30), with a local issuer
// ---------------------------------------------------------------------------------------------------------------

let issuer: Awaited<ReturnType<typeof localIssuer>>;
beforeAll(async () => {
  issuer = await localIssuer();
});
const token = (claims: { sub?: string; aud?: string; exp?: number; scope?: string } = {}) => issuer.token(claims);
/** The fixture's tools with its value store, one that needs a scope and an asking one, behind a local issuer. */
const authed = () => testServer({ tools: [...fixtureTools, ...storeTools, adminOnly, askingTool("confirm", false)] }, issuer.vars);
const bearer = (jwt: string) => ({ authorization: `Bearer ${jwt}` });

describe("authorization", () => {
  // row 27: auth on, no token: 401 with WWW-Authenticate: Bearer resource_metadata=.../.well-known/oauth-protected-resource/mcp and the
  //   scopes to ask for. Covered by auth/auth.test.ts, see COVERED_ELSEWHERE.

  it("row 28: a token for another audience (/mcp-other, another host) gets 401 invalid_token", async () => {
    for (const aud of ["http://localhost:8787/mcp-other", "https://elsewhere.example/mcp"]) {
      const response = await authed().send("tools/list", {}, { headers: bearer(await token({ aud })) });
      expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
      await expectError(response, 401, -32600, null);
    }
  });

  it("row 29: an expired token gets 401; a token in the query string is refused with 400 and never logged", async () => {
    const expired = await authed().send("tools/list", {}, { headers: bearer(await token({ exp: Math.floor(Date.now() / 1000) - 120 })) });
    expect(expired.headers.get("www-authenticate")).toContain('error="invalid_token"');
    await expectError(expired, 401, -32600, null);

    const jwt = await token();
    const { value: response, lines } = await withLogs(() =>
      authed().fetch(
        new Request(`${URL_MCP}?access_token=${jwt}`, {
          method: "POST",
          headers: { ...standardHeaders("tools/list"), ...bearer(jwt) },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta() } }),
        }),
      ),
    );
    expect(response.headers.get("www-authenticate")).toContain('error="invalid_request"');
    await expectError(response, 400, -32600, null);
    expect(lines.some((line) => line.includes(jwt))).toBe(false);
  });

  // row 30: a valid token missing the tool's scope gets 403 insufficient_scope with scope and resource_metadata. Covered by
  //   auth/auth.test.ts, see COVERED_ELSEWHERE.
});

// ---------------------------------------------------------------------------------------------------------------
// requestState (rows 31-39)
// ---------------------------------------------------------------------------------------------------------------

const ELICIT = { elicitation: {} };
const ACCEPT = { ok: { action: "accept", content: { ok: true } } };
type Target = ReturnType<typeof testServer>;
interface Round {
  target?: Target;
  name?: string;
  args?: Json;
  headers?: Record<string, string>;
}

/** Runs the first round of an asking tool and returns its signed requestState. */
async function firstRound({ target = server, name = "confirm", args = {}, headers }: Round = {}): Promise<string> {
  const { result } = await readMessage(await target.send("tools/call", { name, arguments: args }, { capabilities: ELICIT, headers }));
  expect(result?.resultType).toBe("input_required");
  return result!.requestState as string;
}
/** The retry that answers the question, carrying `state`. */
function retry(state: unknown, { target = server, name = "confirm", args = {}, headers }: Round = {}) {
  return target.send(
    "tools/call",
    { name, arguments: args, requestState: state, inputResponses: ACCEPT },
    { capabilities: ELICIT, headers },
  );
}
/** Asserts the one fixed refusal (HTTP 200, -32602 "Invalid requestState", no data) and the reason in the log only. */
async function expectRejected(request: () => Promise<Response>, reason: string) {
  const { value: response, lines, entries } = await withLogs(request);
  const message = await expectError(response, 200, -32602);
  expect(message.error).toEqual({ code: -32602, message: "Invalid requestState" });
  expect(entries.filter((entry) => entry.message === "requestState rejected").map((entry) => entry.reason)).toEqual([reason]);
  return lines;
}
async function expectAccepted(response: Response) {
  expect(response.status).toBe(200);
  expect((await readMessage(response)).result?.content).toEqual([{ type: "text", text: "ok=accept" }]);
}
const keyB64 = (seed: string) => btoa(seed.padEnd(32, "#"));
const mutate = (state: string, part: 2 | 3) => {
  const parts = state.split(".");
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const segment = parts[part]!;
  const at = Math.floor(segment.length / 2);
  // One bit of the 6-bit value flips; a middle character keeps the base64url spelling canonical.
  parts[part] = segment.slice(0, at) + alphabet[alphabet.indexOf(segment[at]!) ^ 1] + segment.slice(at + 1);
  return parts.join(".");
};
/** A token minted by hand with the test key, as the engine would mint it for `confirm` with `{}` as arguments. */
async function handMinted(options: { now?: number; bind?: Record<string, string> } = {}) {
  const ring = await importKeyRing(parseKeySpec(env.STATE_KEYS).keys);
  const bind = options.bind ?? { method: "tools/call", name: "confirm", args: canonicalJson({}), principal: "anonymous" };
  return seal(ring, {
    purpose: "mcp.requestState",
    bind,
    ttlMs: 600_000,
    now: options.now,
    body: { answers: {}, state: {}, asked: { ok: "form" } },
  });
}

describe("requestState", () => {
  it("row 31: a state token with one bit flipped in the body or the MAC, or minted under another key, gets -32602 (reason mac, in the log only)", async () => {
    const state = await firstRound();
    await expectRejected(() => retry(mutate(state, 2)), "mac");
    await expectRejected(() => retry(mutate(state, 3)), "mac");
    const otherKey = testServer(definition, { STATE_KEYS: `test:${keyB64("another key entirely")}` });
    await expectRejected(async () => retry(await firstRound({ target: otherKey })), "mac");
    await expectAccepted(await retry(state));
  });

  it("row 32: an unknown kid (reason kid), an old version prefix (reason version), bad base64url or an oversize token (reason malformed, no crypto) get -32602", async () => {
    const state = await firstRound();
    const [, kid, payload, mac] = state.split(".") as [string, string, string, string];
    await expectRejected(() => retry(`v2.retired.${payload}.${mac}`), "kid");
    await expectRejected(() => retry(`v1.${kid}.${payload}.${mac}`), "version");
    await expectRejected(() => retry(`v2.${kid}.${payload}.${mac.slice(0, -1)}!`), "malformed");
    await expectRejected(() => retry(`v2.${kid}.${payload}=.${mac}`), "malformed");

    // The checklist's usual 4 KB cap, set through limits.state.maxBytes (default 16 KiB): over it, not a single MAC is checked.
    const capped = testServer({ ...definition, limits: { state: { maxBytes: 4096 } } });
    const oversize = `v2.${kid}.${"A".repeat(4_096)}.${mac}`;
    const verify = vi.spyOn(crypto.subtle, "verify");
    try {
      await expectRejected(() => retry(oversize, { target: capped }), "malformed");
      expect(verify).not.toHaveBeenCalled();
    } finally {
      verify.mockRestore();
    }
  });

  it("row 33: a state token after its expiry gets -32602 (reason expired)", async () => {
    await expectAccepted(await retry(await handMinted()));
    await expectRejected(async () => retry(await handMinted({ now: Date.now() - 601_000 })), "expired");
  });

  it("row 34: a state token from user A presented by user B gets -32602 (reason mac: the MAC covers the principal); the error names no identity", async () => {
    const secured = authed();
    const alice = bearer(await token({ sub: "alice" }));
    const state = await firstRound({ target: secured, headers: alice });
    const lines = await expectRejected(async () => retry(state, { target: secured, headers: bearer(await token({ sub: "bob" })) }), "mac");
    expect(lines.join("\n")).not.toContain("alice");
    await expectAccepted(await retry(state, { target: secured, headers: alice }));
  });

  it("row 35: a state token minted for tool X or arguments D, replayed on tool Y or other arguments, gets -32602 (reason mac: the MAC covers tool and arguments)", async () => {
    const state = await firstRound({ args: { item: "a" } });
    await expectRejected(() => retry(state, { args: { item: "b" } }), "mac");
    await expectRejected(() => retry(state, { args: {} }), "mac");
    await expectRejected(() => retry(state, { name: "confirm_once", args: { item: "a" } }), "mac");
    await expectRejected(() => server.send("tools/call", { name: "echo", arguments: { text: "a" }, requestState: state }), "mac");
    await expectAccepted(await retry(state, { args: { item: "a" } }));
  });

  it("row 36: single-use state (ctx.ask(..., { singleUse: true })) presented twice: the second use gets -32602 (reason replay)", async () => {
    const state = await firstRound({ name: "confirm_once" });
    await expectAccepted(await retry(state, { name: "confirm_once" }));
    await expectRejected(() => retry(state, { name: "confirm_once" }), "replay");
  });

  it("row 37 (adapted: binding is always on, there is no unbound mode): a token minted for one principal or tool, or with no binding at all, is refused", async () => {
    const secured = authed();
    const alice = bearer(await token({ sub: "alice" }));
    const state = await firstRound({ target: secured, headers: alice });
    await expectRejected(async () => retry(state, { target: secured, headers: bearer(await token({ sub: "mallory" })) }), "mac");
    await expectRejected(async () => retry(await firstRound(), { name: "confirm_once" }), "mac");
    await expectRejected(async () => retry(await handMinted({ bind: {} })), "mac");
  });

  // row 38: production without STATE_KEYS, or with a key under 32 bytes, fails closed: /mcp 503 generic, /health 503 {status:error,
  //   config:invalid}. Covered by http/hardening.test.ts, see COVERED_ELSEWHERE.

  it("row 39: after a key rotation, tokens of the previous kid verify until their expiry, then fail; a retired kid fails", async () => {
    const PURPOSE = "mcp.requestState";
    const bind = { method: "tools/call", name: "confirm", args: "d", principal: "anonymous" };
    const ring = async (spec: string) => importKeyRing(parseKeySpec(spec).keys);
    const old = `old:${keyB64("the old key")}`;
    const minted = await seal(await ring(old), { purpose: PURPOSE, bind, ttlMs: 600_000, body: { a: {} } });
    const rotated = await ring(`new:${keyB64("the new key")},${old}`);
    const options = { purpose: PURPOSE, bind, maxLength: 16_384 };
    expect(await open(rotated, minted, options)).toEqual({ ok: true, body: { a: {} } });
    expect((await seal(rotated, { purpose: PURPOSE, bind, ttlMs: 1, body: {} })).split(".")[1]).toBe("new");
    expect(await open(rotated, minted, { ...options, now: Date.now() + 600_001 })).toEqual({ ok: false, reason: "expired" });
    expect(await open(await ring(`new:${keyB64("the new key")}`), minted, options)).toEqual({ ok: false, reason: "kid" });

    // End to end: state minted before the rotation is honoured after it.
    const before = testServer(definition, { STATE_KEYS: old });
    const after = testServer(definition, { STATE_KEYS: `new:${keyB64("the new key")},${old}` });
    await expectAccepted(await retry(await firstRound({ target: before }), { target: after }));
  });
});

// ---------------------------------------------------------------------------------------------------------------
// subscriptions/listen (rows 40-47), then /health (row 48)
// ---------------------------------------------------------------------------------------------------------------

const hubServer = testServer({ tools: fixtureTools, limits: { listen: { keepAliveMs: 60_000 } } });
const subscription = (id: string | number) => ({ "io.modelcontextprotocol/subscriptionId": id });
const readers: ReturnType<typeof sseReader>[] = [];
afterEach(async () => {
  await Promise.all(readers.splice(0).map((reader) => reader.cancel()));
});

async function listen(notifications: Json, id: string | number) {
  const response = await hubServer.send("subscriptions/listen", { notifications }, { id });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/event-stream");
  const reader = sseReader(response);
  readers.push(reader);
  return reader;
}
const count = (hub: string) => env.SUBSCRIPTIONS.getByName(hub).count();
/**
 * Waits until the hubs hold `expected` listeners (sockets close asynchronously after a stream is cancelled). The
 * bound is on a hang, and holds on a busy machine; never a measurement.
 */
async function settle(hubs: string[], expected = 0) {
  await expect.poll(() => Promise.all(hubs.map(count)), { timeout: 10_000, interval: 20 }).toEqual(hubs.map(() => expected));
}

describe("subscriptions/listen", () => {
  // row 40: listen flushes its headers at once, and the first message is the acknowledgement carrying subscriptionId = the request id.
  //   Covered by listen/listen.test.ts, see COVERED_ELSEWHERE.
  // row 41: types the server cannot deliver are dropped from the acknowledgement and never sent; over 64 URIs or 12,000 bytes of filter
  //   gets -32602. Covered by listen/listen.test.ts, see COVERED_ELSEWHERE.
  // row 42: an idle stream gets ': keepalive' comments at the configured interval (default 20 s, within 15-25 s). Covered by
  //   listen/listen.test.ts, see COVERED_ELSEWHERE.
  // row 43: at the subscriber cap, the new listener gets an in-band -32603 'Subscription limit reached' before any acknowledgement.
  //   Covered by listen/limits.test.ts, see COVERED_ELSEWHERE.
  // row 44: when the hub is evicted mid-stream the stream ends without a completion result, and a new listen works. Covered by
  //   listen/listen.test.ts, see COVERED_ELSEWHERE.
  // row 45: at the lifetime cap the server sends {resultType: complete, _meta: {subscriptionId}} and then closes. Covered by
  //   listen/listen.test.ts, see COVERED_ELSEWHERE.
  // row 46: a notification about a user-private resource reaches only listeners of the same principal. Covered by listen/listen.test.ts,
  //   see COVERED_ELSEWHERE.

  it("row 47: a write to a closed stream is swallowed, the subscriber is removed, and other subscribers are unaffected", async () => {
    const hub = ANONYMOUS_CALLERS;
    const before = await count(hub);
    const gone = await listen({ toolsListChanged: true }, "row-47-gone");
    const stays = await listen({ toolsListChanged: true }, "row-47-stays");
    await Promise.all([gone.message(), stays.message()]);
    await gone.cancel();
    // Published at once, while the closed stream's sockets may still be open in the hubs.
    await createPublisher(env.SUBSCRIPTIONS, ANONYMOUS).toolsListChanged();
    expect(await stays.message()).toMatchObject({
      method: "notifications/tools/list_changed",
      params: { _meta: subscription("row-47-stays") },
    });
    await settle([hub], before + 1);
    await createPublisher(env.SUBSCRIPTIONS, ANONYMOUS).toolsListChanged();
    expect(await stays.message()).toMatchObject({ method: "notifications/tools/list_changed" });
  });
});

// row 48: GET /health answers 200 {status: ok} quickly, under load, without touching storage or showing config. Covered by
//   http/transport.test.ts, see COVERED_ELSEWHERE.
