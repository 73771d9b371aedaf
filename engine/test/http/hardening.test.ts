import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { defineTool, type LimitOptions, text, validateServer } from "../../src";
import { toJsonSchema } from "../../src/ask/schema";
import { parseConfig } from "../../src/config/config";
import { headerBindings } from "../../src/http/param-headers";
import { counted, runs } from "../helpers/fixture";
import { countingLimiter } from "../helpers/limiter";
import { fixture, readMessage, send, testServer } from "../helpers/rpc";
import { expectError, withLogs } from "../helpers/wire";

describe("CORS", () => {
  const preflight = (origin: string, headers: string) =>
    fixture.fetch("http://localhost:8787/mcp", {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": headers },
    });

  it("answers a preflight from an allowed origin before any authorization, allowing the MCP headers", async () => {
    const response = await preflight(
      "http://localhost:6274",
      "Authorization, Content-Type, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-Region, X-Evil",
    );
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("http://localhost:6274");
    expect(response.headers.get("access-control-allow-methods")).toBe("POST, GET, DELETE, OPTIONS");
    expect(response.headers.get("access-control-allow-headers")).toBe(
      "authorization, content-type, mcp-protocol-version, mcp-method, mcp-name, mcp-param-region",
    );
  });

  it("refuses a preflight from an origin the Origin check would refuse", async () => {
    const response = await preflight("https://evil.example", "content-type");
    expect(response.status).toBe(403);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("adds CORS headers to real responses for allowed origins only, exposing the headers clients read", async () => {
    const allowed = await send("tools/list", {}, { headers: { origin: "http://localhost:6274" } });
    expect(allowed.headers.get("access-control-allow-origin")).toBe("http://localhost:6274");
    expect(allowed.headers.get("access-control-expose-headers")).toContain("Mcp-Session-Id");
    const sameOrigin = await send("tools/list");
    expect(sameOrigin.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("uses ALLOWED_ORIGINS for deployed browser clients", async () => {
    const production = testServer({}, { MCP_ENV: "production", ALLOWED_ORIGINS: "https://app.example" });
    const ok = await production.send("server/discover", {}, { headers: { origin: "https://app.example", host: "mcp.example" } });
    expect(ok.status).toBe(200);
    const loopback = await production.send("server/discover", {}, { headers: { origin: "http://localhost:3000", host: "mcp.example" } });
    expect(loopback.status).toBe(403);
  });
});

describe("header-bound arguments (x-mcp-header)", () => {
  const regional = defineTool({
    name: "regional",
    description: "Has header-bound arguments.",
    input: z.strictObject({
      region: z.string().check(z.meta({ "x-mcp-header": "Region" })),
      shard: z.optional(z.int().check(z.meta({ "x-mcp-header": "Shard" }))),
      nested: z.optional(z.object({ dry: z.boolean().check(z.meta({ "x-mcp-header": "Dry-Run" })) })),
    }),
    handler: ({ region }) => ({ content: [text(`region ${region}`)] }),
  });
  const server = testServer({ tools: [regional] });
  const callWith = (args: object, headers: Record<string, string>) =>
    server.send("tools/call", { name: "regional", arguments: args }, { headers });

  it("publishes the annotation in the input schema", async () => {
    const { result } = await readMessage(await server.send("tools/list"));
    expect(result?.tools[0].inputSchema.properties.region["x-mcp-header"]).toBe("Region");
  });

  it("accepts matching headers, including base64-encoded, numeric and nested ones", async () => {
    const cases: [object, Record<string, string>][] = [
      [{ region: "eu-west" }, { "mcp-param-region": "eu-west" }],
      [{ region: "Zürich" }, { "mcp-param-region": `=?base64?${btoa(String.fromCharCode(...new TextEncoder().encode("Zürich")))}?=` }],
      [
        { region: "x", shard: 7 },
        { "mcp-param-region": "x", "mcp-param-shard": "7" },
      ],
      [
        { region: "x", nested: { dry: true } },
        { "mcp-param-region": "x", "mcp-param-dry-run": "true" },
      ],
    ];
    for (const [args, headers] of cases) {
      const response = await callWith(args, headers);
      expect(response.status).toBe(200);
      expect((await readMessage(response)).result?.content[0].text).toMatch(/^region /);
    }
  });

  it("refuses a missing or mismatching Mcp-Param header with 400 and -32020", async () => {
    const cases: [object, Record<string, string>][] = [
      [{ region: "eu" }, {}],
      [{ region: "eu" }, { "mcp-param-region": "us" }],
      [
        { region: "x", shard: 7 },
        { "mcp-param-region": "x", "mcp-param-shard": "07x" },
      ],
      [
        { region: "x", nested: { dry: true } },
        { "mcp-param-region": "x", "mcp-param-dry-run": "TRUE" },
      ],
      [{ region: "Hello" }, { "mcp-param-region": "=?base64?SGVsbG8?=" }],
    ];
    for (const [args, headers] of cases) {
      const response = await callWith(args, headers);
      expect(response.status).toBe(400);
      expect((await readMessage(response)).error?.code).toBe(-32020);
    }
  });

  it("compares integer headers numerically: 42.0, 4.2e1 and 042 equal 42, 42.5 and 0x2A do not", async () => {
    for (const header of ["42", "42.0", "4.2e1", "042", "-0"]) {
      const shard = header === "-0" ? 0 : 42;
      const response = await callWith({ region: "x", shard }, { "mcp-param-region": "x", "mcp-param-shard": header });
      expect([header, response.status]).toEqual([header, 200]);
    }
    for (const header of ["42.5", "0x2A", "42abc", "", "Infinity", "4 2"]) {
      const response = await callWith({ region: "x", shard: 42 }, { "mcp-param-region": "x", "mcp-param-shard": header });
      expect([header, response.status, (await readMessage(response)).error?.code]).toEqual([header, 400, -32020]);
    }
  });

  it("expects no header for an absent argument", async () => {
    expect((await callWith({ region: "x" }, { "mcp-param-region": "x" })).status).toBe(200);
  });

  it("refuses invalid declarations when the server is validated (test/app/declarations.test.ts does it for src/)", () => {
    const schema = (shape: z.ZodMiniObject) => toJsonSchema(shape, "input");
    const bad = [
      z.object({ a: z.number().check(z.meta({ "x-mcp-header": "A" })) }),
      z.object({ a: z.string().check(z.meta({ "x-mcp-header": "A" })), b: z.string().check(z.meta({ "x-mcp-header": "a" })) }),
      z.object({ a: z.array(z.string().check(z.meta({ "x-mcp-header": "A" }))) }),
      z.object({ a: z.string().check(z.meta({ "x-mcp-header": "bad header" })) }),
    ];
    for (const shape of bad) expect(() => headerBindings("t", schema(shape))).toThrow(/x-mcp-header/);
    const tools = [defineTool({ name: "t", description: "t", input: bad[0]!, handler: () => ({ content: [] }) })];
    expect(() => validateServer({ name: "t", version: "1", tools })).toThrow(/x-mcp-header/);
  });
});

describe("rate limiting", () => {
  /**
   * A limiter that allows 3 requests per caller, of this file's own (helpers/limiter.ts: no window that ends mid-test);
   * each test uses its own client IP.
   */
  const limiter = countingLimiter(3) as unknown as string;
  const tight = (limits: LimitOptions = {}) => testServer({ tools: [counted], limits }, { RATE_LIMITER: limiter });
  const batchOf = (size: number) =>
    Array.from({ length: size }, (_, i) => ({
      jsonrpc: "2.0",
      id: i + 1,
      method: "tools/call",
      params: { name: "counted", arguments: {} },
    }));
  const legacyHeaders = (ip: string) => ({
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "cf-connecting-ip": ip,
  });

  it("answers 429 with Retry-After once a caller passes the limit", async () => {
    const limited = tight();
    const statuses = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await limited.send("server/discover", {}, { headers: { "cf-connecting-ip": "203.0.113.9" } })).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const other = await limited.send("server/discover", {}, { headers: { "cf-connecting-ip": "203.0.113.10" } });
    expect(other.status).toBe(200);
  });

  it("counts an IPv6 client by its /64: a second address of the network is refused once the first passed the limit", async () => {
    const limited = tight();
    const statuses = [];
    for (const address of ["2001:db8:7:9::1", "2001:db8:7:9::2", "2001:db8:7:9:ffff:ffff:ffff:ffff"]) {
      statuses.push((await limited.send("server/discover", {}, { headers: { "cf-connecting-ip": address } })).status);
    }
    const next = await limited.send("server/discover", {}, { headers: { "cf-connecting-ip": "2001:db8:7:9:abcd::2" } });
    expect([...statuses, next.status]).toEqual([200, 200, 200, 429]);
    // The neighbouring /64 is another subscriber.
    expect((await limited.send("server/discover", {}, { headers: { "cf-connecting-ip": "2001:db8:7:a::1" } })).status).toBe(200);
  });

  it("counts an IPv4-mapped IPv6 address as the IPv4 address it maps", async () => {
    const limited = tight();
    for (let i = 0; i < 3; i++) await limited.send("server/discover", {}, { headers: { "cf-connecting-ip": "203.0.113.23" } });
    const mapped = await limited.send("server/discover", {}, { headers: { "cf-connecting-ip": "::ffff:203.0.113.23" } });
    expect(mapped.status).toBe(429);
  });

  it("counts every request in a 2025-03-26 batch: 5 calls against a limit of 3 are refused with 429 and none runs", async () => {
    const before = runs.counted;
    const response = await tight().post(batchOf(5), legacyHeaders("203.0.113.20"));
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("60");
    expect(runs.counted).toBe(before);
  });

  it("serves a batch within the limit and charges each of its requests", async () => {
    const limited = tight();
    const before = runs.counted;
    const response = await limited.post(batchOf(3), legacyHeaders("203.0.113.21"));
    expect(response.status).toBe(200);
    expect(runs.counted).toBe(before + 3);
    const next = await limited.send("server/discover", {}, { headers: { "cf-connecting-ip": "203.0.113.21" } });
    expect(next.status).toBe(429);
  });

  it("names the configured period in Retry-After (limits.rateLimit.periodMs), which must be the binding's 10 or 60 s", async () => {
    const limited = tight({ rateLimit: { periodMs: 10_000 } });
    let response: Response | undefined;
    for (let i = 0; i < 4; i++) response = await limited.send("server/discover", {}, { headers: { "cf-connecting-ip": "203.0.113.22" } });
    expect(response?.status).toBe(429);
    expect(response?.headers.get("retry-after")).toBe("10");
    expect(() => tight({ rateLimit: { periodMs: 30_000 } })).toThrow("limits.rateLimit.periodMs must be 10000 or 60000");
  });
});

describe("secrets fail closed", () => {
  it("answers /mcp with 503 and a generic message, and /health with 503 {status: error, config: invalid}, in production without STATE_KEYS or with a key under 32 bytes", async () => {
    for (const vars of [
      { MCP_ENV: "production", STATE_KEYS: "" },
      { MCP_ENV: "production", STATE_KEYS: `k1:${btoa("only sixteen byte")}` },
    ]) {
      const unconfigured = testServer({}, vars);
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

  it("refuses keys shorter than 32 bytes, duplicate key ids and malformed entries, naming no key material", () => {
    const short = parseConfig({ STATE_KEYS: `k1:${btoa("too short")}` });
    expect(short).toEqual({ ok: false, problems: ['STATE_KEYS key "k1" is shorter than 32 bytes'] });
    const long = btoa("x".repeat(32));
    expect(parseConfig({ STATE_KEYS: `a:${long},a:${long}` })).toMatchObject({ ok: false });
    expect(parseConfig({ STATE_KEYS: long })).toMatchObject({ ok: false });
    expect(JSON.stringify(parseConfig({ STATE_KEYS: "k:secret-value!!" }))).not.toContain("secret-value");
  });

  it("uses the published development key only in development mode", () => {
    expect(parseConfig({ MCP_ENV: "development" })).toMatchObject({ ok: true, config: { developmentKey: true } });
    expect(parseConfig({})).toEqual({ ok: false, problems: ["STATE_KEYS is not set"] });
  });

  it("refuses malformed settings by name", () => {
    const result = parseConfig({
      MCP_ENV: "staging",
      MAX_BODY_BYTES: "lots",
      AUTH_ISSUER: "http://issuer.example",
      // Pinned, as production (the fallback of a malformed MCP_ENV) requires with AUTH_ISSUER: only the malformed ones are named.
      AUTH_AUDIENCE: "https://mcp.example.com/mcp",
      STATE_KEYS: `k:${btoa("x".repeat(32))}`,
    });
    expect(result).toEqual({
      ok: false,
      problems: [
        "MCP_ENV must be one of development, production",
        "AUTH_ISSUER must be an https URL",
        "MAX_BODY_BYTES is no longer read: set the createMcpWorker option limits.request.maxBodyBytes instead",
      ],
    });
  });
});
