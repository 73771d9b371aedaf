/**
 * The `id` of a JSON-RPC error the server answers with, refusal by refusal (src/worker/router.ts, src/http/,
 * src/wire/messages.ts). A refusal made before the request's id is read (every check before the body, and a body
 * that cannot be read) carries no `id`: MCP's schema makes an error's `id` optional and never null (`id?: RequestId`,
 * 2025-11-25 and 2026-07-28), where JSON-RPC 2.0 alone would write `"id": null`. Once the body is read, every
 * refusal carries the request's id, so a client can tell which of its requests it answers.
 */

import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { FIXTURE } from "../helpers/fixture";
import { localIssuer } from "../helpers/issuer";
import { fixture, meta, post, readMessage, standardHeaders, testServer, URL_MCP } from "../helpers/rpc";
import { expectError, malformation, withLogs } from "../helpers/wire";

const discover = (id: string | number = 1) => ({ jsonrpc: "2.0", id, method: "server/discover", params: { _meta: meta() } });
const headers = standardHeaders("server/discover");
/** TIGHT_LIMITER (test/wrangler.toml) allows 3 requests per caller per 60 s; each use below has its own address. */
const TIGHT = (env as unknown as Record<string, string>).TIGHT_LIMITER!;

let issuerVars: Record<string, string>;
beforeAll(async () => {
  issuerVars = (await localIssuer()).vars;
});

/** A refused answer's status and code, and that it is a well-formed error without an `id` member at all. */
async function expectRefusedWithoutId(response: Response, status: number, code: number, what: string): Promise<void> {
  const message = await readMessage(response.clone());
  expect(malformation(message), what).toBeUndefined();
  expect(message, what).not.toHaveProperty("id");
  await expectError(response, status, code, null);
}

/** The 429 of a caller past TIGHT_LIMITER's 3 requests, from `address`. */
async function overTheLimit(server: ReturnType<typeof testServer>, address: string): Promise<Response> {
  const from = { ...headers, "cf-connecting-ip": address };
  for (let i = 0; i < 3; i++) await (await server.post(discover(), from)).body?.cancel();
  return server.post(discover(), from);
}

describe("a refusal made before the request's id is read", () => {
  it("carries a JSON-RPC error without an id, never a null one: configuration, Host, Origin, Content-Type, Accept", async () => {
    const unconfigured = testServer({}, { MCP_ENV: "production", STATE_KEYS: "" });
    // The configuration problem is logged as an error, once per refused request: captured here, where it is expected.
    const { value: refused, entries } = await withLogs(() => unconfigured.post(discover(7), headers));
    await expectRefusedWithoutId(refused, 503, -32603, "configuration invalid");
    expect(entries).toMatchObject([{ level: "error", message: "configuration invalid" }]);
    await expectRefusedWithoutId(await post(discover(7), { ...headers, host: "evil.example" }), 403, -32600, "Host");
    await expectRefusedWithoutId(await post(discover(7), { ...headers, origin: "https://evil.example" }), 403, -32600, "Origin");
    await expectRefusedWithoutId(await post(discover(7), { ...headers, origin: "null" }), 403, -32600, "Origin null");
    await expectRefusedWithoutId(await post(discover(7), { ...headers, "content-type": "text/plain" }), 415, -32600, "Content-Type");
    await expectRefusedWithoutId(await post(discover(7), { ...headers, accept: "application/json" }), 406, -32600, "Accept");
  });

  it("carries no id for authorization: no token (401), an invalid one (401), a token in the URL (400)", async () => {
    const protectedServer = testServer(FIXTURE, issuerVars);
    await expectRefusedWithoutId(await protectedServer.post(discover(7), headers), 401, -32600, "no token");
    const forged = { ...headers, authorization: "Bearer not.a.token" };
    await expectRefusedWithoutId(await protectedServer.post(discover(7), forged), 401, -32600, "invalid token");
    const inUrl = new Request(`${URL_MCP}?access_token=secret`, { method: "POST", headers, body: JSON.stringify(discover(7)) });
    await expectRefusedWithoutId(await protectedServer.fetch(inUrl), 400, -32600, "token in the URL");
  });

  it("carries no id for the rate limit, in either error shape (-32600, and SEP-3304's -32023)", async () => {
    const limited = testServer({}, { RATE_LIMITER: TIGHT });
    await expectRefusedWithoutId(await overTheLimit(limited, "203.0.113.61"), 429, -32600, "rate limit");
    const drafted = testServer({ rateLimitError: "sep-3304" }, { RATE_LIMITER: TIGHT });
    await expectRefusedWithoutId(await overTheLimit(drafted, "203.0.113.62"), 429, -32023, "rate limit, SEP-3304");
  });

  it("carries no id for a body that cannot be read: too large (413), not JSON, too deep, not UTF-8 (-32700)", async () => {
    const large = JSON.stringify({ ...discover(7), padding: "x".repeat(1_100_000) });
    await expectRefusedWithoutId(await post(large, { ...headers, "content-length": String(large.length) }), 413, -32600, "declared size");
    const chunked = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(large));
        controller.close();
      },
    });
    await expectRefusedWithoutId(await post(chunked, headers, { duplex: "half" } as RequestInit), 413, -32600, "read size");
    await expectRefusedWithoutId(await post('{"jsonrpc":"2.0","id":7,', headers), 400, -32700, "not JSON");
    const deep = `{"jsonrpc":"2.0","id":7,"method":"server/discover","params":${"[".repeat(100)}${"]".repeat(100)}}`;
    await expectRefusedWithoutId(await post(deep, headers), 400, -32700, "too deep");
    const latin1 = new Uint8Array([
      ...new TextEncoder().encode('{"jsonrpc":"2.0","id":7,"method":"a'),
      0xff,
      ...new TextEncoder().encode('"}'),
    ]);
    await expectRefusedWithoutId(await post(latin1, headers), 400, -32700, "not UTF-8");
  });

  it("carries no id for a body whose id is not one (null, a fraction, a string over 1,024 bytes), nor for a method the path does not serve", async () => {
    await expectRefusedWithoutId(await post({ ...discover(), id: null }, headers), 400, -32600, "id null");
    await expectRefusedWithoutId(await post({ ...discover(), id: 1.5 }, headers), 400, -32600, "id 1.5");
    await expectRefusedWithoutId(await post({ ...discover(), id: "x".repeat(100_000) }, headers), 400, -32600, "id of 100 KB");
    await expectRefusedWithoutId(await fixture.fetch(new Request(URL_MCP, { method: "PUT" })), 405, -32600, "PUT");
    await expectRefusedWithoutId(
      await fixture.fetch(new Request(URL_MCP, { method: "GET", headers: { accept: "text/event-stream" } })),
      405,
      -32600,
      "GET without a session",
    );
    const preflight = new Request(URL_MCP, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example", "access-control-request-method": "POST" },
    });
    await expectRefusedWithoutId(await fixture.fetch(preflight), 403, -32600, "preflight");
  });
});

describe("a refusal made once the body is read", () => {
  it("carries the request's id, for an MCP-Protocol-Version header too long or wrongly encoded as well", async () => {
    for (const version of ["x".repeat(2_000), "=?base64?SGVs!!!bG8=?="]) {
      const response = await post(discover("the-request"), { ...headers, "mcp-protocol-version": version });
      const message = await expectError(response, 400, -32020, "the-request");
      expect(malformation(message)).toBeUndefined();
    }
  });

  it("carries the request's id for a malformed message and for a header that does not mirror the body", async () => {
    await expectError(await post({ ...discover(), jsonrpc: "1.0", id: 41 }, headers), 400, -32600, 41);
    await expectError(await post(discover(42), { ...headers, "mcp-method": "tools/list" }), 400, -32020, 42);
  });
});
