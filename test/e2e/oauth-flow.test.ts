/**
 * Authorization-server mode end to end: the app's Worker under wrangler's dev server (test/e2e/oauth/wrangler.toml,
 * its state in local Durable Objects) signs people in through a fake OpenID Connect provider on 127.0.0.1, and the
 * official client (@modelcontextprotocol/client 2.4.0) goes through discovery, registration, PKCE, consent, tokens
 * and a tool call.
 * The negative cases speak OAuth directly and expect each RFC's error code.
 */
import { createHash, randomBytes } from "node:crypto";
import {
  Client,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unstable_startWorker } from "wrangler";
import { TEST_BINDINGS } from "../../vitest.config";
import { Browser } from "./oauth/browser";
import { CIMD_CLIENT_ID, CIMD_REDIRECT_URI } from "./oauth/cimd";
import { type FakeUpstream, startFakeUpstream } from "./oauth/fake-upstream";
import { describeMachineClients, MACHINE_CLIENTS } from "./oauth/machine-clients";

/** The Worker's origin and endpoint, on a free port (known once it is ready). */
let origin: string;
let mcpUrl: string;
/** Where the clients ask to be sent back: the browser stops at it, so nothing listens there. */
const REDIRECT_URI = "http://127.0.0.1:8979/callback";
const ALICE = { sub: "alice-0001", name: "Alice" };
const BOB = { sub: "bob-0002", name: "Bob" };

let upstream: FakeUpstream;
let worker: Awaited<ReturnType<typeof unstable_startWorker>>;

beforeAll(async () => {
  process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
  upstream = await startFakeUpstream();
  worker = await unstable_startWorker({
    config: "test/e2e/oauth/wrangler.toml",
    bindings: {
      STATE_KEYS: { type: "plain_text", value: TEST_BINDINGS.STATE_KEYS },
      AUTH_LOGIN_ISSUER: { type: "plain_text", value: upstream.issuer },
      // The machine clients of ./oauth/machine-clients.ts, with keys made for this run.
      AUTH_MACHINE_CLIENTS: { type: "plain_text", value: MACHINE_CLIENTS },
    },
    dev: { server: { hostname: "127.0.0.1", port: 0 }, inspector: false, watch: false, logLevel: "error" },
  });
  await worker.ready;
  origin = (await worker.url).origin;
  mcpUrl = `${origin}/mcp`;
}, 60_000);

afterAll(async () => {
  await worker?.dispose();
  await upstream?.close();
});

/** An MCP client's OAuth state in memory; the "browser" runs the login when the SDK asks for a redirect. */
class TestOAuthClient implements OAuthClientProvider {
  information?: StoredOAuthClientInformation;
  saved?: StoredOAuthTokens;
  verifier = "";
  discovery?: OAuthDiscoveryState;
  callback?: URL;
  consentPages = 0;

  constructor(
    readonly browser: Browser,
    readonly redirectUrl: string = REDIRECT_URI,
    readonly clientMetadataUrl?: string,
  ) {}

  get clientMetadata() {
    return {
      client_name: "E2E Client",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: StoredOAuthClientInformation) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  // Kept beside the code verifier, as the SDK asks: it then checks that the callback leg's authorization server is
  // the one the login started at (SEP-2352), where without it it warns that it cannot.
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  async redirectToAuthorization(url: URL) {
    let landed = await this.browser.open(url.href, this.redirectUrl);
    if (!landed.url.startsWith(this.redirectUrl)) {
      this.consentPages++;
      landed = await this.browser.submitConsent(landed.url, await landed.response.text(), this.redirectUrl);
    }
    this.callback = new URL(landed.url);
  }
}

/** Connects the official client, signing in (and consenting, unless remembered) when the server asks. */
async function connect(oauth: TestOAuthClient): Promise<Client> {
  const client = () => new Client({ name: "e2e-oauth", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  const first = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: oauth });
  try {
    const connected = client();
    await connected.connect(first);
    return connected;
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
  }
  expect(oauth.callback?.searchParams.get("code")).toBeTruthy();
  await first.finishAuth(oauth.callback!.searchParams);
  const connected = client();
  await connected.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: oauth }));
  return connected;
}

const form = (fields: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields),
});
const token = async (fields: Record<string, string>) => {
  const response = await fetch(`${origin}/token`, form(fields));
  return { status: response.status, body: (await response.json()) as Record<string, string> };
};
const mcpAs = (accessToken: string) =>
  fetch(mcpUrl, {
    method: "POST",
    headers: {
      authorization: `Bearer ${accessToken}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "server/discover",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "server/discover",
      params: { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} } },
    }),
  });

/** A public client registered by RFC 7591, and one login through the browser: the authorization code and its PKCE verifier. */
async function registerClient(redirectUri = REDIRECT_URI): Promise<string> {
  const response = await fetch(`${origin}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "Manual Client", redirect_uris: [redirectUri], token_endpoint_auth_method: "none" }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { client_id: string }).client_id;
}

function authorizeUrl(clientId: string, verifier: string, extra: Record<string, string> = {}) {
  const url = new URL(`${origin}/authorize`);
  const params = {
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    state: "client-state",
    resource: mcpUrl,
    ...extra,
  };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.href;
}

async function loginForCode(clientId: string, browser = new Browser()) {
  const verifier = randomBytes(32).toString("base64url");
  let landed = await browser.open(authorizeUrl(clientId, verifier), REDIRECT_URI);
  if (!landed.url.startsWith(REDIRECT_URI)) landed = await browser.submitConsent(landed.url, await landed.response.text(), REDIRECT_URI);
  const code = new URL(landed.url).searchParams.get("code")!;
  return { code, verifier, redirect: new URL(landed.url) };
}

const exchange = (clientId: string, code: string, verifier: string, extra: Record<string, string> = {}) =>
  token({
    grant_type: "authorization_code",
    client_id: clientId,
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT_URI,
    resource: mcpUrl,
    ...extra,
  });

describe("discovery in authorization-server mode", () => {
  it("describes one server: the authorization server metadata and the protected resource metadata agree", async () => {
    const server = (await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(server).toMatchObject({
      issuer: origin,
      authorization_endpoint: `${origin}/authorize`,
      token_endpoint: `${origin}/token`,
      registration_endpoint: `${origin}/register`,
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    });
    for (const path of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const resource = (await (await fetch(`${origin}${path}`)).json()) as Record<string, unknown>;
      expect(resource, path).toMatchObject({ resource: mcpUrl, authorization_servers: [origin] });
    }
  });

  it("answers POST /mcp without a token with 401 and a challenge naming the resource metadata", async () => {
    const response = await fetch(mcpUrl, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain(`resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`);
  });
});

describe("the official client through registration, PKCE, login, consent and a tool call", () => {
  const alice = new TestOAuthClient(new Browser());
  let notebook = "";

  it("signs Alice in, shows the consent page once, and calls a tool as her", async () => {
    upstream.signInAs(ALICE);
    const client = await connect(alice);
    expect(alice.consentPages).toBe(1);
    // RFC 9207: the authorization response names this issuer.
    expect(alice.callback?.searchParams.get("iss")).toBe(origin);
    const created: any = await client.callTool({ name: "create_notebook", arguments: { title: "Alice's" } });
    notebook = created.structuredContent.notebook_id;
    const added: any = await client.callTool({
      name: "add_note",
      arguments: { notebook_id: notebook, title: "Secret", body: "alice only" },
    });
    expect(added.isError).toBeFalsy();
    await client.close();
  });

  it("refreshes Alice's token and keeps serving her", async () => {
    const refreshed = await token({
      grant_type: "refresh_token",
      client_id: alice.information!.client_id,
      refresh_token: alice.saved!.refresh_token!,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(alice.saved!.refresh_token);
    expect((await mcpAs(refreshed.body.access_token!)).status).toBe(200);
    alice.saveTokens({ ...alice.saved!, ...refreshed.body } as StoredOAuthTokens);
  });

  it("does not show Bob Alice's notes (a second person, a second client)", async () => {
    upstream.signInAs(BOB);
    const bob = new TestOAuthClient(new Browser());
    const client = await connect(bob);
    const read: any = await client.callTool({ name: "search_notes", arguments: { notebook_id: notebook, query: "alice" } });
    expect(JSON.stringify(read)).not.toContain("alice only");
    await client.close();
  });

  it("revokes Alice's access token: /mcp then refuses it", async () => {
    const accessToken = alice.saved!.access_token;
    expect((await mcpAs(accessToken)).status).toBe(200);
    const revoked = await fetch(
      `${origin}/token`,
      form({ token: accessToken, token_type_hint: "access_token", client_id: alice.information!.client_id }),
    );
    expect(revoked.status).toBe(200);
    expect((await mcpAs(accessToken)).status).toBe(401);
  });

  it("remembers Alice's approval of her client: a new login skips the consent page", async () => {
    upstream.signInAs(ALICE);
    alice.saved = undefined;
    const client = await connect(alice);
    expect(alice.consentPages).toBe(1);
    await client.close();
  });

  it("serves a client identified by its client ID metadata document (CIMD)", async () => {
    upstream.signInAs(ALICE);
    const cimd = new TestOAuthClient(new Browser(), CIMD_REDIRECT_URI, CIMD_CLIENT_ID);
    const client = await connect(cimd);
    expect(cimd.information?.client_id).toBe(CIMD_CLIENT_ID);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("create_notebook");
    await client.close();
  });
});

describe("the user id in codes and tokens", () => {
  const CAROL = { sub: "carol-sub-7f3e9a", name: "Carol" };
  /** Case-sensitive and five characters or more, so a random token cannot contain one by chance. */
  const readable = ["carol", "sub-7f3e9a", "oidc-", encodeURIComponent(CAROL.sub)];

  /** A login, code exchange and refresh: every code and token the provider issues on the way. */
  async function issued(clientId: string): Promise<string[]> {
    const { code, verifier } = await loginForCode(clientId);
    const tokens = await exchange(clientId, code, verifier);
    const refreshed = await token({ grant_type: "refresh_token", client_id: clientId, refresh_token: tokens.body.refresh_token! });
    expect(refreshed.status).toBe(200);
    return [code, tokens.body.access_token!, tokens.body.refresh_token!, refreshed.body.access_token!, refreshed.body.refresh_token!];
  }

  it("puts no part of the upstream user id in any authorization code, access token or refresh token", async () => {
    upstream.signInAs(CAROL);
    for (const value of await issued(await registerClient())) {
      for (const part of readable) expect(value).not.toContain(part);
    }
  });

  it("names the person by the same opaque id at every login, and another person by another", async () => {
    const userOf = (value: string) => value.split(":")[0]!;
    upstream.signInAs(CAROL);
    const first = (await issued(await registerClient())).map(userOf);
    const again = (await issued(await registerClient())).map(userOf);
    expect(new Set([...first, ...again]).size).toBe(1);
    expect(first[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    upstream.signInAs(BOB);
    expect(userOf((await issued(await registerClient()))[0]!)).not.toBe(first[0]);
  });
});

describe("refusals, each with its RFC error code", () => {
  it("refuses a redirect URI that is not exactly the registered one, on the page and without redirecting", async () => {
    const clientId = await registerClient();
    const response = await fetch(authorizeUrl(clientId, "v".repeat(43), { redirect_uri: `${REDIRECT_URI}/other` }), { redirect: "manual" });
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    expect(await response.text()).toContain("invalid_request");
  });

  it("refuses an authorization request without PKCE (invalid_request, back to the client)", async () => {
    const clientId = await registerClient();
    const url = new URL(authorizeUrl(clientId, "v".repeat(43)));
    url.searchParams.delete("code_challenge");
    url.searchParams.delete("code_challenge_method");
    const response = await fetch(url, { redirect: "manual" });
    const answer = new URL(response.headers.get("location") ?? `${origin}/?body=${await response.text()}`);
    expect(answer.searchParams.get("error") ?? answer.searchParams.get("body")).toContain("invalid_request");
  });

  it("refuses a code exchange without the PKCE verifier, or with a wrong one (invalid_request, invalid_grant)", async () => {
    upstream.signInAs(ALICE);
    const clientId = await registerClient();
    const { code, verifier } = await loginForCode(clientId);
    const missing = await token({
      grant_type: "authorization_code",
      client_id: clientId,
      code,
      redirect_uri: REDIRECT_URI,
      resource: mcpUrl,
    });
    expect(missing.body.error).toMatch(/invalid_(request|grant)/);
    const second = await loginForCode(clientId);
    const wrong = await exchange(clientId, second.code, `${verifier}x`);
    expect(wrong).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
  });

  it("refuses a token for another audience (RFC 8707 invalid_target)", async () => {
    const clientId = await registerClient();
    const { code, verifier } = await loginForCode(clientId);
    const other = await exchange(clientId, code, verifier, { resource: "https://other.example/mcp" });
    expect(other.body.error).toBe("invalid_target");
  });

  it("answers a retried refresh with the same tokens, and revokes the grant once the retried token is used after its successor", async () => {
    const clientId = await registerClient();
    const { code, verifier } = await loginForCode(clientId);
    const first = await exchange(clientId, code, verifier);
    const refresh = (refreshToken: string) => token({ grant_type: "refresh_token", client_id: clientId, refresh_token: refreshToken });
    const second = await refresh(first.body.refresh_token!);
    expect(second.status).toBe(200);
    // A retry after a lost answer (within limits.oauth.refreshRetryMs): the same answer, nobody signed out.
    const retried = await refresh(first.body.refresh_token!);
    expect(retried.status).toBe(200);
    expect(retried.body.refresh_token).toBe(second.body.refresh_token);
    const third = await refresh(second.body.refresh_token!);
    expect(third.status).toBe(200);
    // The provider would honour the previous token once more (and rotate again); here a use after its successor's is a
    // theft signal.
    const reused = await refresh(first.body.refresh_token!);
    expect(reused).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect(reused.body.error_description).toContain("already used");
    expect(await refresh(third.body.refresh_token!)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect((await mcpAs(third.body.access_token!)).status).toBe(401);
  });

  it("revokes the grant when a refresh token two rotations old is used again", async () => {
    const clientId = await registerClient();
    const { code, verifier } = await loginForCode(clientId);
    const first = await exchange(clientId, code, verifier);
    const refresh = (refreshToken: string) => token({ grant_type: "refresh_token", client_id: clientId, refresh_token: refreshToken });
    const second = await refresh(first.body.refresh_token!);
    const third = await refresh(second.body.refresh_token!);
    expect(third.status).toBe(200);
    expect(await refresh(first.body.refresh_token!)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect(await refresh(third.body.refresh_token!)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect((await mcpAs(third.body.access_token!)).status).toBe(401);
  });

  it("refuses a reused authorization code (invalid_grant) and revokes the grant it made", async () => {
    const clientId = await registerClient();
    const { code, verifier } = await loginForCode(clientId);
    const first = await exchange(clientId, code, verifier);
    expect(first.status).toBe(200);
    expect((await mcpAs(first.body.access_token!)).status).toBe(200);
    const again = await exchange(clientId, code, verifier);
    expect(again).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect((await mcpAs(first.body.access_token!)).status).toBe(401);
  });

  it("refuses a consent answer whose browser-bound cookie has expired", async () => {
    const clientId = await registerClient();
    const browser = new Browser();
    const page = await browser.open(authorizeUrl(clientId, "v".repeat(43)), REDIRECT_URI);
    expect(page.response.status).toBe(200);
    expect(page.response.headers.get("x-frame-options")).toBe("DENY");
    expect(page.response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    browser.forget(new URL(origin).host, "__Host-oauth-consent");
    const answer = await browser.submitConsent(page.url, await page.response.text(), REDIRECT_URI);
    expect(answer.response.status).toBe(400);
    expect(await answer.response.text()).toMatch(/invalid_request|access_denied/);
  });

  it("refuses an upstream ID token whose nonce is not this login's: the client gets access_denied, not a code", async () => {
    const clientId = await registerClient();
    upstream.tamperNonce(true);
    try {
      const { code, redirect } = await loginForCode(clientId);
      expect(code).toBeNull();
      expect(redirect.searchParams.get("error")).toBe("access_denied");
      expect(redirect.searchParams.get("state")).toBe("client-state");
      expect(redirect.searchParams.get("iss")).toBe(origin);
    } finally {
      upstream.tamperNonce(false);
    }
  });

  it("refuses an upstream callback whose state this browser did not start, on the page", async () => {
    const response = await fetch(`${origin}/oauth/callback?code=stolen&state=forged`, { redirect: "manual" });
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
  });

  it("refuses a consent answer without its CSRF token (invalid_request)", async () => {
    const response = await fetch(`${origin}/authorize`, form({ decision: "approve" }));
    expect(response.status).toBe(400);
    expect(await response.text()).toContain("invalid_request");
  });
});

describeMachineClients(() => ({ origin, mcpUrl }));
