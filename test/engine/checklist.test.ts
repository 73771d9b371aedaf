/**
 * The bad-input and fault checklist (docs: style-ecosystem-security.md, section C.6), one test per row, each
 * asserting the HTTP status and, where the row has one, the JSON-RPC error code. Where this server deliberately
 * differs from the reference table (legacy clients are served, requestState binding is always on, the state size
 * cap is configurable), the test name says so.
 *
 * Durable Objects are isolated per test file, and listener caps count every open socket of a hub, so every listen
 * stream opened here is cancelled after its test.
 */
import { abortAllDurableObjects } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as z from "zod/mini";
import { definePrompt, defineResource, defineTool, elicitForm, text } from "../../src/mcp";
import { parseConfig } from "../../src/mcp/config";
import { digestJson, importKeyRing, open, parseKeySpec, seal } from "../../src/mcp/input/state-token";
import { createPublisher, globalHubName, principalHubName } from "../../src/mcp/listen/publish";
import { tools as exampleTools } from "../../src/tools";
import { localIssuer } from "../helpers/issuer";
import { type Json, MODERN, meta, post, readMessage, SERVED_VERSIONS, send, standardHeaders, testServer, URL_MCP } from "../helpers/rpc";
import { sseReader } from "../helpers/sse";
import { expectError, prototypeSnapshot, withLogs } from "../helpers/wire";

// ---------------------------------------------------------------------------------------------------------------
// Test servers
// ---------------------------------------------------------------------------------------------------------------

let echoRuns = 0;
const cancelled: (string | number)[] = [];
const echo = defineTool({
  name: "echo",
  description: "Echoes a short text.",
  input: z.strictObject({
    text: z.string().check(z.minLength(1), z.maxLength(10)),
    times: z.optional(z.int().check(z.minimum(1), z.maximum(5))),
  }),
  output: z.object({ echoed: z.string() }),
  handler: ({ text: value, times }) => {
    echoRuns++;
    return { structuredContent: { echoed: value.repeat(times ?? 1) } };
  },
});
const crash = defineTool({
  name: "crash",
  description: "Throws, as a buggy tool would.",
  input: z.strictObject({}),
  handler: () => {
    throw new Error("secret detail: the database password is hunter2");
  },
});
const lies = defineTool({
  name: "lies",
  description: "Returns structuredContent that breaks its own outputSchema.",
  input: z.strictObject({}),
  output: z.object({ count: z.number() }),
  handler: () => ({ structuredContent: { count: "many" } as unknown as { count: number } }),
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
const slow = defineTool({
  name: "slow",
  description: "Reports progress five times; stops when cancelled.",
  input: z.strictObject({}),
  async handler(_args, ctx) {
    for (let step = 1; step <= 5; step++) {
      if (ctx.signal.aborted) {
        cancelled.push(ctx.requestId);
        return { content: [text("cancelled")] };
      }
      ctx.progress(step, 5);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return { content: [text("done")] };
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
  tools: [echo, crash, lies, askingTool("confirm", false), askingTool("confirm_once", true), slow],
  resources: [broken],
};
const server = testServer(definition);
const HEADERS = standardHeaders("server/discover");
const discover = { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta() } };
const legacyHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" };

// ---------------------------------------------------------------------------------------------------------------
// Transport, envelope and headers (rows 1-18)
// ---------------------------------------------------------------------------------------------------------------

describe("transport and envelope", () => {
  it("row 1: GET /mcp and DELETE /mcp get 405 with Allow: POST", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await exports.default.fetch(URL_MCP, { method });
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
      // No detail beyond the refusal itself: no id, no data.
      expect(await response.json()).toEqual({
        jsonrpc: "2.0",
        error: { code: -32600, message: expect.stringMatching(/^Method Not Allowed/) },
      });
    }
  });

  it("row 2: a foreign Origin gets 403 and a JSON-RPC error without id; no tool code runs", async () => {
    const before = echoRuns;
    const response = await server.send(
      "tools/call",
      { name: "echo", arguments: { text: "hi" } },
      { headers: { origin: "https://evil.example" } },
    );
    await expectError(response, 403, -32600, null);
    expect(echoRuns).toBe(before);
  });

  it("row 3: Origin null or unparseable gets 403; no Origin (CLI, desktop client) is accepted", async () => {
    for (const origin of ["null", "not a url", "http://localhost:8787/path", "file://"]) {
      await expectError(await post(discover, { ...HEADERS, origin }), 403, -32600, null);
    }
    const accepted = await post(discover, HEADERS);
    expect(accepted.status).toBe(200);
    expect((await readMessage(accepted)).result?.supportedVersions).toEqual(SERVED_VERSIONS);
  });

  it("row 4: a foreign Host (DNS rebinding against wrangler dev) gets 403", async () => {
    await expectError(await post(discover, { ...HEADERS, host: "evil.example.com" }), 403, -32600, null);
    await expectError(await post(discover, { ...HEADERS, host: "evil.example.com:8787" }), 403, -32600, null);
  });

  it("row 5: wrong or missing Content-Type gets 415; an Accept lacking either type gets 406", async () => {
    for (const type of ["text/plain", null, "application/json; charset=latin1", "application/jsonx"]) {
      await expectError(await post(discover, { ...HEADERS, "content-type": type }), 415, -32600, null);
    }
    for (const accept of ["application/json", "text/event-stream", null, "application/json, text/event-stream;q=0"]) {
      await expectError(await post(discover, { ...HEADERS, accept }), 406, -32600, null);
    }
  });

  it("row 6: a Content-Length over the 1 MiB cap gets 413 before the body is read", async () => {
    const request = new Request(URL_MCP, {
      method: "POST",
      headers: { ...HEADERS, "content-length": String(2 * 1024 * 1024) },
      body: "{}",
    });
    await expectError(await server.fetch(request), 413, -32600, null);
    expect(request.bodyUsed).toBe(false);
    await expectError(await post("{}", { ...HEADERS, "content-length": String(1_048_577) }), 413, -32600, null);
  });

  it("row 7: a chunked body growing past the cap is cut off at the cap with 413, never buffered whole (production; development drains a bounded rest, see http/guards.test.ts)", async () => {
    const chunk = new TextEncoder().encode(" ".repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += chunk.byteLength;
        if (sent > 64 * 1024 * 1024) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const production = testServer({}, { MCP_ENV: "production" });
    await expectError(await production.post(body, HEADERS, { duplex: "half" } as RequestInit), 413, -32600, null);
    expect(sent).toBeLessThan(2 * 1024 * 1024);
  });

  it("row 8: an empty body, invalid JSON and invalid UTF-8 get 400 and -32700 with no id", async () => {
    for (const body of ["", "{not json", '{"jsonrpc":"2.0","id":1,', new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])]) {
      await expectError(await post(body, HEADERS), 400, -32700, null);
    }
  });

  it("row 9: nesting 10^5 deep gets 400 and -32700, never a crash; the limit is 64 levels (MAX_JSON_DEPTH)", async () => {
    await expectError(await post("[".repeat(100_000) + "]".repeat(100_000), HEADERS), 400, -32700, null);
    await expectError(await post("[".repeat(65) + "]".repeat(65), HEADERS), 400, -32700, null);
    // 64 levels parse; the value is then refused for what it is (an array on the 2026-07-28 path), not for depth.
    await expectError(await post("[".repeat(64) + "]".repeat(64), HEADERS), 400, -32600, null);
  });

  it("row 10: 10^5 distinct keys inside the cap are refused in linear time (-32700 over MAX_JSON_MEMBERS = 10,000)", async () => {
    const keys = Array.from({ length: 100_000 }, (_, i) => `"${i.toString(36)}":0`).join(",");
    const body = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"x":{${keys}}}}`;
    expect(body.length).toBeLessThan(1_048_576);
    const started = Date.now();
    await expectError(await post(body, HEADERS), 400, -32700, null);
    expect(Date.now() - started).toBeLessThan(5_000);

    // Exactly 10,000 members (every key counts, the envelope's too) is accepted; one more is not.
    const withMembers = (total: number) => {
      const base = { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta(), pad: {} as Json } };
      const used = JSON.stringify(base).split(":").length - 1;
      for (let i = 0; i < total - used; i++) base.params.pad[`k${i}`] = 0;
      return base;
    };
    expect((await post(withMembers(10_000), HEADERS)).status).toBe(200);
    await expectError(await post(withMembers(10_001), HEADERS), 400, -32700, null);
  });

  it("row 11: a batch with a 2026 header, or a JSON-RPC response from the client, gets 400 and -32600 (batches without a header are 2025-03-26 and served)", async () => {
    const batch = [{ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta() } }];
    await expectError(await post(batch, standardHeaders("tools/list")), 400, -32600, null);
    await expectError(await post({ jsonrpc: "2.0", id: 3, result: {} }, { ...HEADERS, "mcp-method": null }), 400, -32600, 3);
    await expectError(
      await post({ jsonrpc: "2.0", id: 4, error: { code: 1, message: "x" } }, { ...HEADERS, "mcp-method": null }),
      400,
      -32600,
      4,
    );

    const legacyBatch = await post(
      [
        { jsonrpc: "2.0", id: 1, method: "ping" },
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
      ],
      legacyHeaders,
    );
    expect(legacyBatch.status).toBe(200);
    const answers = (await legacyBatch.json()) as Json[];
    expect(answers.map((answer) => answer.id)).toEqual([1, 2]);
    expect(answers[1]).toHaveProperty("result.tools");
  });

  it("row 12: jsonrpc other than 2.0, a missing method, a null id and object or float ids get 400 and -32600", async () => {
    const request = (fields: Json) =>
      post({ jsonrpc: "2.0", id: 7, method: "tools/list", params: { _meta: meta() }, ...fields }, standardHeaders("tools/list"));
    await expectError(await request({ jsonrpc: "1.0" }), 400, -32600, 7);
    await expectError(await request({ jsonrpc: undefined }), 400, -32600, 7);
    await expectError(await post({ jsonrpc: "2.0", id: 8, params: { _meta: meta() } }, standardHeaders("tools/list")), 400, -32600, 8);
    for (const id of [null, { a: 1 }, 1.5, [1], true]) await expectError(await request({ id }), 400, -32600, null);
  });

  it("row 13: an unknown method gets 404 and -32601", async () => {
    await expectError(await send("no/such/method", {}, { id: 13 }), 404, -32601, 13);
  });

  it("row 14: a notification is accepted with 202 and an empty body", async () => {
    const response = await post(
      { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } },
      standardHeaders("notifications/cancelled"),
    );
    expect(response.status).toBe(202);
    expect(await response.text()).toBe("");
  });

  it("row 15: no MCP-Protocol-Version and no _meta is served as 2025-03-26; a modern request without the header gets 400/-32020; an unsupported version gets 400/-32022 with data.supported", async () => {
    const legacy = await post({ jsonrpc: "2.0", id: 1, method: "tools/list" }, legacyHeaders);
    expect(legacy.status).toBe(200);
    const served = await readMessage(legacy);
    expect(served.result?.tools).toBeDefined();
    expect(served.result).not.toHaveProperty("resultType");

    await expectError(await send("server/discover", {}, { id: 151, headers: { "mcp-protocol-version": null } }), 400, -32020, 151);

    const unsupported = await send(
      "server/discover",
      {},
      {
        id: 152,
        metaExtra: { "io.modelcontextprotocol/protocolVersion": "v999" },
        headers: { "mcp-protocol-version": "v999" },
      },
    );
    expect((await expectError(unsupported, 400, -32022, 152)).error?.data).toEqual({ supported: SERVED_VERSIONS, requested: "v999" });

    // With legacy support off, the reference behaviour: a request without a version is refused with -32022.
    const statelessOnly = testServer(definition, { LEGACY_CLIENTS: "off" });
    const refused = await statelessOnly.post({ jsonrpc: "2.0", id: 153, method: "tools/list" }, legacyHeaders);
    expect((await expectError(refused, 400, -32022, 153)).error?.data).toEqual({ supported: [MODERN], requested: "2025-03-26" });
  });

  it("row 16: MCP-Protocol-Version != _meta version, Mcp-Method != method, Mcp-Name != params.name get 400 and -32020", async () => {
    const call = { name: "echo", arguments: { text: "hi" } };
    await expectError(
      await server.send("tools/call", call, { id: 161, headers: { "mcp-protocol-version": "2026-01-01" } }),
      400,
      -32020,
      161,
    );
    await expectError(await server.send("tools/call", call, { id: 162, headers: { "mcp-method": "tools/list" } }), 400, -32020, 162);
    await expectError(await server.send("tools/call", call, { id: 163, headers: { "mcp-name": "crash" } }), 400, -32020, 163);
  });

  it("row 17: Mcp-Name in =?base64?...?= form is decoded before comparison; a malformed sentinel gets 400 and -32020", async () => {
    const call = { name: "echo", arguments: { text: "hi" } };
    const accepted = await server.send("tools/call", call, { headers: { "mcp-name": `=?base64?${btoa("echo")}?=` } });
    expect(accepted.status).toBe(200);
    expect((await readMessage(accepted)).result?.structuredContent).toEqual({ echoed: "hi" });
    for (const value of ["=?base64?ZWNobw?=", "=?base64?ZW!ob w==?=", `=?base64?${btoa("\xff\xfe")}?=`, `=?base64?${btoa("crash")}?=`]) {
      await expectError(await server.send("tools/call", call, { headers: { "mcp-name": value } }), 400, -32020);
    }
  });

  it("row 18: Mcp-Session-Id and Last-Event-ID on a 2026 request are ignored: no session minted or echoed", async () => {
    const response = await send("tools/list", {}, { headers: { "mcp-session-id": "not-a-session", "last-event-id": "42" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("mcp-session-id")).toBeNull();
    expect((await readMessage(response)).result?.tools).toBeDefined();
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Tools and internal faults (rows 19-26)
// ---------------------------------------------------------------------------------------------------------------

describe("tools and faults", () => {
  const callTool = (name: string, args: unknown, id?: number) => server.send("tools/call", { name, arguments: args }, { id });

  it("row 19: tools/call for an unknown tool gets -32602 Unknown tool (a protocol error, HTTP 200)", async () => {
    const message = await expectError(await callTool("nope", {}, 19), 200, -32602, 19);
    expect(message.error?.message).toBe("Unknown tool: nope");
  });

  it("row 20: arguments of the wrong type or out of range give an isError result (HTTP 200) with an actionable message", async () => {
    for (const [args, expected] of [
      [{ text: 5 }, "text: Invalid input: expected string, received number"],
      [{ text: "x".repeat(11) }, "text: Too big"],
      [{ text: "x", times: 9 }, "times: Too big"],
      [{}, "text:"],
    ] as const) {
      const response = await callTool("echo", args);
      expect(response.status).toBe(200);
      const { result, error } = await readMessage(response);
      expect(error).toBeUndefined();
      expect(result?.isError).toBe(true);
      expect(result?.content[0].text).toContain("Invalid arguments for tool echo");
      expect(result?.content[0].text).toContain(expected);
    }
  });

  it("row 21: extra keys and __proto__/constructor/prototype keys give isError; Object.prototype stays unpolluted", async () => {
    const before = prototypeSnapshot();
    const bodies = [
      '{"text":"a","extra":1}',
      '{"text":"a","__proto__":{"polluted":true,"isAdmin":true}}',
      '{"text":"a","constructor":{"prototype":{"polluted":true}}}',
      '{"text":"a","prototype":{"polluted":true}}',
    ];
    for (const body of bodies) {
      const response = await callTool("echo", JSON.parse(body));
      expect(response.status).toBe(200);
      const { result } = await readMessage(response);
      expect(result?.isError).toBe(true);
      expect(result?.content[0].text).toContain("Unrecognized key");
    }
    expect(({} as Json).polluted).toBeUndefined();
    expect(({} as Json).isAdmin).toBeUndefined();
    expect(prototypeSnapshot()).toBe(before);
  });

  it("row 22: unknown extra fields in the envelope are ignored", async () => {
    const body = { jsonrpc: "2.0", id: "x22", method: "tools/list", params: { _meta: meta(), futureField: 1 }, extension: { a: 1 } };
    const response = await post(body, standardHeaders("tools/list"));
    expect(response.status).toBe(200);
    const message = await readMessage(response);
    expect(message.id).toBe("x22");
    expect(message.result?.tools).toBeDefined();
  });

  it("row 23: a throwing handler gives isError with 'Reference: <X-Request-Id>' and no detail; the detail is logged", async () => {
    const { value: response, entries } = await withLogs(() => callTool("crash", {}));
    expect(response.status).toBe(200);
    const traceId = response.headers.get("x-request-id");
    const { result } = await readMessage(response);
    expect(result).toMatchObject({
      isError: true,
      content: [{ type: "text", text: `Tool crash failed unexpectedly. Reference: ${traceId}` }],
    });
    expect(JSON.stringify(result)).not.toContain("hunter2");
    expect(entries).toContainEqual(
      expect.objectContaining({ traceId, message: "tool handler threw", detail: expect.stringContaining("hunter2") }),
    );
  });

  it("row 24: an internal failure outside a tool (a resource read that throws) gets -32603 with HTTP 500 and a generic message", async () => {
    const { value: response } = await withLogs(() => server.send("resources/read", { uri: "test://broken" }, { id: 24 }));
    const message = await expectError(response, 500, -32603, 24);
    expect(message.error).toEqual({ code: -32603, message: "Internal error" });
  });

  it("row 25: structuredContent that does not match outputSchema gets -32603 (HTTP 500, a server bug) and is logged", async () => {
    const { value: response, entries } = await withLogs(() => callTool("lies", {}, 25));
    const message = await expectError(response, 500, -32603, 25);
    expect(message.error).toEqual({ code: -32603, message: "Internal error" });
    expect(entries).toContainEqual(
      expect.objectContaining({ level: "error", message: "structuredContent does not match outputSchema", tool: "lies" }),
    );
  });

  it("row 26: a client closing the SSE response mid-call cancels the call: the handler sees an aborted signal", async () => {
    const response = await server.send("tools/call", { name: "slow", arguments: {} }, { id: "row-26", metaExtra: { progressToken: 1 } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    const deadline = Date.now() + 2_000;
    while (!cancelled.includes("row-26") && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(cancelled).toContain("row-26");
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Authorization (rows 27-30), with a local issuer
// ---------------------------------------------------------------------------------------------------------------

const METADATA = "http://localhost:8787/.well-known/oauth-protected-resource/mcp";
let issuer: Awaited<ReturnType<typeof localIssuer>>;
beforeAll(async () => {
  issuer = await localIssuer();
});
const token = (claims: { sub?: string; aud?: string; exp?: number; scope?: string } = {}) => issuer.token(claims);
const adminOnly = defineTool({
  name: "admin_report",
  description: "Needs the admin scope.",
  input: z.strictObject({}),
  scopes: ["notes:admin"],
  handler: () => ({ content: [text("secret report")] }),
});
const authed = () => testServer({ tools: [...exampleTools, adminOnly, askingTool("confirm", false)] }, issuer.vars);
const bearer = (jwt: string) => ({ authorization: `Bearer ${jwt}` });

describe("authorization", () => {
  it("row 27: auth on, no token: 401 with WWW-Authenticate: Bearer resource_metadata=.../.well-known/oauth-protected-resource/mcp and the scopes to ask for", async () => {
    const response = await authed().send("tools/list");
    expect(response.headers.get("www-authenticate")).toBe(`Bearer scope="notes:admin", resource_metadata="${METADATA}"`);
    await expectError(response, 401, -32600, null);
  });

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

  it("row 30: a valid token missing the tool's scope gets 403 insufficient_scope with scope and resource_metadata", async () => {
    const response = await authed().send(
      "tools/call",
      { name: "admin_report", arguments: {} },
      { id: 30, headers: bearer(await token({ scope: "notes:read" })) },
    );
    const challenge = response.headers.get("www-authenticate") ?? "";
    expect(challenge).toContain('error="insufficient_scope"');
    expect(challenge).toContain('scope="notes:admin"');
    expect(challenge).toContain(`resource_metadata="${METADATA}"`);
    await expectError(response, 403, -32600, 30);
  });
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
  const bind = options.bind ?? { method: "tools/call", name: "confirm", args: await digestJson({}), principal: "anonymous" };
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

  it("row 32: an unknown kid (reason kid), a wrong version prefix, bad base64url or an oversize token (reason malformed, no crypto) get -32602", async () => {
    const state = await firstRound();
    const [, kid, payload, mac] = state.split(".") as [string, string, string, string];
    await expectRejected(() => retry(`v1.retired.${payload}.${mac}`), "kid");
    await expectRejected(() => retry(`v2.${kid}.${payload}.${mac}`), "malformed");
    await expectRejected(() => retry(`v1.${kid}.${payload}.${mac.slice(0, -1)}!`), "malformed");
    await expectRejected(() => retry(`v1.${kid}.${payload}=.${mac}`), "malformed");

    // The reference's 4 KB cap, set through STATE_MAX_BYTES (default 16 KiB): over it, not a single MAC is checked.
    const capped = testServer(definition, { STATE_MAX_BYTES: "4096" });
    const oversize = `v1.${kid}.${"A".repeat(4_096)}.${mac}`;
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

  it("row 34: a state token from user A presented by user B gets -32602 (reason bind); the error names no identity", async () => {
    const secured = authed();
    const alice = bearer(await token({ sub: "alice" }));
    const state = await firstRound({ target: secured, headers: alice });
    const lines = await expectRejected(async () => retry(state, { target: secured, headers: bearer(await token({ sub: "bob" })) }), "bind");
    expect(lines.join("\n")).not.toContain("alice");
    await expectAccepted(await retry(state, { target: secured, headers: alice }));
  });

  it("row 35: a state token minted for tool X or arguments D, replayed on tool Y or other arguments, gets -32602 (reason bind)", async () => {
    const state = await firstRound({ args: { item: "a" } });
    await expectRejected(() => retry(state, { args: { item: "b" } }), "bind");
    await expectRejected(() => retry(state, { args: {} }), "bind");
    await expectRejected(() => retry(state, { name: "confirm_once", args: { item: "a" } }), "bind");
    await expectRejected(() => server.send("tools/call", { name: "echo", arguments: { text: "a" }, requestState: state }), "bind");
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
    await expectRejected(async () => retry(state, { target: secured, headers: bearer(await token({ sub: "mallory" })) }), "bind");
    await expectRejected(async () => retry(await firstRound(), { name: "confirm_once" }), "bind");
    await expectRejected(async () => retry(await handMinted({ bind: {} })), "bind");
  });

  it("row 38: production without STATE_KEYS, or with a key under 32 bytes, fails closed: /mcp 503 generic, /health 503 {status:error, config:invalid}", async () => {
    for (const vars of [
      { MCP_ENV: "production", STATE_KEYS: "" },
      { MCP_ENV: "production", STATE_KEYS: `k1:${btoa("only sixteen byte")}` },
    ]) {
      const unconfigured = testServer(definition, vars);
      const { value: response, lines } = await withLogs(() => unconfigured.send("server/discover", {}, { id: 38 }));
      expect(await response.clone().json()).toEqual({
        jsonrpc: "2.0",
        error: { code: -32603, message: "Service unavailable: server configuration is invalid" },
      });
      await expectError(response, 503, -32603, null);
      expect(lines.join("\n")).not.toContain(btoa("only sixteen byte"));
      const health = await unconfigured.fetch(new Request("http://localhost:8787/health"));
      expect(health.status).toBe(503);
      expect(await health.json()).toEqual({ status: "error", config: "invalid" });
    }
  });

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

const trigger = defineTool({
  name: "trigger",
  description: "Publishes a change.",
  input: z.strictObject({ what: z.enum(["tools", "resources"]) }),
  async handler({ what }, ctx) {
    if (what === "tools") await ctx.publish.toolsListChanged();
    else await ctx.publish.resourcesListChanged();
    return { content: [text("published")] };
  },
});
const hubDefinition = {
  tools: [trigger],
  prompts: [definePrompt({ name: "p", description: "A prompt.", get: () => ({ messages: [] }) })],
  resources: [defineResource({ uri: "test://r", name: "r", read: () => [{ uri: "test://r", text: "r" }] })],
};
const hubServer = testServer(hubDefinition, { LISTEN_KEEPALIVE_MS: "60000" });
const subscription = (id: string | number) => ({ "io.modelcontextprotocol/subscriptionId": id });
const readers: ReturnType<typeof sseReader>[] = [];
afterEach(async () => {
  await Promise.all(readers.splice(0).map((reader) => reader.cancel()));
});

async function listen(notifications: Json, id: string | number, target: Target = hubServer) {
  const response = await target.send("subscriptions/listen", { notifications }, { id });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/event-stream");
  const reader = sseReader(response);
  readers.push(reader);
  return reader;
}
const count = (hub: string) => env.SUBSCRIPTIONS.getByName(hub).count();
/** Waits until the hubs hold `expected` listeners (sockets close asynchronously after a stream is cancelled). */
async function settle(hubs: string[], expected = 0) {
  const deadline = Date.now() + 3_000;
  while (Date.now() < deadline) {
    if ((await Promise.all(hubs.map(count))).every((n) => n === expected)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(await Promise.all(hubs.map(count))).toEqual(hubs.map(() => expected));
}

describe("subscriptions/listen", () => {
  it("row 40: listen flushes its headers at once, and the first message is the acknowledgement carrying subscriptionId = the request id", async () => {
    const reader = await listen({ toolsListChanged: true }, "row-40");
    expect(await reader.frame()).toEqual({ comment: "listening" });
    expect(await reader.message()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { _meta: subscription("row-40"), notifications: { toolsListChanged: true } },
    });
  });

  it("row 41: types the server cannot deliver are dropped from the acknowledgement and never sent; over 64 URIs or 12,000 bytes of filter gets -32602", async () => {
    const toolsOnly = testServer({ tools: [trigger] });
    const reader = await listen(
      { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, madeUp: true },
      "row-41",
      toolsOnly,
    );
    expect(await reader.message()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { _meta: subscription("row-41"), notifications: { toolsListChanged: true } },
    });
    await createPublisher(env.SUBSCRIPTIONS, "anonymous", 4).resourcesListChanged();
    await createPublisher(env.SUBSCRIPTIONS, "anonymous", 4).promptsListChanged();
    expect(await reader.message(300)).toBe("timeout");

    const tooMany = { resourceSubscriptions: Array.from({ length: 65 }, (_, i) => `test://r/${i}`) };
    const tooBig = { resourceSubscriptions: Array.from({ length: 40 }, (_, i) => `test://r/${i}/${"x".repeat(400)}`) };
    const tooLong = { resourceSubscriptions: [`test://r/${"x".repeat(2_100)}`] };
    for (const [index, notifications] of [tooMany, tooBig, tooLong].entries()) {
      const response = await hubServer.send("subscriptions/listen", { notifications }, { id: 410 + index });
      expect(response.headers.get("content-type")).toContain("application/json");
      await expectError(response, 200, -32602, 410 + index);
    }
  });

  it("row 42: an idle stream gets ': keepalive' comments at the configured interval (default 20 s, within 15-25 s)", async () => {
    const defaults = parseConfig({ MCP_ENV: "development" });
    expect(defaults.ok && defaults.config.listen.keepAliveMs).toBe(20_000);
    const quick = testServer(hubDefinition, { LISTEN_KEEPALIVE_MS: "100" });
    const reader = await listen({ toolsListChanged: true }, "row-42", quick);
    expect(await reader.frame()).toEqual({ comment: "listening" });
    await reader.message();
    expect(await reader.frame(1_000)).toEqual({ comment: "keepalive" });
    expect(await reader.frame(1_000)).toEqual({ comment: "keepalive" });
  });

  // Row 44 runs before row 43 on purpose: in local workerd, once both hubs have answered an upgrade with 429 (the
  // cap row), the next abortAllDurableObjects() does not deliver the close event to that hub's next listener.
  it("row 44: when the hub is evicted mid-stream the stream ends without a completion result, and a new listen works", async () => {
    const reader = await listen({ toolsListChanged: true }, "row-44");
    await reader.message();
    await abortAllDurableObjects();
    expect(await reader.message(2_000)).toBe("end");
    const again = await listen({ toolsListChanged: true }, "row-44-again");
    expect(await again.message()).toMatchObject({
      method: "notifications/subscriptions/acknowledged",
      params: { _meta: subscription("row-44-again") },
    });
    await hubServer.send("tools/call", { name: "trigger", arguments: { what: "tools" } });
    expect(await again.message()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
      params: { _meta: subscription("row-44-again") },
    });
  });

  it("row 43: at the subscriber cap, the new listener gets an in-band -32603 'Subscription limit reached' before any acknowledgement", async () => {
    const hubs = [principalHubName("anonymous"), globalHubName(0)];
    await settle(hubs);
    const capped = testServer(hubDefinition, { LISTEN_MAX_PER_HUB: "1", LISTEN_GLOBAL_SHARDS: "1" });
    const first = await listen({ toolsListChanged: true }, "row-43-a", capped);
    expect(await first.message()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
    const refused = await listen({ toolsListChanged: true }, "row-43-b", capped);
    expect(await refused.message()).toEqual({
      jsonrpc: "2.0",
      id: "row-43-b",
      error: { code: -32603, message: "Subscription limit reached" },
    });
    expect(await refused.message()).toBe("end");
  });

  it("row 45: at the lifetime cap the server sends {resultType: complete, _meta: {subscriptionId}} and then closes", async () => {
    const shortLived = testServer(hubDefinition, { LISTEN_MAX_LIFETIME_MS: "300" });
    const reader = await listen({ toolsListChanged: true }, "row-45", shortLived);
    await reader.message();
    expect(await reader.message(2_000)).toEqual({
      jsonrpc: "2.0",
      id: "row-45",
      result: {
        resultType: "complete",
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "test-server", version: "1.0.0" }, ...subscription("row-45") },
      },
    });
    expect(await reader.message(1_000)).toBe("end");
  });

  it("row 46: a notification about a user-private resource reaches only listeners of the same principal", async () => {
    const reader = await listen({ resourceSubscriptions: ["note://private"], resourcesListChanged: true }, "row-46");
    await reader.message();
    await createPublisher(env.SUBSCRIPTIONS, "mallory", 4).resourceUpdated("note://private");
    await createPublisher(env.SUBSCRIPTIONS, "mallory", 4).resourcesListChanged();
    expect(await reader.message(300)).toBe("timeout");
    expect(
      await env.SUBSCRIPTIONS.getByName(principalHubName("anonymous")).publish({
        type: "resource_updated",
        uri: "note://private",
        principal: "mallory",
      }),
    ).toBe(0);
    await createPublisher(env.SUBSCRIPTIONS, "anonymous", 4).resourceUpdated("note://private/n_1");
    expect(await reader.message()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { uri: "note://private/n_1", _meta: subscription("row-46") },
    });
  });

  it("row 47: a write to a closed stream is swallowed, the subscriber is removed, and other subscribers are unaffected", async () => {
    const hub = principalHubName("anonymous");
    const before = await count(hub);
    const gone = await listen({ toolsListChanged: true }, "row-47-gone");
    const stays = await listen({ toolsListChanged: true }, "row-47-stays");
    await Promise.all([gone.message(), stays.message()]);
    await gone.cancel();
    // Published at once, while the closed stream's sockets may still be open in the hubs.
    await createPublisher(env.SUBSCRIPTIONS, "anonymous", 4).toolsListChanged();
    expect(await stays.message()).toMatchObject({
      method: "notifications/tools/list_changed",
      params: { _meta: subscription("row-47-stays") },
    });
    await settle([hub], before + 1);
    await createPublisher(env.SUBSCRIPTIONS, "anonymous", 4).toolsListChanged();
    expect(await stays.message()).toMatchObject({ method: "notifications/tools/list_changed" });
  });
});

describe("health", () => {
  it("row 48: GET /health answers 200 {status: ok} quickly, under load, without touching storage or showing config", async () => {
    const started = Date.now();
    const responses = await Promise.all(Array.from({ length: 50 }, () => exports.default.fetch("http://localhost:8787/health")));
    expect(responses.map((response) => response.status)).toEqual(responses.map(() => 200));
    for (const response of responses) expect(await response.json()).toEqual({ status: "ok" });
    expect(Date.now() - started).toBeLessThan(2_000);

    // Every storage binding throws when touched: /health still answers.
    const untouchable = new Proxy(
      {},
      {
        get: () => {
          throw new Error("storage touched");
        },
      },
    );
    const bindings = { NOTEBOOKS: untouchable, REPLAY_GUARD: untouchable, SUBSCRIPTIONS: untouchable, LEGACY_SESSIONS: untouchable };
    const noStorage = testServer(definition, bindings as unknown as Record<string, string>);
    const health = await noStorage.fetch(new Request("http://localhost:8787/health"));
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
  });
});
