/**
 * Which browser pages may call the server (src/config/origins.ts, src/http/guards.ts): the MCP hosts that run in a
 * browser are served in production with the default settings, every other origin is refused by name, and the
 * DNS-rebinding protection (Host check, `Origin: null`, malformed origins, loopback pages in development only)
 * holds whatever the lists say.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseConfig } from "../../src/config/config";
import { KNOWN_HOST_ORIGINS } from "../../src/config/origins";
import { testServer } from "../helpers/rpc";
import { expectError, withLogs } from "../helpers/wire";

/** Production with the default settings: no ALLOWED_ORIGINS, no HOST_ORIGINS. */
const production = testServer({}, { MCP_ENV: "production" });
const discoverFrom = (target: ReturnType<typeof testServer>, origin: string, host = "mcp.example") =>
  target.send("server/discover", {}, { headers: { origin, host } });
const preflightFrom = (target: ReturnType<typeof testServer>, origin: string) =>
  target.fetch(
    new Request("http://mcp.example/mcp", {
      method: "OPTIONS",
      headers: {
        origin,
        host: "mcp.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type, mcp-method",
      },
    }),
  );
const refusal = (origin: string) => `Forbidden: Origin ${JSON.stringify(origin)} is not allowed (ALLOWED_ORIGINS adds an origin)`;

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the MCP hosts that run in a browser", () => {
  it("are served in production with the default settings, with CORS headers and an answered preflight", async () => {
    expect(KNOWN_HOST_ORIGINS).toEqual(expect.arrayContaining(["https://chatgpt.com", "https://claude.ai"]));
    for (const origin of KNOWN_HOST_ORIGINS) {
      const response = await discoverFrom(production, origin);
      expect(response.status, origin).toBe(200);
      expect(response.headers.get("access-control-allow-origin")).toBe(origin);
      const preflight = await preflightFrom(production, origin);
      expect(preflight.status, origin).toBe(204);
      expect(preflight.headers.get("access-control-allow-origin")).toBe(origin);
      expect(preflight.headers.get("access-control-allow-headers")).toBe("content-type, mcp-method");
    }
  });

  it("are replaced by HOST_ORIGINS, and none are accepted with HOST_ORIGINS=none", async () => {
    const replaced = testServer({}, { MCP_ENV: "production", HOST_ORIGINS: "https://host.example" });
    expect((await discoverFrom(replaced, "https://host.example")).status).toBe(200);
    await expectError(await discoverFrom(replaced, "https://chatgpt.com"), 403, -32600, null);
    const none = testServer({}, { MCP_ENV: "production", HOST_ORIGINS: "none" });
    for (const origin of KNOWN_HOST_ORIGINS) await expectError(await discoverFrom(none, origin), 403, -32600, null);
  });

  it("are kept beside ALLOWED_ORIGINS, which adds the app's own", async () => {
    const extended = testServer({}, { MCP_ENV: "production", ALLOWED_ORIGINS: "https://app.example" });
    expect((await discoverFrom(extended, "https://app.example")).status).toBe(200);
    expect((await discoverFrom(extended, "https://chatgpt.com")).status).toBe(200);
  });
});

describe("an origin that is not allowed", () => {
  it("is refused with 403 naming it, in the answer and in the access log", async () => {
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: string) => lines.push(line));
    const refused = await expectError(await discoverFrom(production, "https://evil.example"), 403, -32600, null);
    expect(refused.error?.message).toBe(refusal("https://evil.example"));
    const logged = lines.map((line) => JSON.parse(line)).find((entry) => entry.message === "mcp request");
    expect(logged).toMatchObject({ status: 403, reason: refusal("https://evil.example") });
  });

  it("gets its preflight refused with 403 naming it, logged the same way", async () => {
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: string) => lines.push(line));
    const preflight = await preflightFrom(production, "https://evil.example");
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    expect(((await preflight.json()) as { error: { message: string } }).error.message).toBe(refusal("https://evil.example"));
    expect(lines.map((line) => JSON.parse(line))).toContainEqual(
      expect.objectContaining({ method: "OPTIONS", status: 403, reason: refusal("https://evil.example") }),
    );
  });

  it("is named quoted and cut to 100 characters, so the answer holds no more than the caller sent", async () => {
    const long = `https://${"a".repeat(300)}.example`;
    const refused = await expectError(await discoverFrom(production, long), 403, -32600, null);
    expect(refused.error?.message).toBe(refusal(`${long.slice(0, 100)}...`));
  });

  it("is refused when it only looks like a host's: another scheme, port, subdomain or suffix", async () => {
    for (const origin of [
      "http://chatgpt.com",
      "https://chatgpt.com:8443",
      "https://evil.chatgpt.com",
      "https://chatgpt.com.evil.example",
      "https://claude.ai.evil.example",
    ]) {
      await expectError(await discoverFrom(production, origin), 403, -32600, null);
    }
  });
});

describe("DNS-rebinding protection, whatever the origin lists hold", () => {
  it("refuses Origin: null, malformed origins and origins with a path", async () => {
    for (const origin of ["null", "not a url", "https://chatgpt.com/c/1", "file://", "https://user@chatgpt.com"]) {
      await expectError(await discoverFrom(production, origin), 403, -32600, null);
    }
  });

  it("refuses loopback pages in production, and accepts them in development only", async () => {
    await expectError(await discoverFrom(production, "http://localhost:3000"), 403, -32600, null);
    const development = testServer({}, { MCP_ENV: "development" });
    expect((await discoverFrom(development, "http://localhost:3000", "localhost:8787")).status).toBe(200);
  });

  it("refuses a foreign Host even from a host's origin: the Host check is not the origin list's to lift", async () => {
    const development = testServer({}, { MCP_ENV: "development" });
    await expectError(await discoverFrom(development, "https://chatgpt.com", "rebind.example"), 403, -32600, null);
    const pinned = testServer({}, { MCP_ENV: "production", ALLOWED_HOSTS: "mcp.example" });
    await expectError(await discoverFrom(pinned, "https://chatgpt.com", "rebind.example"), 403, -32600, null);
    expect((await discoverFrom(pinned, "https://chatgpt.com", "mcp.example")).status).toBe(200);
  });
});

describe("origin settings that are not origins", () => {
  const problemsOf = (vars: Record<string, string>) => {
    const loaded = parseConfig({ MCP_ENV: "development", ...vars });
    return loaded.ok ? [] : loaded.problems;
  };

  it("are a configuration problem naming the setting and the entry: a path, userinfo, a query, another scheme", () => {
    for (const bad of [
      "https://app.example/mcp",
      "https://user:pass@app.example",
      "https://app.example?x",
      "ftp://app.example",
      "app.example",
    ]) {
      expect(problemsOf({ ALLOWED_ORIGINS: `https://ok.example, ${bad}` }), bad).toEqual([
        "ALLOWED_ORIGINS entry 2 is not an origin: write scheme://host[:port], nothing more",
      ]);
      expect(problemsOf({ HOST_ORIGINS: bad }), bad).toEqual([
        "HOST_ORIGINS entry 1 is not an origin: write scheme://host[:port], nothing more",
      ]);
    }
    expect(problemsOf({ HOST_ORIGINS: "none, https://host.example" })).toEqual([
      "HOST_ORIGINS entry 1 is not an origin: write scheme://host[:port], nothing more",
    ]);
  });

  it("refuse a wildcard, naming the setting and the entry: an origin is compared exactly, so a pattern would match no Origin", () => {
    for (const pattern of ["https://*.claude.ai", "https://*", "*", "https://app.*.example", "http://localhost:*"]) {
      const named = `${JSON.stringify(pattern)} is a pattern, and origins are compared exactly: list each origin, scheme://host[:port]`;
      expect(problemsOf({ ALLOWED_ORIGINS: `https://ok.example, ${pattern}` }), pattern).toEqual([`ALLOWED_ORIGINS entry 2 ${named}`]);
      expect(problemsOf({ HOST_ORIGINS: pattern }), pattern).toEqual([`HOST_ORIGINS entry 1 ${named}`]);
    }
  });

  it("keep a server with a wildcard origin setting from serving: /mcp answers 503, even to an origin the pattern was meant for", async () => {
    for (const setting of ["ALLOWED_ORIGINS", "HOST_ORIGINS"]) {
      const patterned = testServer({}, { MCP_ENV: "production", [setting]: "https://*.claude.ai" });
      // Each refusal logs the configuration problem as an error, naming the setting and why: captured, and checked.
      const { entries } = await withLogs(async () => {
        expect((await discoverFrom(patterned, "https://app.claude.ai")).status, setting).toBe(503);
        expect((await discoverFrom(patterned, "https://*.claude.ai")).status, setting).toBe(503);
      });
      expect(entries, setting).toHaveLength(2);
      for (const entry of entries) {
        expect(entry).toMatchObject({ level: "error", message: "configuration invalid" });
        expect(String(entry.problems)).toContain(`${setting} entry 1 "https://*.claude.ai" is a pattern`);
      }
    }
  });

  it("accept an origin as a browser or a person writes it: a trailing slash, upper case, the default port", () => {
    const loaded = parseConfig({
      MCP_ENV: "development",
      ALLOWED_ORIGINS: "https://App.example/, https://b.example:443, http://c.example:8080",
    });
    expect(loaded.ok && loaded.config.allowedOrigins).toEqual(
      expect.arrayContaining(["https://app.example", "https://b.example", "http://c.example:8080"]),
    );
  });
});
