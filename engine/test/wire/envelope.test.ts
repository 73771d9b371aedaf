import { describe, expect, it } from "vitest";
import { FIXTURE } from "../helpers/fixture";
import { type Json, MODERN, meta, post, readMessage, SERVED_VERSIONS, send, standardHeaders, testServer } from "../helpers/rpc";
import { expectError } from "../helpers/wire";

/** What a 2025-03-26 client sends: no version header. */
const BASE_2025_03_26 = { "content-type": "application/json", accept: "application/json, text/event-stream" };

describe("JSON-RPC envelope", () => {
  it("answers an empty body, a body that is not JSON or is cut short, and invalid UTF-8 with -32700, HTTP 400 and no id", async () => {
    const invalidUtf8 = new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    for (const body of ["", "{not json", '{"jsonrpc":"2.0","id":1,', invalidUtf8]) {
      await expectError(await post(body, standardHeaders("tools/list")), 400, -32700, null);
    }
  });

  it("refuses a batch (JSON array) with -32600 and HTTP 400", async () => {
    const body = [{ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta() } }];
    await expectError(await post(body, standardHeaders("tools/list")), 400, -32600, null);
  });

  it('refuses jsonrpc other than "2.0" or missing, a missing method, and null, object, fractional, array or boolean ids with -32600 and HTTP 400', async () => {
    const request = (fields: Json) =>
      post({ jsonrpc: "2.0", id: 7, method: "tools/list", params: { _meta: meta() }, ...fields }, standardHeaders("tools/list"));
    // The id is echoed when it is a valid one, whatever else is wrong.
    await expectError(await request({ jsonrpc: "1.0" }), 400, -32600, 7);
    await expectError(await request({ jsonrpc: undefined }), 400, -32600, 7);
    await expectError(await post({ jsonrpc: "2.0", id: 3 }, standardHeaders("tools/list")), 400, -32600, 3);
    await expectError(await post({ jsonrpc: "2.0", id: 8, params: { _meta: meta() } }, standardHeaders("tools/list")), 400, -32600, 8);
    for (const id of [null, { a: 1 }, 1.5, [1], true]) await expectError(await request({ id }), 400, -32600, null);
  });

  it("refuses a string id over 1,024 bytes of UTF-8 with -32600, HTTP 400 and no id (never echoing it), in both eras and in a batch; 1,024 bytes pass", async () => {
    const request = (id: string, version = MODERN) =>
      post(
        { jsonrpc: "2.0", id, method: "tools/list", params: version === MODERN ? { _meta: meta() } : {} },
        version === MODERN ? standardHeaders("tools/list") : { ...standardHeaders("tools/list"), "mcp-protocol-version": version },
      );
    // Counted in bytes as UTF-8: 512 two-byte characters are 1,024 bytes, one more is over.
    for (const id of ["x".repeat(1_024), "é".repeat(512)]) expect((await readMessage(await request(id))).id).toBe(id);
    for (const id of ["x".repeat(1_025), "é".repeat(513), "x".repeat(100_000)]) {
      for (const version of [MODERN, "2025-11-25"]) {
        const message = await expectError(await request(id, version), 400, -32600, null);
        expect(message.error?.message, version).toBe('Invalid Request: "id" must be a string of at most 1024 bytes (UTF-8) or an integer');
      }
    }
    const batch = await post([{ jsonrpc: "2.0", id: "x".repeat(1_025), method: "ping" }], { ...BASE_2025_03_26 });
    expect(await batch.json()).toEqual([
      {
        jsonrpc: "2.0",
        error: { code: -32600, message: 'Invalid Request: "id" must be a string of at most 1024 bytes (UTF-8) or an integer' },
      },
    ]);
  });

  it("refuses a progress token over 1,024 bytes of UTF-8 with -32602, as any malformed _meta", async () => {
    const response = await send("tools/list", {}, { id: 31, metaExtra: { progressToken: "t".repeat(1_025) } });
    const message = await expectError(response, 400, -32602, 31);
    expect(message.error?.message).toContain("progressToken");
  });

  it("refuses a JSON-RPC response or error response sent by the client with -32600 and HTTP 400", async () => {
    const headers = { ...standardHeaders("x"), "mcp-method": null };
    await expectError(await post({ jsonrpc: "2.0", id: 3, result: {} }, headers), 400, -32600, 3);
    await expectError(await post({ jsonrpc: "2.0", id: 4, error: { code: 1, message: "x" } }, headers), 400, -32600, 4);
  });

  it("refuses params that are not an object with -32602 and HTTP 400", async () => {
    const body = { jsonrpc: "2.0", id: 4, method: "tools/list", params: [1, 2] };
    await expectError(await post(body, standardHeaders("tools/list")), 400, -32602, 4);
  });

  it("accepts a notification with 202 and an empty body", async () => {
    const body = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } };
    const response = await post(body, standardHeaders("notifications/cancelled"));
    expect(response.status).toBe(202);
    expect(await response.text()).toBe("");
  });

  it("keeps string ids as strings and ignores unknown envelope fields", async () => {
    const body = {
      jsonrpc: "2.0",
      id: "abc",
      method: "tools/list",
      params: { _meta: meta(), futureField: 1 },
      extra: true,
      extension: { a: 1 },
    };
    const response = await post(body, standardHeaders("tools/list"));
    expect(response.status).toBe(200);
    const message = await readMessage(response);
    expect(message.id).toBe("abc");
    expect(message.result?.tools).toBeDefined();
  });
});

describe("per-request _meta", () => {
  it("answers a request without _meta with -32602, HTTP 400 and the request id", async () => {
    await expectError(await send("server/discover", {}, { rawParams: true, id: 101 }), 400, -32602, 101);
  });

  it("answers _meta without protocolVersion with -32602, not -32020", async () => {
    const params = { _meta: { "io.modelcontextprotocol/clientCapabilities": {} } };
    await expectError(await send("server/discover", params, { rawParams: true, id: 102 }), 400, -32602, 102);
  });

  it("answers _meta without clientCapabilities with -32602", async () => {
    const params = { _meta: { "io.modelcontextprotocol/protocolVersion": MODERN } };
    await expectError(await send("server/discover", params, { rawParams: true, id: 104 }), 400, -32602, 104);
  });

  it("serves a request without clientInfo", async () => {
    const params = { _meta: { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {} } };
    const response = await send("server/discover", params, { rawParams: true });
    expect(response.status).toBe(200);
    expect((await readMessage(response)).result?.supportedVersions).toEqual(SERVED_VERSIONS);
  });

  it("answers an unknown logLevel with -32602", async () => {
    const response = await send("tools/list", {}, { metaExtra: { "io.modelcontextprotocol/logLevel": "loud" } });
    await expectError(response, 400, -32602);
  });

  it("answers a progressToken that is neither string nor integer with -32602", async () => {
    await expectError(await send("tools/list", {}, { metaExtra: { progressToken: { a: 1 } } }), 400, -32602);
  });
});

describe("protocol version", () => {
  it("answers an unsupported version with -32022, HTTP 400, data.supported and data.requested", async () => {
    const response = await send(
      "server/discover",
      {},
      {
        id: 301,
        metaExtra: { "io.modelcontextprotocol/protocolVersion": "v999.0.0" },
        headers: { "mcp-protocol-version": "v999.0.0" },
      },
    );
    const message = await expectError(response, 400, -32022, 301);
    expect(message.error?.data).toEqual({ supported: SERVED_VERSIONS, requested: "v999.0.0" });
  });

  it("answers a request without a 2026-07-28 claim and with an unknown MCP-Protocol-Version header with -32022, not a missing _meta", async () => {
    for (const version of ["1999-01-01", "banana"]) {
      for (const body of [
        { jsonrpc: "2.0", id: 303, method: "tools/list" },
        { jsonrpc: "2.0", id: 303, method: "tools/list", params: { _meta: { progressToken: "p" } } },
        { jsonrpc: "2.0", id: 303, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {} } },
      ]) {
        const response = await post(body, { ...standardHeaders(body.method), "mcp-protocol-version": version });
        const message = await expectError(response, 400, -32022, 303);
        expect(message.error?.data).toEqual({ supported: SERVED_VERSIONS, requested: version });
      }
    }
  });

  it("lists only 2026-07-28 as supported when legacyClients is off", async () => {
    const statelessOnly = testServer({ legacyClients: false });
    expect((await statelessOnly.call("server/discover")).supportedVersions).toEqual([MODERN]);
    const response = await statelessOnly.send(
      "server/discover",
      {},
      { metaExtra: { "io.modelcontextprotocol/protocolVersion": "v999" }, headers: { "mcp-protocol-version": "v999" } },
    );
    expect((await expectError(response, 400, -32022)).error?.data).toEqual({ supported: [MODERN], requested: "v999" });
  });

  it("answers a header version that differs from _meta with -32020 and HTTP 400", async () => {
    const response = await send("server/discover", {}, { id: 302, metaExtra: { "io.modelcontextprotocol/protocolVersion": "v999.0.0" } });
    await expectError(response, 400, -32020, 302);
    await expectError(await send("tools/list", {}, { id: 303, headers: { "mcp-protocol-version": "2026-01-01" } }), 400, -32020, 303);
  });

  it("answers a modern _meta with no MCP-Protocol-Version header with -32020", async () => {
    await expectError(await send("server/discover", {}, { id: 304, headers: { "mcp-protocol-version": null } }), 400, -32020, 304);
  });

  it("treats a 2025 version claimed in _meta as a modern request for an unsupported version (-32022)", async () => {
    const response = await send(
      "tools/list",
      {},
      {
        metaExtra: { "io.modelcontextprotocol/protocolVersion": "2025-11-25" },
        headers: { "mcp-protocol-version": "2025-11-25" },
      },
    );
    const message = await expectError(response, 400, -32022);
    // 2025-11-25 is served, but through initialize: the message says how.
    expect(message.error?.message).toContain("initialize");
  });
});

describe("methods", () => {
  // An unknown method (404, -32601) is row 13 of test/checklist.test.ts.
  for (const method of ["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"]) {
    it(`answers ${method} on the 2026-07-28 path with HTTP 404 and -32601`, async () => {
      await expectError(await send(method, {}, { id: 500 }), 404, -32601, 500);
    });
  }

  it("serves server/discover with versions, capabilities, cache hints and serverInfo", async () => {
    const message = await readMessage(await send("server/discover"));
    expect(message.result).toMatchObject({
      resultType: "complete",
      supportedVersions: SERVED_VERSIONS,
      capabilities: { tools: {}, resources: {}, prompts: {}, completions: {} },
      cacheScope: "public",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: FIXTURE.name, version: FIXTURE.version } },
    });
    expect(Number.isInteger(message.result?.ttlMs)).toBe(true);
    expect(message.result?.instructions).toBe(FIXTURE.instructions);
  });

  it("advertises logging (deprecated in 2026-07-28) only to 2025 clients: in initialize, not in server/discover", async () => {
    expect((await readMessage(await send("server/discover"))).result?.capabilities).not.toHaveProperty("logging");
    const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {} } };
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    expect((await readMessage(await post(initialize, headers))).result?.capabilities).toMatchObject({ logging: {} });
  });

  it("does not assume request ids are unique: the same id twice gets two answers", async () => {
    const first = await readMessage(await send("tools/list", {}, { id: 1 }));
    const second = await readMessage(await send("tools/list", {}, { id: 1 }));
    expect(first.id).toBe(1);
    expect(second.id).toBe(1);
    expect(second.result).toEqual(first.result);
  });
});
