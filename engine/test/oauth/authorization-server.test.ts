/**
 * Authorization-server mode, the engine's side (the OAuth flows themselves run end to end in
 * the template's test/e2e/oauth-flow.test.ts): its settings, the principal taken from what the provider verified, scopes that
 * hide tools, the rate limit on /register and /token, the scheduled purge, and the other modes left untouched.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { authorizationServer, createMcpWorker } from "../../src";
import { parseConfig } from "../../src/config/config";
import { McpServer } from "../../src/server/server";
import { createRouter } from "../../src/worker/router";
import { authorizePath, authServer, jsonPost, REDIRECT_URI, stubFetch } from "../helpers/auth-server";
import { adminOnly, FIXTURE } from "../helpers/fixture";
import { countingLimiter } from "../helpers/limiter";
import { readMessage, rpc } from "../helpers/rpc";
import { withLogs } from "../helpers/wire";

/** Development mode with the test signing key, as vitest.config.ts binds them. */
const TEST_BINDINGS = { MCP_ENV: "development", STATE_KEYS: (env as unknown as Record<string, string>).STATE_KEYS };
const LOGIN = {
  AUTH_LOGIN: "oidc",
  AUTH_LOGIN_ISSUER: "https://login.example",
  AUTH_LOGIN_CLIENT_ID: "upstream-client",
  AUTH_LOGIN_CLIENT_SECRET: "upstream-secret",
};
/** The Worker's definition in these tests: with the option that includes the authorization server. */
const definition = { ...FIXTURE, tools: [...FIXTURE.tools, adminOnly], authorizationServer };
const loginEnv = { ...env, ...LOGIN } as unknown as Env;

/** The engine's router as the provider calls it: with the grant's props and the token's scopes on the context. */
function engineAs(grant?: { props: Record<string, unknown>; scope: string[] }) {
  const router = createRouter(new McpServer(definition));
  return rpc((request) => {
    const execution = Object.assign(createExecutionContext(), grant && { props: grant.props, auth: { scope: grant.scope } });
    return router.fetch(request, loginEnv, execution, parseConfig(loginEnv as unknown as Record<string, unknown>));
  });
}

describe("authorization-server settings", () => {
  it("needs the upstream client, the issuer for OpenID Connect, and the OAUTH_STATE binding, which nothing replaces", () => {
    const loaded = parseConfig({ ...TEST_BINDINGS, AUTH_LOGIN: "oidc" });
    expect(loaded).toMatchObject({ ok: false });
    expect(!loaded.ok && loaded.problems).toEqual([
      "AUTH_LOGIN_ISSUER is not set",
      "AUTH_LOGIN_ISSUER must be an https URL",
      "OAUTH_STATE (a Durable Object binding, class OAuthState) is missing",
      "AUTH_LOGIN_CLIENT_ID is not set",
      "AUTH_LOGIN_CLIENT_SECRET is not set",
    ]);
  });

  it("refuses AUTH_LOGIN beside AUTH_ISSUER, an unknown login, and a short or missing consent secret in production", () => {
    const problems = (vars: Record<string, unknown>) => {
      const loaded = parseConfig({ ...TEST_BINDINGS, OAUTH_STATE: {}, ...LOGIN, ...vars });
      return loaded.ok ? [] : loaded.problems;
    };
    expect(problems({ AUTH_ISSUER: "https://issuer.example" })).toEqual(["AUTH_ISSUER and AUTH_LOGIN cannot both be set"]);
    expect(problems({ AUTH_LOGIN: "facebook" })).toEqual(["AUTH_LOGIN must be one of github, oidc"]);
    expect(problems({ AUTH_CONSENT_SECRET: "short" })).toEqual(["AUTH_CONSENT_SECRET must be 32 characters or more"]);
    expect(problems({ MCP_ENV: "production", ALLOWED_HOSTS: "mcp.example.com" })).toEqual(["AUTH_CONSENT_SECRET is not set"]);
    expect(problems({ AUTH_LOGIN_ISSUER: "http://login.example" })).toEqual(["AUTH_LOGIN_ISSUER must be an https URL"]);
  });

  it("needs ALLOWED_HOSTS in production, named, so the provider's metadata and token audience never follow the Host header", () => {
    const production = {
      ...TEST_BINDINGS,
      OAUTH_STATE: {},
      ...LOGIN,
      MCP_ENV: "production",
      AUTH_CONSENT_SECRET: "a consent secret of 32 characters!",
    };
    expect(parseConfig(production)).toEqual({
      ok: false,
      problems: ["AUTH_LOGIN needs ALLOWED_HOSTS in production, so the token audience and OAuth metadata do not follow the Host header"],
    });
    expect(parseConfig({ ...production, ALLOWED_HOSTS: "mcp.example.com" }).ok).toBe(true);
    // A fixed audience is no substitute here: the provider, not AUTH_AUDIENCE, decides what its tokens are for.
    expect(parseConfig({ ...production, AUTH_AUDIENCE: "https://mcp.example.com/mcp" }).ok).toBe(false);
    expect(parseConfig({ ...TEST_BINDINGS, OAUTH_STATE: {}, ...LOGIN }).ok).toBe(true);
  });

  it("accepts an http issuer on loopback in development only: in production it is a problem naming AUTH_LOGIN_ISSUER, and /mcp answers 503", async () => {
    const production = {
      ...TEST_BINDINGS,
      OAUTH_STATE: {},
      ...LOGIN,
      MCP_ENV: "production",
      ALLOWED_HOSTS: "mcp.example.com",
      AUTH_CONSENT_SECRET: "a consent secret of 32 characters!",
    };
    for (const issuer of ["http://127.0.0.1:9999", "http://localhost:9999/realms/test"]) {
      expect(parseConfig({ ...TEST_BINDINGS, OAUTH_STATE: {}, ...LOGIN, AUTH_LOGIN_ISSUER: issuer }).ok, issuer).toBe(true);
      expect(parseConfig({ ...production, AUTH_LOGIN_ISSUER: issuer }), issuer).toEqual({
        ok: false,
        problems: ["AUTH_LOGIN_ISSUER must be an https URL (http on localhost or 127.0.0.1 only with MCP_ENV=development)"],
      });
    }
    expect(parseConfig({ ...production, AUTH_LOGIN_ISSUER: "https://login.example" }).ok).toBe(true);
    const worker = createMcpWorker(definition);
    const deployed = { ...env, ...production, OAUTH_STATE: env.OAUTH_STATE, AUTH_LOGIN_ISSUER: "http://127.0.0.1:9999" } as unknown as Env;
    const request = new Request("https://mcp.example.com/mcp", {
      method: "POST",
      headers: { host: "mcp.example.com", "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    const { value: refused, entries } = await withLogs(() => worker.fetch(request, deployed, createExecutionContext()));
    expect(refused.status).toBe(503);
    expect(entries).toEqual([
      {
        level: "error",
        message: "configuration invalid",
        problems: ["AUTH_LOGIN_ISSUER must be an https URL (http on localhost or 127.0.0.1 only with MCP_ENV=development)"],
      },
    ]);
  });

  it("reads GitHub login with its default scope; the token lifetimes are code (limits.oauth)", () => {
    const loaded = parseConfig({
      ...TEST_BINDINGS,
      OAUTH_STATE: {},
      AUTH_LOGIN: "github",
      AUTH_LOGIN_CLIENT_ID: "a",
      AUTH_LOGIN_CLIENT_SECRET: "b",
    });
    expect(loaded.ok && loaded.config.authServer).toMatchObject({
      login: "github",
      scopes: ["read:user"],
    });
    expect(loaded.ok && loaded.config).toMatchObject({
      upstreamToken: false,
      limits: { oauth: { accessTokenMs: 3_600_000, refreshTokenMs: 2_592_000_000, clientMs: 2_592_000_000 } },
    });
  });
});

describe("the principal in authorization-server mode", () => {
  it("is the signed-in person from the provider's verified context, with their name and upstream token", async () => {
    const engine = engineAs({ props: { id: "oidc-alice", name: "Alice", upstreamToken: "upstream-token" }, scope: [] });
    const { result } = await readMessage(await engine.send("tools/call", { name: "echo", arguments: {} }));
    expect(result?.structuredContent).toMatchObject({ principal: "oidc-alice", authenticated: true });
  });

  it("hides the tools the grant's scopes do not cover, and lists them once granted", async () => {
    const names = async (scope: string[]) => {
      const { result } = await readMessage(await engineAs({ props: { id: "oidc-alice" }, scope }).send("tools/list"));
      return ((result?.tools ?? []) as { name: string }[]).map((tool) => tool.name);
    };
    expect(await names([])).not.toContain("admin_report");
    expect(await names(["notes:admin"])).toContain("admin_report");
  });

  it("marks lists private, since they differ per caller, so no shared cache hands one person's list to another", async () => {
    const { result } = await readMessage(await engineAs({ props: { id: "oidc-alice" }, scope: [] }).send("tools/list"));
    expect(result?.cacheScope).toBe("private");
  });

  it("refuses /mcp with 401 when the request did not come through the provider (fails closed)", async () => {
    const response = await engineAs().send("tools/list");
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain(
      'resource_metadata="http://localhost:8787/.well-known/oauth-protected-resource/mcp"',
    );
  });
});

describe("the OAuth endpoints and storage", () => {
  it("limits POST /register per client IP and answers 429 with Retry-After and temporarily_unavailable", async () => {
    const worker = createMcpWorker(definition);
    // A limiter of its own (3 per key): it counts only these requests, whatever other files sent and whenever a minute ends.
    const limited = { ...loginEnv, OAUTH_RATE_LIMITER: countingLimiter(3) } as Env;
    const register = () =>
      worker.fetch(
        new Request("http://localhost:8787/register", {
          method: "POST",
          headers: { "content-type": "application/json", "cf-connecting-ip": "203.0.113.16" },
          body: JSON.stringify({ client_name: "Flood", redirect_uris: ["http://127.0.0.1:9/cb"], token_endpoint_auth_method: "none" }),
        }),
        limited,
        createExecutionContext(),
      );
    for (let attempt = 0; attempt < 3; attempt++) expect((await register()).status).toBe(201);
    const refused = await register();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(await refused.json()).toMatchObject({ error: "temporarily_unavailable" });
  });

  it("purges the expired grants, and those of deleted clients, that an earlier version left in OAUTH_KV on the scheduled run, and keeps live ones", async () => {
    const now = Math.floor(Date.now() / 1000);
    const client = { clientId: "live-client", redirectUris: ["http://127.0.0.1:9/cb"], tokenEndpointAuthMethod: "none" };
    const grant = (id: string, userId: string, clientId: string, expiresAt: number) =>
      env.OAUTH_KV.put(
        `grant:${userId}:${id}`,
        JSON.stringify({ id, userId, clientId, scope: [], metadata: {}, encryptedProps: "", createdAt: now - 10, expiresAt }),
      );
    await env.OAUTH_KV.put("client:live-client", JSON.stringify(client));
    await grant("expired", "oidc-a", "live-client", now - 1);
    await grant("orphaned", "oidc-b", "deleted-client", now + 3_600);
    await grant("live", "oidc-c", "live-client", now + 3_600);
    const worker = createMcpWorker(definition);
    const { entries } = await withLogs(() =>
      worker.scheduled({ cron: "17 3 * * *", scheduledTime: Date.now(), noRetry() {} } as ScheduledController, loginEnv),
    );
    const left = (await env.OAUTH_KV.list({ prefix: "grant:" })).keys.map((key) => key.name);
    expect(left).toEqual(["grant:oidc-c:live"]);
    expect(entries).toEqual([{ level: "info", message: "oauth purge", grantsPurged: 2 }]);
  });

  it("does nothing on the scheduled run outside authorization-server mode", async () => {
    await env.OAUTH_KV.put("grant:oidc-d:expired", JSON.stringify({ id: "expired", userId: "oidc-d", clientId: "x", expiresAt: 1 }));
    await createMcpWorker(definition).scheduled({} as ScheduledController, env as unknown as Env);
    expect(await env.OAUTH_KV.get("grant:oidc-d:expired")).not.toBeNull();
  });

  it("keeps the landing page and /health, with connect instructions for signing in upstream", async () => {
    const worker = createMcpWorker(definition);
    const page = await worker.fetch(new Request("http://localhost:8787/"), loginEnv, createExecutionContext());
    expect(await page.text()).toContain("sign in with your organisation&#39;s identity provider and approve the client");
    const health = await worker.fetch(new Request("http://localhost:8787/health"), loginEnv, createExecutionContext());
    expect(await health.json()).toEqual({ status: "ok" });
  });

  it("refuses a Host it does not answer to before the provider, so no OAuth document or endpoint names that host", async () => {
    const worker = createMcpWorker(definition);
    const OTHER = "https://other-service.example";
    const paths = [
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-authorization-server",
      "/authorize",
      "/register",
      "/token",
      "/mcp",
    ];
    for (const path of paths) {
      const response = await worker.fetch(
        new Request(`${OTHER}${path}`, { headers: { host: "other-service.example" } }),
        loginEnv,
        createExecutionContext(),
      );
      expect(response.status, path).toBe(403);
      expect(await response.json(), path).toEqual({ error: "invalid_request", error_description: "Forbidden: Host is not allowed" });
    }
    // In production only the listed host is served, and the provider names it.
    const listed = {
      ...loginEnv,
      MCP_ENV: "production",
      ALLOWED_HOSTS: "mcp.example.com",
      AUTH_CONSENT_SECRET: "a consent secret of 32 characters!",
    } as unknown as Env;
    const foreign = await worker.fetch(
      new Request("https://other-service.example/.well-known/oauth-protected-resource/mcp", { headers: { host: "other-service.example" } }),
      listed,
      createExecutionContext(),
    );
    expect(foreign.status).toBe(403);
    const own = await worker.fetch(
      new Request("https://mcp.example.com/.well-known/oauth-protected-resource/mcp", { headers: { host: "mcp.example.com" } }),
      listed,
      createExecutionContext(),
    );
    expect(await own.json()).toMatchObject({ resource: "https://mcp.example.com/mcp", authorization_servers: ["https://mcp.example.com"] });
  });

  it("serves no OAuth endpoint in the default mode: the provider is not in play", async () => {
    const worker = createMcpWorker(definition);
    for (const path of ["/.well-known/oauth-authorization-server", "/authorize", "/register", "/token"]) {
      const response = await worker.fetch(new Request(`http://localhost:8787${path}`), env as unknown as Env, createExecutionContext());
      expect(response.status, path).toBe(404);
    }
  });
});

describe("the consent page and the authorization server metadata", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** The consent page a newly registered client sees on its first authorization request. */
  async function consentPageOf(call: ReturnType<typeof authServer>): Promise<string> {
    stubFetch();
    const registration = { client_name: "Client", redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: "none" };
    const { client_id } = (await (await call("/register", jsonPost(registration))).json()) as { client_id: string };
    const page = await call(authorizePath(client_id));
    expect(page.status).toBe(200);
    return page.text();
  }

  it("speaks of no scopes when the server's tools declare none: the app gets every tool", async () => {
    const page = await consentPageOf(authServer(FIXTURE));
    expect(page).not.toMatch(/scope/i);
    expect(page).toContain("the app can then use every tool of this server as you");
  });

  it("offers the tools' scopes, ticked, and says that scopes left out hide tools, when the server has some", async () => {
    const page = await consentPageOf(authServer(definition));
    expect(page).toContain('name="scope" value="notes:admin" checked');
    expect(page).toContain("tools whose scopes you leave out stay hidden from this app");
  });

  it('lists "none" among token_endpoint_auth_methods_supported: Claude uses metadata documents only then', async () => {
    const response = await authServer()("/.well-known/oauth-authorization-server");
    const metadata = (await response.json()) as Record<string, unknown>;
    expect(metadata.token_endpoint_auth_methods_supported).toContain("none");
    expect(metadata.client_id_metadata_document_supported).toBe(true);
  });
});
