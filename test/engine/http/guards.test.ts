import { describe, expect, it } from "vitest";
import { meta, post, readMessage, send, standardHeaders, testServer } from "../../helpers/rpc";

const discover = { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta() } };
const headers = standardHeaders("server/discover");

describe("Origin and Host (DNS-rebinding protection)", () => {
  it("refuses a foreign Origin with 403 and a JSON-RPC error without id", async () => {
    const response = await post(discover, { ...headers, origin: "https://evil.example" });
    expect(response.status).toBe(403);
    const message = await readMessage(response);
    expect(message.error?.code).toBe(-32600);
    expect(message).not.toHaveProperty("id");
  });

  it("refuses Origin: null and unparseable origins with 403", async () => {
    for (const origin of ["null", "not a url", "http://localhost:8787/path"]) {
      expect((await post(discover, { ...headers, origin })).status).toBe(403);
    }
  });

  it("accepts no Origin, the server's own origin, and loopback origins in development", async () => {
    for (const origin of [null, "http://localhost:8787", "http://127.0.0.1:6274", "http://localhost:3000"]) {
      expect((await post(discover, { ...headers, origin })).status).toBe(200);
    }
  });

  it("refuses a foreign Host in development with 403", async () => {
    const response = await post(discover, { ...headers, host: "evil.example.com", origin: "http://evil.example.com" });
    expect(response.status).toBe(403);
  });

  it("accepts loopback Host values", async () => {
    for (const host of ["localhost:8787", "127.0.0.1:8787", "[::1]:8787"]) {
      expect((await post(discover, { ...headers, host })).status).toBe(200);
    }
  });
});

describe("Content-Type and Accept", () => {
  it("refuses a body that is not declared as JSON with 415", async () => {
    expect((await post(discover, { ...headers, "content-type": "text/plain" })).status).toBe(415);
    expect((await post(discover, { ...headers, "content-type": null })).status).toBe(415);
  });

  it("accepts application/json with charset=utf-8", async () => {
    expect((await post(discover, { ...headers, "content-type": "application/json; charset=utf-8" })).status).toBe(200);
  });

  it("refuses an Accept without both application/json and text/event-stream with 406", async () => {
    expect((await post(discover, { ...headers, accept: "application/json" })).status).toBe(406);
    expect((await post(discover, { ...headers, accept: "text/event-stream" })).status).toBe(406);
    expect((await post(discover, { ...headers, accept: "application/json, text/event-stream;q=0" })).status).toBe(406);
  });

  it("accepts */* (clients such as curl)", async () => {
    expect((await post(discover, { ...headers, accept: "*/*" })).status).toBe(200);
  });
});

describe("body limits", () => {
  it("refuses a declared Content-Length over the 1 MiB cap with 413 before reading", async () => {
    const response = await post("{}", { ...headers, "content-length": String(2 * 1024 * 1024) });
    expect(response.status).toBe(413);
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
    const response = await production.post(body, headers, { duplex: "half" } as RequestInit);
    expect(response.status).toBe(413);
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

  it("answers nesting deeper than 64 levels with -32700 instead of crashing", async () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    const response = await post(deep, headers);
    expect(response.status).toBe(400);
    expect((await readMessage(response)).error?.code).toBe(-32700);
  });

  it("answers more than 10,000 object members with -32700 in linear time", async () => {
    const members = Array.from({ length: 20_000 }, (_, i) => `"k${i}":1`).join(",");
    const started = Date.now();
    const response = await post(`{${members}}`, headers);
    expect(response.status).toBe(400);
    expect((await readMessage(response)).error?.code).toBe(-32700);
    expect(Date.now() - started).toBeLessThan(5_000);
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
      const response = await send("tools/list", {}, { headers: { "mcp-method": value } });
      expect(response.status).toBe(400);
      expect((await readMessage(response)).error?.code).toBe(-32020);
    }
  });

  it("refuses a missing or mismatching Mcp-Name on tools/call, naming both values", async () => {
    const missing = await send("tools/call", { name: "echo", arguments: {} }, { headers: { "mcp-name": null } });
    expect(missing.status).toBe(400);
    const wrong = await send("tools/call", { name: "echo", arguments: {} }, { headers: { "mcp-name": "wrong_tool" } });
    expect(wrong.status).toBe(400);
    const message = await readMessage(wrong);
    expect(message.error?.code).toBe(-32020);
    expect(message.error?.message).toContain("'wrong_tool' does not match body value 'echo'");
  });

  it("tolerates whitespace around header values", async () => {
    const response = await send("tools/call", { name: "echo", arguments: {} }, { headers: { "mcp-name": "  echo  " } });
    expect(response.status).toBe(200);
  });

  it("decodes the =?base64?...?= form before comparing", async () => {
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
  });

  it("refuses header values longer than the 1,024-character cap", async () => {
    const response = await send("tools/call", { name: "echo", arguments: {} }, { headers: { "mcp-name": "x".repeat(2000) } });
    expect(response.status).toBe(400);
    expect((await readMessage(response)).error?.code).toBe(-32020);
  });
});
