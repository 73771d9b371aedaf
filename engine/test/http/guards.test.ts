import { describe, expect, it } from "vitest";
import { acceptVerdict } from "../../src/http/guards";
import { counted, runs } from "../helpers/fixture";
import { fixture, type Json, meta, post, readMessage, SERVED_VERSIONS, send, standardHeaders, testServer, URL_MCP } from "../helpers/rpc";
import { expectError } from "../helpers/wire";

const discover = { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta() } };
const headers = standardHeaders("server/discover");

const counting = testServer({ tools: [counted] });
const callCounted = { name: "counted", arguments: {} };

describe("Origin and Host (DNS-rebinding protection)", () => {
  it("refuses a foreign Origin with 403 and a JSON-RPC error without id, before any tool code runs", async () => {
    await expectError(await post(discover, { ...headers, origin: "https://evil.example" }), 403, -32600, null);
    const before = runs.counted;
    await expectError(await counting.send("tools/call", callCounted, { headers: { origin: "https://evil.example" } }), 403, -32600, null);
    expect(runs.counted).toBe(before);
  });

  it("refuses Origin: null and unparseable origins with 403", async () => {
    for (const origin of ["null", "not a url", "http://localhost:8787/path", "file://"]) {
      await expectError(await post(discover, { ...headers, origin }), 403, -32600, null);
    }
  });

  it("accepts no Origin (CLI, desktop client), the server's own origin, and loopback origins in development", async () => {
    for (const origin of [null, "http://localhost:8787", "http://127.0.0.1:6274", "http://localhost:3000"]) {
      const response = await post(discover, { ...headers, origin });
      expect(response.status).toBe(200);
      expect((await readMessage(response)).result?.supportedVersions).toEqual(SERVED_VERSIONS);
    }
  });

  it("refuses a foreign Host (DNS rebinding against wrangler dev) in development with 403", async () => {
    for (const host of ["evil.example.com", "evil.example.com:8787"]) {
      await expectError(await post(discover, { ...headers, host }), 403, -32600, null);
    }
    await expectError(await post(discover, { ...headers, host: "evil.example.com", origin: "http://evil.example.com" }), 403, -32600, null);
  });

  it("refuses a foreign Host on the landing page too, which names the server by its origin, and never echoes it", async () => {
    const refused = await fixture.fetch(new Request("http://evil.example.com/", { headers: { host: "evil.example.com" } }));
    expect(refused.status).toBe(403);
    expect(await refused.text()).not.toContain("evil.example.com");
    const served = await fixture.fetch(new Request("http://127.0.0.1:8787/", { headers: { host: "127.0.0.1:8787" } }));
    expect(await served.text()).toContain("http://127.0.0.1:8787/mcp");
  });

  it("accepts any Host in production without ALLOWED_HOSTS (Cloudflare routed it here), and only a listed one with it", async () => {
    const open = testServer({}, { MCP_ENV: "production" });
    for (const host of ["mcp.example", "anything.example:443", "localhost"]) {
      expect((await open.send("server/discover", {}, { headers: { host } })).status).toBe(200);
    }
    const pinned = testServer({}, { MCP_ENV: "production", ALLOWED_HOSTS: "mcp.example" });
    expect((await pinned.send("server/discover", {}, { headers: { host: "mcp.example" } })).status).toBe(200);
    await expectError(await pinned.send("server/discover", {}, { headers: { host: "other.example" } }), 403, -32600, null);
  });

  it("accepts loopback Host values", async () => {
    for (const host of ["localhost:8787", "127.0.0.1:8787", "[::1]:8787"]) {
      expect((await post(discover, { ...headers, host })).status).toBe(200);
    }
  });
});

describe("Content-Type and Accept", () => {
  it("refuses a body that is not declared as JSON, or as JSON in another charset, with 415", async () => {
    for (const type of ["text/plain", null, "application/json; charset=latin1", "application/jsonx"]) {
      await expectError(await post(discover, { ...headers, "content-type": type }), 415, -32600, null);
    }
  });

  it("accepts application/json with charset=utf-8", async () => {
    expect((await post(discover, { ...headers, "content-type": "application/json; charset=utf-8" })).status).toBe(200);
  });

  it("refuses a missing Accept, or one without both application/json and text/event-stream, with 406", async () => {
    for (const accept of ["application/json", "text/event-stream", null, "application/json, text/event-stream;q=0"]) {
      await expectError(await post(discover, { ...headers, accept }), 406, -32600, null);
    }
  });

  it("refuses a wrong Accept or Content-Type on a repeated request as on the first (the verdicts are remembered)", async () => {
    for (let attempt = 0; attempt < 3; attempt++) {
      await expectError(await post(discover, { ...headers, accept: "application/json" }), 406, -32600, null);
      await expectError(await post(discover, { ...headers, accept: "text/event-stream;q=0, application/json" }), 406, -32600, null);
      await expectError(await post(discover, { ...headers, "content-type": "text/plain; charset=utf-8" }), 415, -32600, null);
      expect((await post(discover, { ...headers, accept: "application/json, text/event-stream" })).status).toBe(200);
    }
  });

  it("keeps at most 64 Accept verdicts, and still refuses a wrong Accept once they are all taken", async () => {
    // Distinct values a caller could send, each judged (and the first 64 kept): the cache never grows past its bound.
    for (let n = 0; n < 100; n++) expect(acceptVerdict(`application/json, text/event-stream;x=${n}`)).toBe(true);
    expect(acceptVerdict.size).toBeLessThanOrEqual(64);
    const unseen = "application/json;level=1";
    expect(acceptVerdict(unseen)).toBe(false);
    await expectError(await post(discover, { ...headers, accept: unseen }), 406, -32600, null);
    await expectError(await post(discover, { ...headers, accept: unseen }), 406, -32600, null);
    expect(acceptVerdict.size).toBeLessThanOrEqual(64);
    // A long value is judged, never kept.
    expect(acceptVerdict(`application/json, text/event-stream, ${"x/y, ".repeat(60)}`)).toBe(true);
    expect(acceptVerdict.size).toBeLessThanOrEqual(64);
  });

  it("accepts */* (clients such as curl)", async () => {
    expect((await post(discover, { ...headers, accept: "*/*" })).status).toBe(200);
  });
});

describe("body limits", () => {
  it("refuses a declared Content-Length over the 1 MiB cap with 413 before reading", async () => {
    const request = new Request(URL_MCP, {
      method: "POST",
      headers: { ...headers, "content-length": String(2 * 1024 * 1024) },
      body: "{}",
    });
    await expectError(await testServer({}).fetch(request), 413, -32600, null);
    expect(request.bodyUsed).toBe(false);
    await expectError(await post("{}", { ...headers, "content-length": String(1_048_577) }), 413, -32600, null);
  });

  /** A chunked body of `total` bytes that counts what the server pulled. */
  function countedBody(total: number) {
    const chunk = new TextEncoder().encode(" ".repeat(64 * 1024));
    const counter = { sent: 0 };
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        counter.sent += chunk.byteLength;
        if (counter.sent > total) controller.close();
        else controller.enqueue(chunk);
      },
    });
    return { body, counter };
  }

  it("stops reading a chunked body once it passes the cap and answers 413 (production)", async () => {
    const production = testServer({}, { MCP_ENV: "production" });
    const { body, counter } = countedBody(64 * 1024 * 1024);
    await expectError(await production.post(body, headers, { duplex: "half" } as RequestInit), 413, -32600, null);
    expect(counter.sent).toBeLessThan(2 * 1024 * 1024);
  });

  it("in development, reads a bounded rest of a refused chunked body so wrangler dev can reuse the connection", async () => {
    const { body, counter } = countedBody(64 * 1024 * 1024);
    const response = await post(body, headers, { duplex: "half" } as RequestInit);
    expect(response.status).toBe(413);
    // 1 MiB kept at most, then at most 8 MiB read and dropped, then cancelled.
    expect(counter.sent).toBeGreaterThan(2 * 1024 * 1024);
    expect(counter.sent).toBeLessThan(10 * 1024 * 1024);
    const short = countedBody(3 * 1024 * 1024);
    expect((await post(short.body, headers, { duplex: "half" } as RequestInit)).status).toBe(413);
    expect(short.counter.sent).toBeGreaterThan(3 * 1024 * 1024);
  });

  it("reads and drops the small body of a request refused before its body was read, so the connection stays usable", async () => {
    const fetchRefused = async (size: number) => {
      const request = new Request(URL_MCP, {
        method: "POST",
        headers: { ...headers, "content-type": "text/plain", "content-length": String(size) },
        body: "x".repeat(size),
      });
      const response = await testServer({}).fetch(request);
      expect(response.status).toBe(415);
      return request.bodyUsed;
    };
    // Up to 64 KiB declared: read to its end (workerd closes a keep-alive connection whose body was left unread).
    expect(await fetchRefused(1_000)).toBe(true);
    expect(await fetchRefused(64 * 1024)).toBe(true);
    // Larger: a refused caller never gets the server to read it.
    expect(await fetchRefused(64 * 1024 + 1)).toBe(false);
  });

  it("answers nesting deeper than 64 levels (limits.request.maxJsonDepth) with 400 and -32700 instead of crashing", async () => {
    await expectError(await post("[".repeat(100_000) + "]".repeat(100_000), headers), 400, -32700, null);
    await expectError(await post("[".repeat(65) + "]".repeat(65), headers), 400, -32700, null);
    // 64 levels parse; the value is then refused for what it is (an array on the 2026-07-28 path), not for depth.
    await expectError(await post("[".repeat(64) + "]".repeat(64), headers), 400, -32600, null);
  });

  it("answers more than 10,000 object members (limits.request.maxJsonMembers) with 400 and -32700, even inside the size cap", async () => {
    const members = Array.from({ length: 20_000 }, (_, i) => `"k${i}":1`).join(",");
    await expectError(await post(`{${members}}`, headers), 400, -32700, null);

    const keys = Array.from({ length: 100_000 }, (_, i) => `"${i.toString(36)}":0`).join(",");
    const nested = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"x":{${keys}}}}`;
    expect(nested.length).toBeLessThan(1_048_576);
    await expectError(await post(nested, headers), 400, -32700, null);

    // Exactly 10,000 members (every key counts, the envelope's too) is accepted; one more is not.
    const withMembers = (total: number) => {
      const base = { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta(), pad: {} as Json } };
      const used = JSON.stringify(base).split(":").length - 1;
      for (let i = 0; i < total - used; i++) base.params.pad[`k${i}`] = 0;
      return base;
    };
    expect((await post(withMembers(10_000), headers)).status).toBe(200);
    await expectError(await post(withMembers(10_001), headers), 400, -32700, null);
  });

  it("answers more than 100,000 array elements (limits.request.maxJsonElements) with 400 and -32700, before the body is parsed", async () => {
    // The hostile shape: empty objects, 3 bytes each, that members never count and that cost far more parsed.
    const hostile = `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"a":[${Array(300_000).fill("{}").join(",")}]}}`;
    expect(hostile.length).toBeLessThan(1_048_576);
    const refused = await expectError(await post(hostile, headers), 400, -32700, null);
    expect(refused.error?.message).toBe("Parse error: more than 100000 array elements");
    // A 2025 client's unsolicited answer of that shape is refused the same way, before any session sees it.
    await expectError(
      await post(`{"jsonrpc":"2.0","id":"x","result":{"a":[${Array(300_000).fill("{}").join(",")}]}}`, headers),
      400,
      -32700,
      null,
    );

    // Exactly 100,000 elements, all arrays together (each array's first element, then one per comma), is accepted.
    const withElements = (total: number) => {
      const half = Math.floor(total / 2);
      return {
        jsonrpc: "2.0",
        id: 1,
        method: "server/discover",
        params: { _meta: meta(), a: Array(half).fill(0), b: Array(total - half).fill("x") },
      };
    };
    expect((await post(withElements(100_000), headers)).status).toBe(200);
    await expectError(await post(withElements(100_001), headers), 400, -32700, null);
    // Empty arrays, and whitespace before an element, count right.
    expect(
      (await post({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta(), e: [[], [], []] } }, headers)).status,
    ).toBe(200);
  });

  it("ignores brackets and colons inside strings when measuring depth", async () => {
    const params = { _meta: meta(), note: "[[[[{{{{::::".repeat(1000) };
    const response = await post({ jsonrpc: "2.0", id: 1, method: "server/discover", params }, headers);
    expect(response.status).toBe(200);
  });
});

describe("MCP header mirroring", () => {
  it("refuses a missing Mcp-Method with 400 and -32020", async () => {
    const response = await send("tools/list", {}, { headers: { "mcp-method": null } });
    expect(response.status).toBe(400);
    expect((await readMessage(response)).error?.code).toBe(-32020);
  });

  it("refuses an Mcp-Method that differs from the body, including by case", async () => {
    for (const value of ["prompts/list", "TOOLS/LIST"]) {
      await expectError(await send("tools/list", {}, { id: 161, headers: { "mcp-method": value } }), 400, -32020, 161);
    }
    const before = runs.counted;
    await expectError(
      await counting.send("tools/call", callCounted, { id: 162, headers: { "mcp-method": "tools/list" } }),
      400,
      -32020,
      162,
    );
    expect(runs.counted).toBe(before);
  });

  it("refuses a missing or mismatching Mcp-Name on tools/call, naming both values", async () => {
    const missing = await send("tools/call", { name: "echo", arguments: {} }, { headers: { "mcp-name": null } });
    expect(missing.status).toBe(400);
    const wrong = await send("tools/call", { name: "echo", arguments: {} }, { id: 163, headers: { "mcp-name": "wrong_tool" } });
    const message = await expectError(wrong, 400, -32020, 163);
    expect(message.error?.message).toContain("'wrong_tool' does not match body value 'echo'");
  });

  it("tolerates whitespace around header values", async () => {
    const response = await send("tools/call", { name: "echo", arguments: {} }, { headers: { "mcp-name": "  echo  " } });
    expect(response.status).toBe(200);
  });

  it("decodes the =?base64?...?= form before comparing", async () => {
    const accepted = await counting.send("tools/call", callCounted, { headers: { "mcp-name": `=?base64?${btoa("counted")}?=` } });
    expect(accepted.status).toBe(200);
    expect((await readMessage(accepted)).result?.content).toEqual([{ type: "text", text: "ran" }]);

    const uri = "fixture://values/ÄÖÜ";
    const encoded = `=?base64?${btoa(String.fromCharCode(...new TextEncoder().encode(uri)))}?=`;
    const response = await send("resources/read", { uri }, { headers: { "mcp-name": encoded } });
    expect(response.status).toBe(200);
    expect((await readMessage(response)).error?.code).toBe(-32602); // header accepted; the resource does not exist
  });

  it("refuses a malformed base64 header value with 400 and -32020", async () => {
    for (const value of ["=?base64?SGVs!!!bG8=?=", "=?base64?SGVsbG8?=", "=?base64?SGVsbG8?x=?="]) {
      const response = await send("tools/call", { name: "echo", arguments: {} }, { headers: { "mcp-name": value } });
      expect(response.status).toBe(400);
      expect((await readMessage(response)).error?.code).toBe(-32020);
    }
    // Unpadded, with characters outside the alphabet, decoding to bytes that are not UTF-8, or well-formed but
    // naming another tool: none of them reaches the tool.
    const before = runs.counted;
    const unpadded = btoa("counted").replace(/=+$/, "");
    for (const value of [
      `=?base64?${unpadded}?=`,
      "=?base64?Y29!dW50 ZWQ=?=",
      `=?base64?${btoa("\xff\xfe")}?=`,
      `=?base64?${btoa("crash")}?=`,
    ]) {
      await expectError(await counting.send("tools/call", callCounted, { headers: { "mcp-name": value } }), 400, -32020);
    }
    expect(runs.counted).toBe(before);
  });

  it("refuses header values longer than the 1,024-character cap", async () => {
    const response = await send("tools/call", { name: "echo", arguments: {} }, { headers: { "mcp-name": "x".repeat(2000) } });
    expect(response.status).toBe(400);
    expect((await readMessage(response)).error?.code).toBe(-32020);
  });
});
