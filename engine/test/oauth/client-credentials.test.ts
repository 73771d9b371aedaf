/**
 * Machine clients (the client credentials grant, the MCP extension `io.modelcontextprotocol/oauth-client-credentials`)
 * through the real Worker in authorization-server mode: clients declared in AUTH_MACHINE_CLIENTS get a token at
 * /token with a secret (client_secret_basic) or a signed assertion (private_key_jwt), call the tools their scopes
 * allow as a client principal, and every refusal is the OAuth error its RFC names, with nothing stored.
 * The official clients do the same end to end in the template's test/e2e/oauth/machine-clients.ts.
 */
import { listDurableObjectIds, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as z from "zod/mini";
import { defineTool, text } from "../../src";
import { parseConfig } from "../../src/config/config";
import { callerKey } from "../../src/http/rate-limit";
import { authorizePath, authServer, formPost, jsonPost, LOGIN, ORIGIN, storedClients } from "../helpers/auth-server";
import { adminOnly, FIXTURE } from "../helpers/fixture";
import { laggingKv } from "../helpers/lagging-kv";
import { meta, standardHeaders, URL_MCP } from "../helpers/rpc";
import { signInWorker } from "../helpers/sign-in";
import { withLogs } from "../helpers/wire";

const SECRET = "s3cret-of-the-nightly-report-job-with-enough-entropy";
const sha256Hex = async (value: string) => new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value))).toHex();

/** Tells who called: what a tool sees of a machine client. */
const whoami = defineTool({
  name: "whoami",
  description: "Says who is calling.",
  input: z.strictObject({}),
  handler: (_args, ctx) => ({ content: [text(JSON.stringify(ctx.principal))] }),
});
const DEFINITION = { ...FIXTURE, tools: [...FIXTURE.tools, adminOnly, whoami] };

let keys: CryptoKeyPair;
let otherKeys: CryptoKeyPair;
let clients: unknown[];
let call: ReturnType<typeof authServer>;

beforeAll(async () => {
  keys = await generateKeyPair("ES256", { extractable: true });
  otherKeys = await generateKeyPair("ES256", { extractable: true });
  const jwk = { ...(await exportJWK(keys.publicKey)), kid: "ci-1", alg: "ES256", use: "sig" };
  clients = [
    { client_id: "nightly", client_name: "Nightly report", scope: "notes:admin", client_secret_sha256: await sha256Hex(SECRET) },
    { client_id: "reader", client_name: "Reader", scope: "notes:read", client_secret_sha256: await sha256Hex(`${SECRET}-reader`) },
    { client_id: "ci", client_name: "CI pipeline", scope: "notes:admin notes:read", jwks: { keys: [jwk] } },
  ];
  call = authServer(DEFINITION, { AUTH_MACHINE_CLIENTS: JSON.stringify(clients) });
});

afterEach(() => {
  vi.restoreAllMocks();
});

const basic = (id: string, secret: string) => `Basic ${btoa(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`)}`;
const ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/** A client assertion of `ci`, every claim overridable (`undefined` leaves one out). */
async function assertion(claims: Record<string, unknown> = {}, key: CryptoKey = keys.privateKey): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const all = { iss: "ci", sub: "ci", aud: ORIGIN, iat: now, exp: now + 300, jti: crypto.randomUUID(), ...claims };
  const present = Object.fromEntries(Object.entries(all).filter(([, value]) => value !== undefined));
  return new SignJWT(present).setProtectedHeader({ alg: "ES256", kid: "ci-1", typ: "JWT" }).sign(key);
}

async function token(fields: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await call("/token", formPost({ grant_type: "client_credentials", ...fields }, headers));
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}
const withSecret = (fields: Record<string, string> = {}, id = "nightly", secret = SECRET) =>
  token(fields, { authorization: basic(id, secret) });
const withAssertion = async (fields: Record<string, string> = {}, jwt?: string) =>
  token({ client_assertion_type: ASSERTION_TYPE, client_assertion: jwt ?? (await assertion()), ...fields });

/** One 2026-07-28 request to /mcp of `server` with `accessToken`: the HTTP status, the JSON-RPC message, the headers. */
async function mcp(accessToken: string, method: string, params: Record<string, unknown> = {}, server = call, path = "/mcp") {
  const body = { jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: meta() } };
  const headers = { ...standardHeaders(method, params), authorization: `Bearer ${accessToken}` };
  const response = await server(path, { method: "POST", headers, body: JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, message: text ? JSON.parse(text) : undefined, headers: response.headers };
}
const callTool = (accessToken: string, name: string) => mcp(accessToken, "tools/call", { name, arguments: {} });

/** How many OAuthState objects exist: a refused request must not add one (nor write into one: see each test). */
const stateObjects = async () => (await listDurableObjectIds(env.OAUTH_STATE)).length;

describe("a machine client with a secret (client_secret_basic)", () => {
  it("gets an access token for its scopes, with no refresh token, and stores nothing for it", async () => {
    const before = await stateObjects();
    const answer = await withSecret({ resource: `${ORIGIN}/mcp` });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "notes:admin" });
    expect(answer.body).not.toHaveProperty("refresh_token");
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(await stateObjects()).toBe(before);
  });

  it("calls a tool its scope allows, as a client principal: its id and name, no user", async () => {
    const { body } = await withSecret();
    const admin = await callTool(body.access_token as string, "admin_report");
    expect(admin.status).toBe(200);
    expect(admin.message.result.content[0].text).toBe("secret report");
    const who = await callTool(body.access_token as string, "whoami");
    expect(JSON.parse(who.message.result.content[0].text)).toEqual({
      id: "client-nightly",
      scopes: ["notes:admin"],
      authenticated: true,
      name: "Nightly report",
      client: { id: "nightly", name: "Nightly report" },
    });
  });

  it("is refused a tool it lacks the scope for (403 insufficient_scope)", async () => {
    const { body } = await withSecret({}, "reader", `${SECRET}-reader`);
    const refused = await callTool(body.access_token as string, "admin_report");
    expect(refused.status).toBe(403);
    expect(refused.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
  });

  it("is named in the access log line of each of its requests", async () => {
    const logged = authServer(DEFINITION, { AUTH_MACHINE_CLIENTS: JSON.stringify(clients), ACCESS_LOG: "all" });
    const { body } = await withSecret();
    const { entries } = await withLogs(() => mcp(body.access_token as string, "tools/list", {}, logged));
    expect(entries.find((entry) => entry.message === "mcp request")).toMatchObject({
      method: "tools/list",
      client: "nightly",
      status: 200,
    });
  });

  it("is refused with a wrong secret: invalid_client, 401 with a Basic challenge, nothing stored", async () => {
    const before = await stateObjects();
    const refused = await withSecret({}, "nightly", "not-the-secret");
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe("invalid_client");
    expect(refused.headers.get("www-authenticate")).toBe('Basic realm="token"');
    expect(await stateObjects()).toBe(before);
  });

  it("may send its secret in the form instead (client_secret_post, as the extension's example does), never in both places", async () => {
    const posted = await token({ client_id: "nightly", client_secret: SECRET });
    expect(posted.status).toBe(200);
    expect((await token({ client_id: "nightly", client_secret: "wrong" })).body.error).toBe("invalid_client");
    const both = await token({ client_id: "nightly", client_secret: SECRET }, { authorization: basic("nightly", SECRET) });
    expect(both.status).toBe(400);
    expect(both.body.error).toBe("invalid_request");
  });

  it("is refused a scope it was not given: invalid_scope, nothing stored", async () => {
    const before = await stateObjects();
    const refused = await withSecret({ scope: "notes:read" });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: "invalid_scope", error_description: "this client may not have: notes:read" });
    expect(await stateObjects()).toBe(before);
  });

  it("gets only its own scopes when it asks for more (the answer's scope says which, RFC 6749 §3.3)", async () => {
    const answer = await withSecret({ scope: "notes:admin notes:read" });
    expect(answer.status).toBe(200);
    expect(answer.body.scope).toBe("notes:admin");
    const who = await callTool(answer.body.access_token as string, "whoami");
    expect(JSON.parse(who.message.result.content[0].text).scopes).toEqual(["notes:admin"]);
  });

  it("given a broad scope, calls the tools of the scopes it implies, and gets a narrower one it asks for (the scope hierarchy, as for people)", async () => {
    const broad = { client_id: "broad", scope: "notes", client_secret_sha256: await sha256Hex(`${SECRET}-broad`) };
    const server = authServer(DEFINITION, { AUTH_MACHINE_CLIENTS: JSON.stringify([...clients, broad]) });
    const ask = async (scope?: string) => {
      const fields = { grant_type: "client_credentials", ...(scope && { scope }) };
      const response = await server("/token", formPost(fields, { authorization: basic("broad", `${SECRET}-broad`) }));
      return (await response.json()) as { access_token?: string; scope?: string; error?: string };
    };
    const all = await ask();
    expect(all.scope).toBe("notes");
    expect((await mcp(all.access_token!, "tools/call", { name: "admin_report", arguments: {} }, server)).status).toBe(200);
    const narrow = await ask("notes:read");
    expect(narrow.scope).toBe("notes:read");
    const who = await mcp(narrow.access_token!, "tools/call", { name: "whoami", arguments: {} }, server);
    expect(JSON.parse(who.message.result.content[0].text).scopes).toEqual(["notes:read"]);
    expect((await mcp(narrow.access_token!, "tools/call", { name: "admin_report", arguments: {} }, server)).status).toBe(403);
    expect((await ask("other")).error).toBe("invalid_scope");
  });

  it("gets its token and its refusals with the headers of every /token answer: no-store, and CORS for a browser origin", async () => {
    const origin = { origin: "https://app.example" };
    const granted = await token({}, { authorization: basic("nightly", SECRET), ...origin });
    const refusedOne = await token({}, { authorization: basic("nightly", "wrong"), ...origin });
    for (const answer of [granted, refusedOne]) {
      expect(answer.headers.get("access-control-allow-origin")).toBe("https://app.example");
      expect(answer.headers.get("vary")).toBe("Origin");
      expect(answer.headers.get("cache-control")).toBe("no-store");
    }
    expect([granted.status, refusedOne.status]).toEqual([200, 401]);
  });

  it("is refused a token for another resource: invalid_target (RFC 8707)", async () => {
    const refused = await withSecret({ resource: "https://other.example/mcp" });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe("invalid_target");
  });

  it("is refused a secret for a client that authenticates with a key: invalid_client", async () => {
    const answer = await token({}, { authorization: basic("ci", "anything") });
    expect(answer.status).toBe(401);
    expect(answer.body.error).toBe("invalid_client");
  });
});

describe("a machine client with a key (private_key_jwt)", () => {
  it("gets a token for the scopes it asks for, and calls a tool with it", async () => {
    const answer = await withAssertion({ scope: "notes:read", resource: `${ORIGIN}/mcp` });
    expect(answer.status).toBe(200);
    expect(answer.body.scope).toBe("notes:read");
    const who = await callTool(answer.body.access_token as string, "whoami");
    expect(JSON.parse(who.message.result.content[0].text)).toMatchObject({
      id: "client-ci",
      scopes: ["notes:read"],
      client: { id: "ci", name: "CI pipeline" },
    });
    expect((await callTool(answer.body.access_token as string, "admin_report")).status).toBe(403);
  });

  it("accepts the token endpoint as the assertion's audience, as well as the issuer, alone or as an array of one", async () => {
    expect((await withAssertion({}, await assertion({ aud: `${ORIGIN}/token` }))).status).toBe(200);
    expect((await withAssertion({}, await assertion({ aud: [`${ORIGIN}/`] }))).status).toBe(200);
  });

  it("is refused an assertion whose audience is this server among others: invalid_client, nothing stored", async () => {
    const before = await stateObjects();
    const refused = await withAssertion({}, await assertion({ aud: [`${ORIGIN}/`, "https://elsewhere.example"] }));
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe("invalid_client");
    expect(await stateObjects()).toBe(before);
  });

  it("is refused a replayed assertion: invalid_client, and the replay stores nothing", async () => {
    const jwt = await assertion();
    expect((await withAssertion({}, jwt)).status).toBe(200);
    const before = await stateObjects();
    const replayed = await withAssertion({}, jwt);
    expect(replayed.status).toBe(401);
    expect(replayed.body.error).toBe("invalid_client");
    expect(replayed.body.error_description).toContain("already used");
    expect(await stateObjects()).toBe(before);
  });

  const now = () => Math.floor(Date.now() / 1000);
  const refusedAssertions: [string, () => Promise<string>][] = [
    ["an expired assertion", () => assertion({ iat: now() - 400, exp: now() - 60 })],
    ["an assertion for another audience", () => assertion({ aud: "https://other-server.example" })],
    ["an assertion that lives longer than 5 minutes", () => assertion({ exp: now() + 3600 })],
    ["an assertion issued in the future", () => assertion({ iat: now() + 120, nbf: now() + 120 })],
    ["an assertion without a jti", () => assertion({ jti: undefined })],
    ["an assertion whose sub is not the client", () => assertion({ sub: "someone-else" })],
    ["an assertion signed by another key", () => assertion({}, otherKeys.privateKey)],
  ];
  it.each(refusedAssertions)("is refused %s: invalid_client 401, nothing stored", async (_what, make) => {
    const before = await stateObjects();
    const refused = await withAssertion({}, await make());
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe("invalid_client");
    expect(refused.headers.get("www-authenticate")).toBe('Basic realm="token"');
    expect(await stateObjects()).toBe(before);
  });

  it("is answered 503 temporarily_unavailable (Retry-After) while its jwks_uri fails, fetched at most once per 30 s, nothing stored", async () => {
    const KEYS_URL = "https://keys.example/remote.json";
    const remote = { client_id: "remote", client_name: "Remote keys", scope: "notes:read", jwks_uri: KEYS_URL };
    const server = authServer(DEFINITION, { AUTH_MACHINE_CLIENTS: JSON.stringify([...clients, remote]) });
    const realFetch = globalThis.fetch;
    const fetched: string[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      if (String(input) !== KEYS_URL) return realFetch(input, init);
      fetched.push(String(input));
      return new Response("down", { status: 500 });
    });
    const before = await stateObjects();
    for (let attempt = 0; attempt < 3; attempt++) {
      const fields = { grant_type: "client_credentials", client_assertion_type: ASSERTION_TYPE };
      const jwt = await assertion({ iss: "remote", sub: "remote" });
      const response = await server("/token", formPost({ ...fields, client_assertion: jwt }));
      expect(response.status).toBe(503);
      expect(((await response.json()) as { error: string }).error).toBe("temporarily_unavailable");
      expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    expect(fetched).toHaveLength(1);
    expect(await stateObjects()).toBe(before);
  });

  it("is refused with a wrong assertion type or with two authentication methods at once", async () => {
    const wrongType = await token({ client_assertion_type: "urn:example:other", client_assertion: await assertion() });
    expect(wrongType.body.error).toBe("invalid_client");
    const both = await token(
      { client_assertion_type: ASSERTION_TYPE, client_assertion: await assertion() },
      { authorization: basic("nightly", SECRET) },
    );
    expect(both.status).toBe(400);
    expect(both.body.error).toBe("invalid_request");
  });

  it("an assertion refused for its scope stays unused, and works once asked for right", async () => {
    const jwt = await assertion();
    expect((await withAssertion({ scope: "notes:write" }, jwt)).body.error).toBe("invalid_scope");
    expect((await withAssertion({}, jwt)).status).toBe(200);
  });
});

describe("the memory of used assertion ids (one OAuthState object per client)", () => {
  const object = (client = "memory-test") => env.OAUTH_STATE.get(env.OAUTH_STATE.idFromName(`assertions:${client}`));
  const liveIds = (client?: string) =>
    runInDurableObject(
      object(client),
      (_instance, state) => state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM assertion_ids").one().n,
    );

  /**
   * Makes an id's assertion expire now, as time would: the tests never wait on the clock, so a slow machine cannot
   * make an id expire before the test looks (nor the object's own alarm delete it first).
   */
  const expire = (id: string, client?: string) =>
    runInDurableObject(object(client), (_instance, state) => {
      state.storage.sql.exec("UPDATE assertion_ids SET expires_at = ? WHERE id = ?", Date.now() - 1, id);
    });

  it("keeps at most its bound: a new id is refused while it is full, until the oldest expires", async () => {
    const first = Date.now() + 60_000;
    const later = first + 60_000;
    const use = (id: string, expiresAt: number) => runInDurableObject(object(), (instance) => instance.useAssertionId(id, expiresAt, 2));
    expect(await use("a", first)).toEqual({ kind: "first" });
    expect(await use("b", later)).toEqual({ kind: "first" });
    expect(await use("c", later)).toEqual({ kind: "full", retryAt: first });
    expect(await use("a", first)).toEqual({ kind: "replayed" });
    expect(await liveIds()).toBe(2);
    await expire("a");
    // "a" expired with its assertion: its place is free (and its id no replay any more: that assertion is dead).
    expect(await use("c", later)).toEqual({ kind: "first" });
    expect(await liveIds()).toBe(2);
  });

  it("forgets each id when its assertion expires (the object's alarm)", async () => {
    await runInDurableObject(object("alarm-test"), (instance) => instance.useAssertionId("short", Date.now() + 60_000, 10));
    expect(await liveIds("alarm-test")).toBe(1);
    await expire("short", "alarm-test");
    expect(await runDurableObjectAlarm(object("alarm-test"))).toBe(true);
    expect(await liveIds("alarm-test")).toBe(0);
  });
});

describe("what a machine client may not do", () => {
  it("use the authorization_code or refresh_token grant: unauthorized_client once authenticated, invalid_client before", async () => {
    const asNightly = { authorization: basic("nightly", SECRET) };
    const code = await call(
      "/token",
      formPost({ grant_type: "authorization_code", code: "a:b:c", redirect_uri: "http://127.0.0.1:9/cb" }, asNightly),
    );
    expect(code.status).toBe(400);
    expect(((await code.json()) as { error: string }).error).toBe("unauthorized_client");
    const refresh = await call("/token", formPost({ grant_type: "refresh_token", refresh_token: "a:b:c" }, asNightly));
    expect(((await refresh.json()) as { error: string }).error).toBe("unauthorized_client");
    const keyed = await call(
      "/token",
      formPost({
        grant_type: "refresh_token",
        refresh_token: "a:b:c",
        client_assertion_type: ASSERTION_TYPE,
        client_assertion: await assertion(),
      }),
    );
    expect(((await keyed.json()) as { error: string }).error).toBe("unauthorized_client");
    // Naming a machine client without its credentials tells nothing of it: invalid_client, as for any unknown client.
    const named = await call(
      "/token",
      formPost({ grant_type: "authorization_code", code: "a:b:c", client_id: "nightly", redirect_uri: "http://127.0.0.1:9/cb" }),
    );
    expect(named.status).toBe(401);
    expect(((await named.json()) as { error: string }).error).toBe("invalid_client");
  });

  it("be told apart from an unknown client before it authenticates: the other grants answer both byte for byte alike", async () => {
    const headersOf = (response: Response) =>
      ["www-authenticate", "cache-control", "pragma", "content-type", "access-control-allow-origin", "vary"].map((name) => [
        name,
        response.headers.get(name),
      ]);
    const answer = async (extra: Record<string, string>, headers: Record<string, string> = {}) => {
      const fields = { grant_type: "authorization_code", code: "a:b:c", redirect_uri: "http://127.0.0.1:9/cb", ...extra };
      const response = await call("/token", formPost(fields, { origin: "https://app.example", ...headers }));
      return { status: response.status, body: await response.text(), headers: headersOf(response) };
    };
    // Each way of naming a client without proving it is that client: its id alone, a wrong posted secret, wrong Basic credentials.
    const unauthenticated = (id: string) => [
      answer({ client_id: id }),
      answer({ client_id: id, client_secret: "x" }),
      answer({}, { authorization: basic(id, "wrong") }),
    ];
    const machine = await Promise.all(unauthenticated("nightly"));
    expect(machine.map(({ status }) => status)).toEqual([401, 401, 401]);
    expect(machine).toEqual(await Promise.all(unauthenticated("no-such-client")));
  });

  it("start a person's sign-in at /authorize: refused on the page (it is no registered client), no record stored", async () => {
    const before = await storedClients();
    const page = await call(authorizePath("nightly"));
    expect(page.status).toBe(400);
    // RFC 6749 §4.1.2.1: an unknown client_id is told to the person, never redirected.
    expect(await page.text()).toContain("<code>invalid_request</code>: Invalid client_id");
    expect(page.headers.get("location")).toBeNull();
    // The provider's lookup of the unknown client wakes that key's object (as for any unknown client_id); it writes nothing.
    expect(await storedClients()).toBe(before);
    const looked = env.OAUTH_STATE.get(env.OAUTH_STATE.idFromName("key:client:nightly"));
    expect(
      await runInDurableObject(looked, (_instance, state) => state.storage.sql.exec("SELECT name FROM sqlite_master").toArray()),
    ).toEqual([]);
  });

  it("be registered at /register for the client_credentials grant: invalid_client_metadata, nothing stored", async () => {
    const before = await storedClients();
    const registered = await call(
      "/register",
      jsonPost({
        client_name: "Sneaky daemon",
        grant_types: ["client_credentials"],
        token_endpoint_auth_method: "client_secret_basic",
        redirect_uris: [],
      }),
    );
    expect(registered.status).toBe(400);
    expect(((await registered.json()) as { error: string }).error).toBe("invalid_client_metadata");
    expect(await storedClients()).toBe(before);
  });

  it("present a person's token as its own credentials: invalid_client", async () => {
    const worker = signInWorker({ kv: laggingKv(0), stepPauseMs: 0, vars: { AUTH_MACHINE_CLIENTS: JSON.stringify(clients) } });
    const { clientId, tokens } = await worker.signIn();
    const person = tokens.access_token!;
    // As the client's assertion, as its secret, and the person's own client asking for the grant.
    expect((await withAssertion({}, person)).body.error).toBe("invalid_client");
    expect((await withSecret({}, "nightly", person)).body.error).toBe("invalid_client");
    expect((await token({ client_id: clientId })).body.error).toBe("invalid_client");
    // And a person's token is still a person's at /mcp, never a client's.
    const who = await callTool(person, "whoami");
    expect(JSON.parse(who.message.result.content[0].text)).not.toHaveProperty("client");
  });
});

describe("machine client tokens at /mcp", () => {
  it("are refused once the client is no longer declared, or when altered", async () => {
    const { body } = await withSecret();
    const accessToken = body.access_token as string;
    const withoutNightly = authServer(DEFINITION, { AUTH_MACHINE_CLIENTS: JSON.stringify(clients.slice(1)) });
    const removed = await withoutNightly("/mcp", {
      method: "POST",
      headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(removed.status).toBe(401);
    const altered = `${accessToken.slice(0, -2)}${accessToken.endsWith("AA") ? "BB" : "AA"}`;
    expect((await callTool(altered, "whoami")).status).toBe(401);
  });

  it("minted before the client's secret or key changes are refused after the change (401), while a fresh one works", async () => {
    const { body } = await withSecret();
    const before = await withAssertion();
    const newHash = await sha256Hex(`${SECRET}-rotated`);
    const newKey = { ...(await exportJWK(otherKeys.publicKey)), kid: "ci-1", alg: "ES256", use: "sig" };
    const changed = [
      { ...(clients[0] as object), client_secret_sha256: newHash },
      clients[1],
      { ...(clients[2] as object), jwks: { keys: [newKey] } },
    ];
    const rotated = authServer(DEFINITION, { AUTH_MACHINE_CLIENTS: JSON.stringify(changed) });
    for (const old of [body.access_token, before.body.access_token]) {
      const refused = await mcp(old as string, "tools/list", {}, rotated);
      expect(refused.status).toBe(401);
      expect(refused.headers.get("www-authenticate")).toContain('error="invalid_token"');
    }
    const fresh = await rotated(
      "/token",
      formPost({ grant_type: "client_credentials" }, { authorization: basic("nightly", `${SECRET}-rotated`) }),
    );
    const freshToken = ((await fresh.json()) as { access_token: string }).access_token;
    expect((await mcp(freshToken, "tools/list", {}, rotated)).status).toBe(200);
  });

  it("are not revived by removing the client and declaring the same id again with another secret", async () => {
    const { body } = await withSecret();
    const redeclared = authServer(DEFINITION, {
      AUTH_MACHINE_CLIENTS: JSON.stringify([
        ...clients.slice(1),
        { ...(clients[0] as object), client_secret_sha256: await sha256Hex("another") },
      ]),
    });
    expect((await mcp(body.access_token as string, "tools/list", {}, redeclared)).status).toBe(401);
  });

  it("are refused at another origin of the same Worker (the token is bound to its resource)", async () => {
    const { body } = await withSecret();
    // The same Worker answering on another loopback origin: its resource is http://127.0.0.1:8787/mcp there.
    const elsewhere = await mcp(body.access_token as string, "tools/list", {}, call, "http://127.0.0.1:8787/mcp");
    expect(elsewhere.status).toBe(401);
  });

  it("count a machine client as its own caller for rate limits and tool budgets", () => {
    const request = new Request(URL_MCP);
    const machine = { id: "client-nightly", scopes: [], authenticated: true, client: { id: "nightly", name: "Nightly" } };
    expect(callerKey({ principal: machine, request })).toBe("principal:client-nightly");
  });
});

describe("the authorization server metadata with machine clients", () => {
  it("lists the client_credentials grant, its authentication methods and the assertion algorithms", async () => {
    const metadata = (await (await call("/.well-known/oauth-authorization-server")).json()) as Record<string, string[]>;
    expect(metadata.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token", "client_credentials"]));
    expect(metadata.token_endpoint_auth_methods_supported).toEqual(
      expect.arrayContaining(["client_secret_basic", "client_secret_post", "private_key_jwt"]),
    );
    expect(metadata.token_endpoint_auth_signing_alg_values_supported).toEqual(expect.arrayContaining(["RS256", "ES256"]));
  });

  it("says nothing of them, and refuses the grant as unsupported, when none is declared", async () => {
    const plain = authServer(DEFINITION);
    const metadata = (await (await plain("/.well-known/oauth-authorization-server")).json()) as Record<string, string[]>;
    expect(metadata.grant_types_supported).not.toContain("client_credentials");
    const refused = await plain("/token", formPost({ grant_type: "client_credentials" }, { authorization: basic("nightly", SECRET) }));
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toBe("unsupported_grant_type");
  });
});

describe("AUTH_MACHINE_CLIENTS", () => {
  const DEVELOPMENT = { ...LOGIN, MCP_ENV: "development", OAUTH_STATE: env.OAUTH_STATE, STATE_KEYS: env.STATE_KEYS };
  const problemsOf = (value: unknown) => {
    const loaded = parseConfig({ ...DEVELOPMENT, AUTH_MACHINE_CLIENTS: value });
    return loaded.ok ? [] : loaded.problems;
  };
  const good = { client_id: "job", scope: "notes", client_secret_sha256: "a".repeat(64) };

  it("takes a JSON array as text or as JSON itself, the name defaulting to the id", () => {
    for (const value of [JSON.stringify([good]), [good]]) {
      const loaded = parseConfig({ ...DEVELOPMENT, AUTH_MACHINE_CLIENTS: value });
      expect(loaded.ok && loaded.config.authServer?.machineClients.map(({ id, name, scopes }) => ({ id, name, scopes }))).toEqual([
        { id: "job", name: "job", scopes: ["notes"] },
      ]);
    }
  });

  it.each([
    ["not JSON", "[{", "must be a JSON array"],
    ["a client id with a colon", [{ ...good, client_id: "a:b" }], "client_id must be"],
    ["no scope", [{ ...good, scope: "" }], "scope must list"],
    ["a secret in clear instead of its hash", [{ ...good, client_secret_sha256: "hunter2" }], "64 lowercase hex digits"],
    ["two ways to authenticate", [{ ...good, jwks_uri: "https://keys.example/jwks" }], "exactly one of"],
    ["a key set over plain http", [{ client_id: "job", scope: "notes", jwks_uri: "http://keys.example/jwks" }], "must be an https URL"],
    ["the same client twice", [good, good], "declared twice"],
    [
      "the hash of an empty secret",
      [{ ...good, client_secret_sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" }],
      "(client job): client_secret_sha256 is the SHA-256 of an empty secret",
    ],
    [
      "a private key in an inline key set",
      [{ client_id: "job", scope: "notes", jwks: { keys: [{ kty: "EC", crv: "P-256", x: "x", y: "y", d: "secret" }] } }],
      "(client job): jwks key 1 holds the private member d",
    ],
    [
      "a symmetric key in an inline key set",
      [{ client_id: "job", scope: "notes", jwks: { keys: [{ kty: "oct", k: "c2VjcmV0" }] } }],
      "(client job): jwks key 1 holds the private member k",
    ],
    ["a secret in clear beside its hash", [{ ...good, client_secret: "hunter2" }], '(client job): unknown member "client_secret"'],
  ])("names %s as a configuration problem", (_what, value, problem) => {
    expect(problemsOf(value).join("\n")).toContain(problem);
  });

  it("is a problem on the public development key (no STATE_KEYS): /mcp answers 503 and the log names it", async () => {
    const { STATE_KEYS: _none, ...withoutKeys } = DEVELOPMENT;
    const loaded = parseConfig({ ...withoutKeys, AUTH_MACHINE_CLIENTS: [good] });
    expect(loaded.ok ? [] : loaded.problems).toContain(
      "AUTH_MACHINE_CLIENTS needs STATE_KEYS: machine tokens signed with the public development key could be forged by anyone",
    );
    const open = authServer(DEFINITION, { MCP_ENV: "development", STATE_KEYS: undefined, AUTH_MACHINE_CLIENTS: JSON.stringify([good]) });
    const { value: answer, lines } = await withLogs(() =>
      open("/mcp", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }),
    );
    expect(answer.status).toBe(503);
    expect(lines.join("\n")).toContain("AUTH_MACHINE_CLIENTS needs STATE_KEYS");
  });

  it("is a problem without AUTH_LOGIN: it would be ignored", () => {
    const loaded = parseConfig({ MCP_ENV: "development", AUTH_MACHINE_CLIENTS: JSON.stringify([good]) });
    expect(loaded.ok ? [] : loaded.problems).toContain("AUTH_MACHINE_CLIENTS is set but AUTH_LOGIN is not: it would be ignored");
  });
});
