/**
 * The upstream login (src/oauth/upstream.ts). GitHub has no discovery, so its endpoints, scope and user
 * lookup are this server's to get right; GitHub itself is replaced by a stub of its three URLs. The OpenID Connect
 * side is checked here against a stubbed provider (each refusal of the protocol client on its own is in
 * oauth-client.test.ts), and against a real local provider in the template's test/e2e/oauth-flow.test.ts.
 */
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { AuthServerSettings } from "../../src/config/config";
import { finishLogin, loginUrl, newSecrets, SignInFailure, signInProvider } from "../../src/oauth/upstream";

const settings = (): AuthServerSettings => ({
  login: "github",
  clientId: "gh-client",
  clientSecret: "gh-secret",
  scopes: ["read:user"],
  consentSecret: "x".repeat(32),
  machineClients: [],
});
const CALLBACK = "https://mcp.example/oauth/callback";

/** GitHub's token endpoint and /user, answering as GitHub does; records what this server sent. */
function stubGitHub() {
  const sent: { url: string; body: string; authorization: string | null }[] = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    // The body as bytes: workerd warns when text() reads a body whose type is not text (a form, here).
    const body = new TextDecoder().decode(await request.arrayBuffer());
    sent.push({ url: request.url, body, authorization: request.headers.get("authorization") });
    if (request.url === "https://github.com/login/oauth/access_token") {
      return Response.json({ access_token: "gho_upstream", token_type: "bearer", scope: "read:user" });
    }
    if (request.url === "https://api.github.com/user") return Response.json({ id: 583231, login: "octocat", name: "The Octocat" });
    return new Response("unexpected", { status: 500 });
  });
  return sent;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("GitHub login", () => {
  it("sends the person to GitHub's authorize URL with PKCE S256, the state and read:user, without a nonce", async () => {
    const secrets = newSecrets(settings());
    expect(secrets.nonce).toBeUndefined();
    const url = new URL(await loginUrl(settings(), await signInProvider(settings()), CALLBACK, "the-state", secrets));
    expect(url.origin + url.pathname).toBe("https://github.com/login/oauth/authorize");
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: "gh-client",
      redirect_uri: CALLBACK,
      response_type: "code",
      scope: "read:user",
      state: "the-state",
      code_challenge_method: "S256",
    });
  });

  it("exchanges the code with the secret and the PKCE verifier, and names the person by GitHub's numeric id", async () => {
    const sent = stubGitHub();
    const secrets = newSecrets(settings());
    const identity = await finishLogin(settings(), new URL(`${CALLBACK}?code=gh-code&state=s`), CALLBACK, secrets);
    expect(identity).toEqual({ id: "github-583231", name: "The Octocat", upstreamToken: "gho_upstream" });
    const exchange = new URLSearchParams(sent[0]!.body);
    expect(Object.fromEntries(exchange)).toMatchObject({
      grant_type: "authorization_code",
      code: "gh-code",
      code_verifier: secrets.verifier,
      client_secret: "gh-secret",
      redirect_uri: CALLBACK,
    });
    expect(sent[1]).toMatchObject({ url: "https://api.github.com/user", authorization: "Bearer gho_upstream" });
  });

  it("hands GitHub's token to the login, which keeps it for tools only with the upstreamToken option", async () => {
    stubGitHub();
    const identity = await finishLogin(settings(), new URL(`${CALLBACK}?code=gh-code&state=s`), CALLBACK, newSecrets(settings()));
    expect(identity.upstreamToken).toBe("gho_upstream");
  });

  it("refuses a callback that carries an error instead of a code", async () => {
    stubGitHub();
    await expect(
      finishLogin(settings(), new URL(`${CALLBACK}?error=access_denied&state=s`), CALLBACK, newSecrets(settings())),
    ).rejects.toThrow();
  });
});

describe("GitHub login: bounded, timed answers", () => {
  /** GitHub's token endpoint answering `tokenAnswer`, and /user as usual; records each request's init. */
  function stubGitHubAnswering(tokenAnswer: () => Response) {
    const inits: (RequestInit | undefined)[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      inits.push(init);
      const url = new Request(input as RequestInfo, init).url;
      if (url === "https://github.com/login/oauth/access_token") return tokenAnswer();
      if (url === "https://api.github.com/user") return Response.json({ id: 583231, login: "octocat" });
      return new Response("unexpected", { status: 500 });
    });
    return inits;
  }
  const login = () => finishLogin(settings(), new URL(`${CALLBACK}?code=gh-code&state=s`), CALLBACK, newSecrets(settings()));

  it("gives every request to GitHub a time limit and follows no redirect", async () => {
    const inits = stubGitHubAnswering(() => Response.json({ access_token: "gho_upstream", token_type: "bearer" }));
    await expect(login()).resolves.toMatchObject({ id: "github-583231" });
    expect(inits).toHaveLength(2);
    for (const init of inits) expect(init).toMatchObject({ redirect: "manual", signal: expect.any(AbortSignal) });
  });

  it("refuses a token response over 64 KiB (65,536 bytes), which it never holds whole", async () => {
    const padded = JSON.stringify({ access_token: "gho_upstream", token_type: "bearer", pad: "x".repeat(70_000) });
    stubGitHubAnswering(() => new Response(padded, { headers: { "content-type": "application/json" } }));
    await expect(login()).rejects.toThrow("answered more than 65536 bytes");
  });

  it("refuses a DPoP-bound token: tools are handed it as a bearer token", async () => {
    stubGitHubAnswering(() => Response.json({ access_token: "gho_upstream", token_type: "DPoP" }));
    await expect(login()).rejects.toThrow("the token response is not a bearer token");
  });
});

describe("OpenID Connect login", () => {
  const ISSUER = "https://login.example";
  const oidc = (overrides: Partial<AuthServerSettings> = {}): AuthServerSettings => ({
    ...settings(),
    login: "oidc",
    issuer: ISSUER,
    clientId: "upstream-client",
    clientSecret: "upstream-secret",
    scopes: ["openid", "profile"],
    ...overrides,
  });
  const documentOf = (issuer: string) => ({
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/jwks`,
    id_token_signing_alg_values_supported: ["RS256"],
  });
  const DOCUMENT = documentOf(ISSUER);
  /**
   * The person's id as docs/security.md states it: `oidc-`, the issuer's tag (the first 16 bytes of SHA-256 of the
   * issuer identifier, base64url: 22 characters), `-`, and the percent-encoded `sub`.
   */
  async function personId(issuer: string, sub: string): Promise<string> {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(issuer)));
    return `oidc-${digest.subarray(0, 16).toBase64({ alphabet: "base64url", omitPadding: true })}-${encodeURIComponent(sub)}`;
  }
  let signer: CryptoKey;
  let stranger: CryptoKey;
  let jwks: unknown;

  beforeAll(async () => {
    const [pair, other] = await Promise.all([generateKeyPair("RS256"), generateKeyPair("RS256")]);
    signer = pair.privateKey;
    stranger = other.privateKey;
    jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "RS256", use: "sig" }] };
  });

  /**
   * The provider: discovery (`document`, or a status), keys, and a token endpoint that answers an ID token for the
   * nonce of the authorization URL this server built (signed with `key`). Returns every URL fetched.
   */
  function stubProvider(
    options: { issuer?: string; document?: unknown; discoveryStatus?: number; key?: () => CryptoKey; nonce?: () => string } = {},
  ) {
    const fetched: string[] = [];
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const url = new Request(input as RequestInfo, init).url;
      fetched.push(url);
      // By path: an http issuer's URLs (a setting src/config/settings.ts would refuse) answer too, so only the client refuses them.
      const path = new URL(url).pathname;
      if (path === "/.well-known/openid-configuration") {
        return options.discoveryStatus
          ? new Response("down", { status: options.discoveryStatus })
          : Response.json(options.document ?? DOCUMENT);
      }
      if (path === "/jwks") return Response.json(jwks);
      if (path === "/token") {
        const idToken = await new SignJWT({ name: "Alice", nonce: options.nonce?.() })
          .setProtectedHeader({ alg: "RS256", kid: "k1" })
          .setIssuer(options.issuer ?? ISSUER)
          .setAudience("upstream-client")
          .setSubject("alice@0001")
          .setIssuedAt()
          .setExpirationTime("5m")
          .sign(options.key?.() ?? signer);
        return Response.json({ access_token: "oidc-access", token_type: "Bearer", id_token: idToken });
      }
      return new Response("no", { status: 404 });
    });
    return fetched;
  }

  /** One login: the authorization URL, then the callback with a code; the provider signs the nonce it was sent. */
  async function signIn(config: AuthServerSettings, options: Parameters<typeof stubProvider>[0] = {}) {
    const secrets = newSecrets(config);
    let sentNonce = "";
    const fetched = stubProvider({ nonce: () => sentNonce, ...options });
    const url = new URL(await loginUrl(config, await signInProvider(config), CALLBACK, "the-state", secrets));
    sentNonce = url.searchParams.get("nonce")!;
    return { fetched, url, identity: finishLogin(config, new URL(`${CALLBACK}?code=c1&state=the-state`), CALLBACK, secrets) };
  }

  it("discovers the provider once, sends PKCE S256 and a nonce, and names the person by the ID token's sub", async () => {
    const { fetched, url, identity } = await signIn(oidc());
    expect(url.origin + url.pathname).toBe(`${ISSUER}/authorize`);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("nonce")).toMatch(/^[\w-]{43}$/);
    await expect(identity).resolves.toEqual({ id: await personId(ISSUER, "alice@0001"), name: "Alice", upstreamToken: "oidc-access" });
    expect(fetched.filter((fetchedUrl) => fetchedUrl.endsWith("/openid-configuration"))).toHaveLength(1);
  });

  it("names the person by issuer and sub together: the same sub from another issuer is another person", async () => {
    // OpenID Connect Core §5.7: a sub is unique only within its issuer. Changing AUTH_LOGIN_ISSUER must not hand
    // the new issuer's "alice@0001" the data of the old issuer's "alice@0001".
    const OTHER = "https://other-login.example";
    const here = await (await signIn(oidc())).identity;
    vi.restoreAllMocks();
    const there = await (await signIn(oidc({ issuer: OTHER }), { issuer: OTHER, document: documentOf(OTHER) })).identity;
    expect(here.id).toBe(await personId(ISSUER, "alice@0001"));
    expect(there.id).toBe(await personId(OTHER, "alice@0001"));
    expect(there.id).not.toBe(here.id);
    // Short and printable: 28 characters before the sub, no ":" (an app keys its records `<principal>:<id>`).
    expect(here.id).toMatch(/^oidc-[A-Za-z0-9_-]{22}-alice%400001$/);
  });

  it("refuses an ID token that is not signed by one of the issuer's keys", async () => {
    const { identity } = await signIn(oidc(), { key: () => stranger });
    await expect(identity).rejects.toThrow("invalid token: signature");
  });

  it("refuses an ID token carrying another login's nonce", async () => {
    const { identity } = await signIn(oidc(), { nonce: () => "some-other-login" });
    await expect(identity).rejects.toThrow("invalid token: nonce");
  });

  it("tries discovery again at the next login after a failed one", async () => {
    const config = oidc();
    stubProvider({ discoveryStatus: 503 });
    const failed = signInProvider(config);
    await expect(failed).rejects.toBeInstanceOf(SignInFailure);
    await expect(failed).rejects.toMatchObject({ step: "discovery", reason: expect.stringContaining("HTTP 503") });
    vi.restoreAllMocks();
    stubProvider();
    const provider = await signInProvider(config);
    await expect(loginUrl(config, provider, CALLBACK, "s", newSecrets(config))).resolves.toMatch(/^https:\/\/login\.example\/authorize\?/);
  });

  it("refuses a discovery document whose authorization endpoint is plain http", async () => {
    const config = oidc();
    stubProvider({ document: { ...DOCUMENT, authorization_endpoint: "http://login.example/authorize" } });
    await expect(signInProvider(config)).rejects.toThrow("authorization_endpoint must be an https URL");
  });

  it("refuses an http issuer off loopback, even if the settings got past config.ts, before fetching it", async () => {
    const config = oidc({ issuer: "http://login.example" });
    const fetched = stubProvider({ document: { ...DOCUMENT, issuer: "http://login.example" } });
    await expect(signInProvider(config)).rejects.toThrow("the issuer must be an https URL");
    expect(fetched).toEqual([]);
  });
});
