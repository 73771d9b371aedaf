/// <reference types="vite/client" />
import { env } from "cloudflare:workers";
import { generateKeyPair } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import type { EngineOptions } from "../../src";
import { parseConfig } from "../../src/config/config";
import configSource from "../../src/config/settings.ts?raw";
import { createPublisher } from "../../src/listen/publish";
import { adminOnly, FIXTURE, valueUri } from "../helpers/fixture";
import { AUDIENCE, ISSUER, localIssuer } from "../helpers/issuer";
import { fixture, meta, readMessage, standardHeaders, testServer } from "../helpers/rpc";
import { sseReader } from "../helpers/sse";
import { expectError, user, withLogs } from "../helpers/wire";

let issuer: Awaited<ReturnType<typeof localIssuer>>;
let otherKey: CryptoKey;

beforeAll(async () => {
  issuer = await localIssuer();
  otherKey = (await generateKeyPair("ES256")).privateKey;
});

const token = (claims: Record<string, unknown> = {}, key?: () => CryptoKey) => issuer.token(claims, key?.());

const server = (vars: Record<string, string> = {}, options: EngineOptions = {}) =>
  testServer({ ...FIXTURE, tools: [...FIXTURE.tools, adminOnly], ...options }, { ...issuer.vars, ...vars });
const as = (jwt: string) => ({ headers: { authorization: `Bearer ${jwt}` } });
const challengeOf = (response: Response) => response.headers.get("www-authenticate") ?? "";
const METADATA = "http://localhost:8787/.well-known/oauth-protected-resource/mcp";

describe("authorization off (the default)", () => {
  it("serves anonymous callers and publishes no resource metadata", async () => {
    for (const method of ["GET", "HEAD", "POST"]) {
      const request = new Request("http://localhost:8787/.well-known/oauth-protected-resource/mcp", { method });
      expect((await fixture.fetch(request)).status, method).toBe(404);
    }
    const { result } = await readMessage(await fixture.send("tools/call", { name: "echo", arguments: {} }));
    expect(result?.structuredContent).toMatchObject({ principal: "anonymous", authenticated: false });
  });
});

describe("OAuth resource server", () => {
  it("publishes RFC 9728 metadata at the root and path-inserted locations", async () => {
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const response = await server().fetch(new Request(`http://localhost:8787${path}`));
      expect(await response.json()).toEqual({
        resource: AUDIENCE,
        authorization_servers: [ISSUER],
        bearer_methods_supported: ["header"],
        scopes_supported: ["notes:admin"],
        resource_name: FIXTURE.title,
      });
    }
  });

  it("answers HEAD on the metadata with its headers and no body, and any other method but OPTIONS with 405", async () => {
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const head = await server().fetch(new Request(`http://localhost:8787${path}`, { method: "HEAD" }));
      expect([head.status, head.headers.get("content-type"), await head.text()]).toEqual([200, "application/json", ""]);
      for (const method of ["POST", "PUT", "DELETE"]) {
        const refused = await server().fetch(
          new Request(`http://localhost:8787${path}`, { method, body: method === "DELETE" ? null : "{}" }),
        );
        expect([refused.status, refused.headers.get("allow")], `${method} ${path}`).toEqual([405, "GET, HEAD, OPTIONS"]);
      }
    }
  });

  it("answers a request without a token with 401 and a challenge naming the metadata and the scopes to ask for", async () => {
    const response = await server().send("tools/list");
    expect(challengeOf(response)).toBe(`Bearer scope="notes:admin", resource_metadata="${METADATA}"`);
    await expectError(response, 401, -32600, null);
  });

  it("names the scopes to ask for on an invalid token's 401 too, and none when no tool declares a scope", async () => {
    const invalid = await server().send("tools/list", {}, as("not.a.jwt"));
    expect(challengeOf(invalid)).toBe(`Bearer error="invalid_token", scope="notes:admin", resource_metadata="${METADATA}"`);
    const unscoped = await testServer({ tools: FIXTURE.tools }, issuer.vars).send("tools/list");
    expect(unscoped.status).toBe(401);
    expect(challengeOf(unscoped)).toBe(`Bearer resource_metadata="${METADATA}"`);
  });

  it("accepts a valid token and lists what the caller may use", async () => {
    const response = await server().send("tools/list", {}, as(await token()));
    expect(response.status).toBe(200);
    const { result } = await readMessage(response);
    expect(result?.tools.map((tool: { name: string }) => tool.name)).not.toContain("admin_report");
    expect(result?.cacheScope).toBe("private");
  });

  // A token for another audience (another resource on the same host, another host), an expired token and a token in
  // the query string are rows 28 and 29 of test/checklist.test.ts.
  const invalid: [string, () => Promise<string>][] = [
    ["signed by another key", () => token({}, () => otherKey)],
    ["from another issuer", () => token({ iss: "https://evil.example" })],
    ["without a subject", () => token({ sub: null })],
    ["that is not a JWT", async () => "not.a.jwt"],
  ];
  for (const [name, make] of invalid) {
    it(`refuses a token ${name} with 401 invalid_token`, async () => {
      const response = await server().send("tools/list", {}, as(await make()));
      expect(response.status).toBe(401);
      expect(challengeOf(response)).toContain('error="invalid_token"');
    });
  }

  it("answers a call without the tool's scope with 403 insufficient_scope and every scope it needs", async () => {
    const response = await server().send(
      "tools/call",
      { name: "admin_report", arguments: {} },
      { id: 30, ...as(await token({ scope: "notes:read" })) },
    );
    const header = challengeOf(response);
    expect(header).toContain('error="insufficient_scope"');
    expect(header).toContain('scope="notes:admin"');
    expect(header).toContain('resource_metadata="http://localhost:8787/.well-known/oauth-protected-resource/mcp"');
    await expectError(response, 403, -32600, 30);
  });

  it("lists and runs the tool once the token carries its scope (scope or scp)", async () => {
    for (const claims of [{ scope: "notes:read notes:admin" }, { scp: ["notes:admin"] }]) {
      const jwt = await token(claims);
      const { result } = await readMessage(await server().send("tools/list", {}, as(jwt)));
      expect(result?.tools.map((tool: { name: string }) => tool.name)).toContain("admin_report");
      const called = await readMessage(await server().send("tools/call", { name: "admin_report", arguments: {} }, as(jwt)));
      expect(called.result?.content[0].text).toBe("secret report");
    }
  });
});

describe("scope hierarchies (a broader scope implies narrower ones)", () => {
  const listed = async (jwt: string, options: EngineOptions = {}) => {
    const { result } = await readMessage(await server({}, options).send("tools/list", {}, as(jwt)));
    return result?.tools.map((tool: { name: string }) => tool.name) as string[];
  };
  const callAdmin = (jwt: string, options: EngineOptions = {}) =>
    server({}, options).send("tools/call", { name: "admin_report", arguments: {} }, as(jwt));

  it("lets a granted scope stand for every scope under it after a colon (default): notes implies notes:admin", async () => {
    const jwt = await token({ scope: "notes" });
    expect(await listed(jwt)).toContain("admin_report");
    const called = await readMessage(await callAdmin(jwt));
    expect(called.result?.content[0].text).toBe("secret report");
  });

  it("does not let an unrelated, look-alike or narrower scope stand for it", async () => {
    for (const scope of ["admin", "note", "notes:adminx", "notes:admin:read", "notes:read", "notesadmin"]) {
      const jwt = await token({ scope });
      expect(await listed(jwt), scope).not.toContain("admin_report");
      expect((await callAdmin(jwt)).status, scope).toBe(403);
    }
  });

  it("follows the scopeHierarchy option: explicit rules replace the default, chain, and none means exact scopes only", async () => {
    const explicit = { scopeHierarchy: ["admin>notes:admin"] };
    expect(await listed(await token({ scope: "admin" }), explicit)).toContain("admin_report");
    expect((await callAdmin(await token({ scope: "admin" }), explicit)).status).toBe(200);
    expect((await callAdmin(await token({ scope: "notes" }), explicit)).status).toBe(403);

    const chained = { scopeHierarchy: ["prefix", "owner>notes"] };
    expect((await callAdmin(await token({ scope: "owner" }), chained)).status).toBe(200);

    const exact = { scopeHierarchy: ["none"] };
    expect(await listed(await token({ scope: "notes" }), exact)).not.toContain("admin_report");
    expect((await callAdmin(await token({ scope: "notes" }), exact)).status).toBe(403);
    expect((await callAdmin(await token({ scope: "notes:admin" }), exact)).status).toBe(200);
  });

  it("refuses a malformed AUTH_JWKS by name at startup, a key that is not an object included", () => {
    for (const value of ["not json", "[]", '{"keys":{}}', '{"keys":[1]}', '{"keys":[{}, null]}']) {
      expect(parseConfig({ MCP_ENV: "development", AUTH_ISSUER: "https://issuer.example", AUTH_JWKS: value }), value).toEqual({
        ok: false,
        problems: [expect.stringMatching(/^AUTH_JWKS /)],
      });
    }
    expect(parseConfig({ MCP_ENV: "development", AUTH_ISSUER: "https://issuer.example", AUTH_JWKS: '{"keys":[]}' }).ok).toBe(true);
  });

  it("accepts an http AUTH_ISSUER or AUTH_JWKS_URL on loopback in development only, and names the setting in production", () => {
    const settings = {
      AUTH_ISSUER: "http://127.0.0.1:9999",
      AUTH_JWKS_URL: "http://localhost:9999/jwks",
      AUTH_AUDIENCE: "https://mcp.example/mcp",
    };
    expect(parseConfig({ MCP_ENV: "development", ...settings }).ok).toBe(true);
    const hint = "(http on localhost or 127.0.0.1 only with MCP_ENV=development)";
    expect(parseConfig({ MCP_ENV: "production", STATE_KEYS: `k:${btoa("x".repeat(32))}`, ...settings })).toEqual({
      ok: false,
      problems: [`AUTH_ISSUER must be an https URL ${hint}`, `AUTH_JWKS_URL must be an https URL ${hint}`],
    });
    // Off loopback, http is refused in development too.
    expect(parseConfig({ MCP_ENV: "development", ...settings, AUTH_JWKS_URL: "http://keys.example/jwks" })).toEqual({
      ok: false,
      problems: ["AUTH_JWKS_URL must be an https URL"],
    });
  });

  it("refuses a malformed scopeHierarchy at startup, naming the option", () => {
    for (const rules of [["a>b>c"], ["a>"], [">b"], ["a b>c"], ["a>a"], ["none", "prefix"], ["everything"]]) {
      expect(() => server({}, { scopeHierarchy: rules }), rules.join()).toThrow(/^createMcpWorker: scopeHierarchy must be/);
    }
  });
});

describe("an audience that is not a URL (Cloudflare Access names an application tag)", () => {
  it("accepts tokens for that tag, refuses others, and still names the endpoint URL as the resource", async () => {
    const tagged = testServer(
      { tools: FIXTURE.tools },
      { ...issuer.vars, AUTH_AUDIENCE: "4714c1358e65fe4b408ad6d432a5f878f08194bdb4752441fd56faefa9b2b6f2" },
    );
    const ok = await tagged.send(
      "tools/list",
      {},
      as(await token({ aud: "4714c1358e65fe4b408ad6d432a5f878f08194bdb4752441fd56faefa9b2b6f2" })),
    );
    expect(ok.status).toBe(200);
    expect((await tagged.send("tools/list", {}, as(await token()))).status).toBe(401);
    const metadata = await (await tagged.fetch(new Request("http://localhost:8787/.well-known/oauth-protected-resource/mcp"))).json();
    expect(metadata).toMatchObject({ resource: "http://localhost:8787/mcp" });
  });
});

describe("the principal flows everywhere", () => {
  it("gives handlers and completers the caller's principal, so what one user stores is not another's", async () => {
    const alice = as(await token({ sub: "alice" }));
    const bob = as(await token({ sub: "bob" }));
    const echoed = await readMessage(await server().send("tools/call", { name: "echo", arguments: {} }, alice));
    expect(echoed.result?.structuredContent).toMatchObject({ principal: "alice", authenticated: true });
    await server().send("tools/call", { name: "put", arguments: { key: "private", value: "alice's" } }, alice);
    const stolen = await readMessage(await server().send("resources/read", { uri: valueUri("private") }, bob));
    expect(stolen.error?.code).toBe(-32602);
    const own = await readMessage(await server().send("resources/read", { uri: valueUri("private") }, alice));
    expect(own.result?.contents).toEqual([{ uri: valueUri("private"), mimeType: "text/plain", text: "alice's" }]);
    const completion = { ref: { type: "ref/resource", uri: "fixture://values/{key}" }, argument: { name: "key", value: "priv" } };
    expect((await readMessage(await server().send("completion/complete", completion, bob))).result?.completion.values).toEqual([]);
    expect((await readMessage(await server().send("completion/complete", completion, alice))).result?.completion.values).toEqual([
      "private",
    ]);
  });

  // requestState bound to the principal (another user's state is rejected): row 34 of test/checklist.test.ts.

  it("announces a user's private changes only on that user's listen streams", async () => {
    const listen = async (sub: string) => {
      const reader = sseReader(
        await server().send("subscriptions/listen", { notifications: { resourcesListChanged: true } }, as(await token({ sub }))),
      );
      await reader.message();
      return reader;
    };
    const alice = await listen("alice");
    const bob = await listen("bob");
    await createPublisher(env.SUBSCRIPTIONS, user("alice")).resourcesListChanged();
    expect(await alice.message()).toMatchObject({ method: "notifications/resources/list_changed" });
    expect(await bob.message(300)).toBe("timeout");
    await Promise.all([alice.cancel(), bob.cancel()]);
  });

  it("binds a 2025 session to its principal, stored or not: another user gets 404", async () => {
    for (const capabilities of [{ elicitation: {} }, {}]) {
      const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities } };
      const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
      const created = await server().post(init, { ...headers, authorization: `Bearer ${await token({ sub: "alice" })}` });
      const session = created.headers.get("mcp-session-id");
      const ping = { jsonrpc: "2.0", id: 2, method: "ping" };
      const asBob = await server().post(ping, {
        ...headers,
        "mcp-session-id": session,
        authorization: `Bearer ${await token({ sub: "bob" })}`,
      });
      expect(asBob.status).toBe(404);
      const asAlice = await server().post(ping, {
        ...headers,
        "mcp-session-id": session,
        authorization: `Bearer ${await token({ sub: "alice" })}`,
      });
      expect(asAlice.status).toBe(200);
    }
  });
});

describe("the audience is pinned by configuration, never by the Host header the caller sends", () => {
  // The review's attack: in production with AUTH_ISSUER alone the audience was `<origin of the request>/mcp`, so a token
  // the same issuer minted for another service was accepted once the request named that service's Host.
  const OTHER_SERVICE = "http://other-service.example";
  const THIS_SERVER = "http://mcp.example.com";
  /** The test issuer without AUTH_AUDIENCE, plus `vars`. */
  const serve = (vars: Record<string, string>) => {
    const { AUTH_AUDIENCE: _default, ...issuerAlone } = issuer.vars;
    return testServer({ tools: FIXTURE.tools }, { ...issuerAlone, ...vars });
  };
  /** A request as Cloudflare hands it to the Worker: its URL's origin is the Host header the caller sent. */
  const at = (origin: string, path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
    new Request(`${origin}${path}`, { ...init, headers: { ...init.headers, host: new URL(origin).host } });
  const callEcho = (target: ReturnType<typeof serve>, origin: string, jwt: string) =>
    target.fetch(
      at(origin, "/mcp", {
        method: "POST",
        headers: { ...standardHeaders("tools/call", { name: "echo" }), authorization: `Bearer ${jwt}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: {}, _meta: meta() } }),
      }),
    );
  const metadataAt = (target: ReturnType<typeof serve>, origin: string) =>
    target.fetch(at(origin, "/.well-known/oauth-protected-resource/mcp"));
  const PROBLEM = "AUTH_ISSUER needs AUTH_AUDIENCE or ALLOWED_HOSTS in production, so the token audience does not follow the Host header";
  /** The line each request to /mcp of a server with an invalid configuration logs. */
  const INVALID = { level: "error", message: "configuration invalid", problems: [PROBLEM] };

  it("refuses a token minted for another service in production with AUTH_ISSUER alone, whether the request names this server's Host or that service's", async () => {
    const forOtherService = await token({ aud: `${OTHER_SERVICE}/mcp` });
    const target = serve({ MCP_ENV: "production" });
    const { value: statuses, entries } = await withLogs(async () => [
      (await callEcho(target, "http://localhost:8787", forOtherService)).status,
      (await callEcho(target, OTHER_SERVICE, forOtherService)).status,
    ]);
    expect(statuses).not.toContain(200);
    expect(entries).toEqual([INVALID, INVALID]);
  });

  it("makes production with AUTH_ISSUER but neither AUTH_AUDIENCE nor ALLOWED_HOSTS invalid, naming both: 503 on /mcp, /health invalid, the page at / says why", async () => {
    const { AUTH_AUDIENCE: _default, ...issuerAlone } = issuer.vars;
    const loaded = parseConfig({ ...env, ...issuerAlone, MCP_ENV: "production" });
    expect(loaded).toEqual({ ok: false, problems: [PROBLEM] });
    for (const pinned of [{ AUTH_AUDIENCE: `${THIS_SERVER}/mcp` }, { ALLOWED_HOSTS: "mcp.example.com" }, { MCP_ENV: "development" }]) {
      expect(parseConfig({ ...env, ...issuerAlone, MCP_ENV: "production", ...pinned }).ok, JSON.stringify(pinned)).toBe(true);
    }
    const target = serve({ MCP_ENV: "production" });
    const jwt = await token({ aud: `${THIS_SERVER}/mcp` });
    const { value: refused, entries } = await withLogs(() => callEcho(target, THIS_SERVER, jwt));
    await expectError(refused, 503, -32603, null);
    expect(entries).toEqual([INVALID]);
    const health = await target.fetch(at(THIS_SERVER, "/health"));
    expect([health.status, await health.json()]).toEqual([503, { status: "error", config: "invalid" }]);
    expect(await (await target.fetch(at(THIS_SERVER, "/"))).text()).toContain(
      "AUTH_ISSUER needs AUTH_AUDIENCE or ALLOWED_HOSTS in production",
    );
  });

  it("with ALLOWED_HOSTS in production, refuses any other Host on /mcp, the metadata and the landing page, and names only the listed one", async () => {
    const target = serve({ MCP_ENV: "production", ALLOWED_HOSTS: "mcp.example.com" });
    const forOtherService = await token({ aud: `${OTHER_SERVICE}/mcp` });
    await expectError(await callEcho(target, OTHER_SERVICE, forOtherService), 403, -32600, null);
    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource", "/"]) {
      const refused = await target.fetch(at(OTHER_SERVICE, path));
      expect(refused.status, path).toBe(403);
      expect(await refused.text(), path).not.toContain("other-service");
    }
    const wrongAudience = await callEcho(target, THIS_SERVER, forOtherService);
    expect(wrongAudience.status).toBe(401);
    expect(challengeOf(wrongAudience)).toContain(`resource_metadata="${THIS_SERVER}/.well-known/oauth-protected-resource/mcp"`);
    expect((await callEcho(target, THIS_SERVER, await token({ aud: `${THIS_SERVER}/mcp` }))).status).toBe(200);
    expect(await (await metadataAt(target, THIS_SERVER)).json()).toMatchObject({ resource: `${THIS_SERVER}/mcp` });
  });

  it("with AUTH_AUDIENCE in production, accepts only tokens for that audience whatever the Host, and the metadata names it", async () => {
    const target = serve({ MCP_ENV: "production", AUTH_AUDIENCE: "https://mcp.example.com/mcp" });
    expect((await callEcho(target, OTHER_SERVICE, await token({ aud: `${OTHER_SERVICE}/mcp` }))).status).toBe(401);
    expect((await callEcho(target, OTHER_SERVICE, await token({ aud: "https://mcp.example.com/mcp" }))).status).toBe(200);
    expect(await (await metadataAt(target, OTHER_SERVICE)).json()).toMatchObject({ resource: "https://mcp.example.com/mcp" });
  });

  it("in development needs neither: loopback hosts are served, and any other Host is refused on /mcp and the metadata, never echoed", async () => {
    const target = serve({});
    expect((await callEcho(target, "http://localhost:8787", await token({ aud: "http://localhost:8787/mcp" }))).status).toBe(200);
    await expectError(await callEcho(target, OTHER_SERVICE, await token({ aud: `${OTHER_SERVICE}/mcp` })), 403, -32600, null);
    const metadata = await metadataAt(target, OTHER_SERVICE);
    expect(metadata.status).toBe(403);
    expect(await metadata.text()).not.toContain("other-service");
  });
});

describe("an authorization setting given without the setting that turns its mode on (a half-applied configuration)", () => {
  const problemsOf = (vars: Record<string, string>) => {
    const loaded = parseConfig({ MCP_ENV: "development", ...vars });
    return loaded.ok ? [] : loaded.problems;
  };

  it("is a named configuration problem, not ignored, so the server fails closed instead of running with authorization off", async () => {
    expect(problemsOf({ AUTH_AUDIENCE: AUDIENCE })).toEqual(["AUTH_AUDIENCE is set but AUTH_ISSUER is not: it would be ignored"]);
    expect(problemsOf({ AUTH_LOGIN_CLIENT_ID: "client" })).toEqual([
      "AUTH_LOGIN_CLIENT_ID is set but AUTH_LOGIN is not: it would be ignored",
    ]);
    // The other mode's setting does not count: AUTH_LOGIN_SCOPES means nothing to a resource server.
    expect(problemsOf({ ...issuer.vars, AUTH_LOGIN_SCOPES: "openid" })).toEqual([
      "AUTH_LOGIN_SCOPES is set but AUTH_LOGIN is not: it would be ignored",
    ]);
    const halfApplied = testServer({ tools: FIXTURE.tools }, { AUTH_JWKS_URL: "https://issuer.example/jwks.json" });
    const { value: refused, entries } = await withLogs(() => halfApplied.send("tools/call", { name: "echo", arguments: {} }));
    await expectError(refused, 503, -32603, null);
    expect(entries).toEqual([
      { level: "error", message: "configuration invalid", problems: ["AUTH_JWKS_URL is set but AUTH_ISSUER is not: it would be ignored"] },
    ]);
  });

  it("is checked for every setting of each mode: each one read in config.ts, alone, is refused by name", () => {
    const modeSettings = [...configSource.matchAll(/read\.(?:string|integer|oneOf|list)\("(AUTH_[A-Z_]+)"/g)]
      .map(([, name]) => name!)
      .filter((name) => name !== "AUTH_ISSUER" && name !== "AUTH_LOGIN");
    expect(new Set(modeSettings).size).toBeGreaterThan(7);
    for (const name of new Set(modeSettings)) {
      expect(problemsOf({ [name]: "1" }), name).toEqual([expect.stringMatching(new RegExp(`^${name} is set but .* it would be ignored$`))]);
    }
  });

  it("is accepted once its mode is on", () => {
    expect(problemsOf({ ...issuer.vars, AUTH_JWKS_URL: "https://issuer.example/keys", AUTH_ALGORITHMS: "ES256" })).toEqual([]);
  });
});
