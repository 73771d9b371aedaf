/**
 * The OAuth / OpenID Connect client of the upstream login (src/oauth/oauth-client.ts): discovery, the
 * authorization response, the code exchange and the ID token, each refusal on its own. The provider is a stub of
 * fetch answering its URLs; ID tokens are minted with jose (a dev tool here), so acceptance is checked against an
 * independent implementation. The whole login against a real local provider is the template's test/e2e/oauth-flow.test.ts.
 */
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  authorizationCode,
  discover,
  exchangeCode,
  type Provider,
  pkceChallenge,
  UPSTREAM_MAX_BYTES,
  verifyIdToken,
} from "../../src/oauth/oauth-client";

const ISSUER = "https://login.example";
const CLIENT = { id: "upstream-client", secret: "upstream-secret" };
const NONCE = "this-logins-nonce";
const CALLBACK = "https://mcp.example/oauth/callback";

const DOCUMENT = {
  issuer: ISSUER,
  authorization_endpoint: `${ISSUER}/authorize`,
  token_endpoint: `${ISSUER}/token`,
  jwks_uri: `${ISSUER}/jwks`,
  response_types_supported: ["code"],
  subject_types_supported: ["public"],
  id_token_signing_alg_values_supported: ["RS256"],
};

type Pair = { privateKey: CryptoKey; publicKey: CryptoKey };
let rsa: Pair;
let otherRsa: Pair;
let ec: Pair;
let jwks: unknown;

beforeAll(async () => {
  [rsa, otherRsa, ec] = await Promise.all([generateKeyPair("RS256"), generateKeyPair("RS256"), generateKeyPair("ES256")]);
  jwks = {
    keys: [
      { ...(await exportJWK(rsa.publicKey)), kid: "rs", alg: "RS256", use: "sig" },
      { ...(await exportJWK(ec.publicKey)), kid: "ec", alg: "ES256", use: "sig" },
    ],
  };
});

afterEach(() => {
  vi.restoreAllMocks();
});

interface Sent {
  url: string;
  method: string;
  redirect: string;
  headers: Headers;
  body: string;
}

/**
 * Replaces fetch: each URL answers what `routes` gives it (a value is answered as JSON, a Response as is); every
 * other URL answers 404. The discovery document and the key set answer by default. Returns what was sent, in order.
 */
function provider(routes: Record<string, unknown> = {}): Sent[] {
  const sent: Sent[] = [];
  const answers: Record<string, unknown> = {
    [`${ISSUER}/.well-known/openid-configuration`]: DOCUMENT,
    [`${ISSUER}/jwks`]: jwks,
    ...routes,
  };
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    sent.push({
      url: request.url,
      method: request.method,
      redirect: init?.redirect ?? "follow",
      headers: request.headers,
      // As bytes: workerd warns when text() reads a body whose type is not text (these are forms).
      body: new TextDecoder().decode(await request.arrayBuffer()),
    });
    const answer = answers[request.url];
    if (answer === undefined) return new Response("no", { status: 404 });
    return answer instanceof Response ? answer : Response.json(answer);
  });
  return sent;
}

/** A body of exactly `bytes` bytes that is a JSON object holding `value`'s members (padded with a filler member). */
function jsonOfSize(value: Record<string, unknown>, bytes: number): string {
  const empty = JSON.stringify({ ...value, pad: "" });
  return JSON.stringify({ ...value, pad: "x".repeat(bytes - empty.length) });
}

/** A body that arrives in chunks without a declared length, so only counting while reading can cap it. */
function streamed(text: string): Response {
  const bytes = new TextEncoder().encode(text);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let offset = 0; offset < bytes.length; offset += 4096) controller.enqueue(bytes.slice(offset, offset + 4096));
      controller.close();
    },
  });
  return new Response(stream, { headers: { "content-type": "application/json" } });
}

const now = () => Math.floor(Date.now() / 1000);

/** An ID token as the provider would mint it for this login; `undefined` leaves a claim (or the `typ`) out. */
function idToken(
  claims: Record<string, unknown> = {},
  { alg = "RS256", kid = "rs", key = rsa.privateKey, typ = "JWT" as string | undefined } = {},
): Promise<string> {
  const all: Record<string, unknown> = {
    iss: ISSUER,
    aud: CLIENT.id,
    sub: "alice-0001",
    nonce: NONCE,
    iat: now(),
    exp: now() + 300,
    ...claims,
  };
  const payload = Object.fromEntries(Object.entries(all).filter(([, value]) => value !== undefined));
  return new SignJWT(payload).setProtectedHeader({ alg, kid, ...(typ !== undefined && { typ }) }).sign(key);
}

describe("discovery", () => {
  it("reads the endpoints from the issuer's /.well-known/openid-configuration, without following redirects", async () => {
    const sent = provider();
    const found = await discover(ISSUER);
    expect(found).toMatchObject({
      issuer: ISSUER,
      authorizationEndpoint: `${ISSUER}/authorize`,
      tokenEndpoint: `${ISSUER}/token`,
      requiresIssParameter: false,
      idToken: { algorithms: ["RS256"] },
    });
    expect(sent).toMatchObject([{ url: `${ISSUER}/.well-known/openid-configuration`, method: "GET", redirect: "manual" }]);
    expect(sent[0]!.headers.get("accept")).toBe("application/json");
  });

  it("appends the well-known path to an issuer with a path, after its trailing slash", async () => {
    const issuer = "https://login.example/tenant/";
    const sent = provider({ "https://login.example/tenant/.well-known/openid-configuration": { ...DOCUMENT, issuer } });
    await expect(discover(issuer)).resolves.toMatchObject({ issuer });
    expect(sent[0]!.url).toBe("https://login.example/tenant/.well-known/openid-configuration");
  });

  it("refuses a document that names another issuer, another path on the same host included", async () => {
    for (const issuer of ["https://evil.example", "https://login.example/other", "http://login.example", undefined]) {
      provider({ [`${ISSUER}/.well-known/openid-configuration`]: { ...DOCUMENT, issuer } });
      await expect(discover(ISSUER), String(issuer)).rejects.toThrow("the discovery document names another issuer");
      vi.restoreAllMocks();
    }
  });

  it("matches the configured issuer to the document's as parsed URLs, and keeps the document's spelling for iss", async () => {
    provider({ [`${ISSUER}/.well-known/openid-configuration`]: { ...DOCUMENT, issuer: `${ISSUER}/` } });
    await expect(discover(ISSUER)).resolves.toMatchObject({ issuer: `${ISSUER}/` });
  });

  it("refuses an http issuer off loopback before fetching anything", async () => {
    const sent = provider();
    await expect(discover("http://login.example")).rejects.toThrow("the issuer must be an https URL");
    expect(sent).toEqual([]);
  });

  it("accepts a loopback http issuer whose endpoints are on loopback, and refuses one whose endpoint is not", async () => {
    const issuer = "http://127.0.0.1:9999";
    const local = {
      ...DOCUMENT,
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${issuer}/jwks`,
    };
    provider({ [`${issuer}/.well-known/openid-configuration`]: local });
    await expect(discover(issuer)).resolves.toMatchObject({ tokenEndpoint: `${issuer}/token` });
    vi.restoreAllMocks();
    provider({ [`${issuer}/.well-known/openid-configuration`]: { ...local, token_endpoint: "http://login.example/token" } });
    await expect(discover(issuer)).rejects.toThrow("token_endpoint must be an https URL");
  });

  it("refuses an https issuer's document that names a plain http endpoint, even on loopback", async () => {
    for (const [name, value] of [
      ["authorization_endpoint", "http://login.example/authorize"],
      ["token_endpoint", "http://127.0.0.1/token"],
      ["jwks_uri", "http://login.example/jwks"],
    ]) {
      provider({ [`${ISSUER}/.well-known/openid-configuration`]: { ...DOCUMENT, [name!]: value } });
      await expect(discover(ISSUER), name).rejects.toThrow(`${name} must be an https URL`);
      vi.restoreAllMocks();
    }
  });

  it("refuses a document without an endpoint it needs", async () => {
    for (const name of ["authorization_endpoint", "token_endpoint", "jwks_uri"]) {
      provider({ [`${ISSUER}/.well-known/openid-configuration`]: { ...DOCUMENT, [name]: undefined } });
      await expect(discover(ISSUER), name).rejects.toThrow(`the discovery document has no ${name}`);
      vi.restoreAllMocks();
    }
  });

  it("refuses an issuer with a query or a fragment", async () => {
    provider();
    await expect(discover(`${ISSUER}/?tenant=a`)).rejects.toThrow("the issuer must not have a query or fragment");
  });

  it("refuses a redirect, an error status and a body that is not a JSON object", async () => {
    const url = `${ISSUER}/.well-known/openid-configuration`;
    for (const answer of [
      new Response(null, { status: 302, headers: { location: "https://evil.example/.well-known/openid-configuration" } }),
      new Response("down", { status: 503 }),
      new Response("<html>not json</html>", { status: 200 }),
      Response.json(["an", "array"]),
    ]) {
      const sent = provider({ [url]: answer });
      await expect(discover(ISSUER)).rejects.toThrow("the discovery document was not fetched");
      expect(sent.map((request) => request.url)).toEqual([url]);
      vi.restoreAllMocks();
    }
  });

  it(`accepts a document of ${UPSTREAM_MAX_BYTES} bytes and refuses one a byte longer, declared or not`, async () => {
    const url = `${ISSUER}/.well-known/openid-configuration`;
    provider({ [url]: streamed(jsonOfSize(DOCUMENT, UPSTREAM_MAX_BYTES)) });
    await expect(discover(ISSUER)).resolves.toMatchObject({ issuer: ISSUER });
    vi.restoreAllMocks();
    provider({ [url]: streamed(jsonOfSize(DOCUMENT, UPSTREAM_MAX_BYTES + 1)) });
    await expect(discover(ISSUER)).rejects.toThrow(`login.example answered more than ${UPSTREAM_MAX_BYTES} bytes`);
    vi.restoreAllMocks();
    // Declared too large: refused on the header, whatever the body.
    const declared = new Response(JSON.stringify(DOCUMENT), { headers: { "content-length": String(UPSTREAM_MAX_BYTES + 1) } });
    provider({ [url]: declared });
    await expect(discover(ISSUER)).rejects.toThrow(`answered more than ${UPSTREAM_MAX_BYTES} bytes`);
  });

  it("keeps only the listed ID token algorithms this server verifies, RS256 when none are listed, and refuses none at all", async () => {
    const url = `${ISSUER}/.well-known/openid-configuration`;
    provider({ [url]: { ...DOCUMENT, id_token_signing_alg_values_supported: ["HS256", "none", "ES256", "RS256", 7] } });
    await expect(discover(ISSUER)).resolves.toMatchObject({ idToken: { algorithms: ["ES256", "RS256"] } });
    vi.restoreAllMocks();
    provider({ [url]: { ...DOCUMENT, id_token_signing_alg_values_supported: undefined } });
    await expect(discover(ISSUER)).resolves.toMatchObject({ idToken: { algorithms: ["RS256"] } });
    vi.restoreAllMocks();
    provider({ [url]: { ...DOCUMENT, id_token_signing_alg_values_supported: ["HS256", "none"] } });
    await expect(discover(ISSUER)).rejects.toThrow("no algorithm this server verifies");
  });

  it("requires the iss parameter when the document says the provider sends it (RFC 9207)", async () => {
    provider({ [`${ISSUER}/.well-known/openid-configuration`]: { ...DOCUMENT, authorization_response_iss_parameter_supported: true } });
    await expect(discover(ISSUER)).resolves.toMatchObject({ requiresIssParameter: true });
  });
});

describe("PKCE", () => {
  it("derives the S256 challenge of RFC 7636's example verifier", async () => {
    // RFC 7636 Appendix B.
    await expect(pkceChallenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")).resolves.toBe("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
  });
});

describe("the authorization response", () => {
  const PROVIDER: Provider = { issuer: ISSUER, authorizationEndpoint: "", tokenEndpoint: "", requiresIssParameter: false };
  const STRICT: Provider = { ...PROVIDER, requiresIssParameter: true };
  const answer = (query: string) => new URL(`${CALLBACK}?${query}`);

  it("gives the code, with or without an iss naming this issuer", () => {
    expect(authorizationCode(PROVIDER, answer("code=c1&state=s"))).toBe("c1");
    expect(authorizationCode(PROVIDER, answer(`code=c1&state=s&iss=${encodeURIComponent(ISSUER)}`))).toBe("c1");
    expect(authorizationCode(STRICT, answer(`code=c1&iss=${encodeURIComponent(ISSUER)}`))).toBe("c1");
  });

  it("refuses an error parameter, with its code only", () => {
    expect(() => authorizationCode(PROVIDER, answer("error=access_denied&error_description=no%20thanks&state=s"))).toThrow(
      /^the provider answered with an error \(access_denied\)$/,
    );
  });

  it("refuses an answer without a code, or with an empty one", () => {
    expect(() => authorizationCode(PROVIDER, answer("state=s"))).toThrow("the authorization response has no code");
    expect(() => authorizationCode(PROVIDER, answer("code=&state=s"))).toThrow("the authorization response has no code");
  });

  it("refuses an iss naming another issuer (a mix-up), and a missing iss when the provider promised one", () => {
    expect(() => authorizationCode(PROVIDER, answer("code=c1&iss=https%3A%2F%2Fevil.example"))).toThrow("does not name this issuer");
    // Exactly the issuer's spelling: a trailing slash is another string.
    expect(() => authorizationCode(PROVIDER, answer(`code=c1&iss=${encodeURIComponent(`${ISSUER}/`)}`))).toThrow(
      "does not name this issuer",
    );
    expect(() => authorizationCode(STRICT, answer("code=c1"))).toThrow("does not name this issuer");
  });

  it("refuses a parameter given twice", () => {
    expect(() => authorizationCode(PROVIDER, answer("code=c1&code=c2"))).toThrow("more than one code");
    expect(() => authorizationCode(PROVIDER, answer(`code=c1&iss=${encodeURIComponent(ISSUER)}&iss=x`))).toThrow("more than one iss");
  });
});

describe("the code exchange", () => {
  const TOKEN = `${ISSUER}/token`;
  const PROVIDER: Provider = { issuer: ISSUER, authorizationEndpoint: "", tokenEndpoint: TOKEN, requiresIssParameter: false };
  const exchange = () => exchangeCode(PROVIDER, CLIENT, "the-code", CALLBACK, "the-verifier");

  it("posts the code, redirect URI, verifier and client secret as a form, asks for JSON, and follows no redirect", async () => {
    const sent = provider({ [TOKEN]: { access_token: "at-1", token_type: "Bearer", expires_in: 300 } });
    await expect(exchange()).resolves.toMatchObject({ access_token: "at-1" });
    expect(sent).toMatchObject([{ url: TOKEN, method: "POST", redirect: "manual" }]);
    expect(sent[0]!.headers.get("content-type")).toBe("application/x-www-form-urlencoded;charset=UTF-8");
    expect(sent[0]!.headers.get("accept")).toBe("application/json");
    expect(sent[0]!.headers.get("authorization")).toBeNull();
    expect(Object.fromEntries(new URLSearchParams(sent[0]!.body))).toEqual({
      grant_type: "authorization_code",
      code: "the-code",
      redirect_uri: CALLBACK,
      code_verifier: "the-verifier",
      client_id: CLIENT.id,
      client_secret: CLIENT.secret,
    });
  });

  it("accepts the bearer token type in any case, and refuses any other type", async () => {
    for (const type of ["bearer", "BEARER"]) {
      provider({ [TOKEN]: { access_token: "at-1", token_type: type } });
      await expect(exchange(), type).resolves.toMatchObject({ access_token: "at-1" });
      vi.restoreAllMocks();
    }
    for (const type of ["DPoP", "mac", "", undefined]) {
      provider({ [TOKEN]: { access_token: "at-secret", token_type: type } });
      const refusal = exchange();
      await expect(refusal, String(type)).rejects.toThrow("the token response is not a bearer token");
      await expect(refusal).rejects.not.toThrow("at-secret");
      vi.restoreAllMocks();
    }
  });

  it("refuses a response without an access token, telling the OAuth error code and nothing else", async () => {
    // GitHub answers a refused code with 200 and an error member.
    provider({ [TOKEN]: { error: "bad_verification_code", error_description: "The code is wrong", refresh_token: "rt-secret" } });
    await expect(exchange()).rejects.toThrow(/^the token response has no access token \(bad_verification_code\)$/);
    vi.restoreAllMocks();
    provider({ [TOKEN]: { access_token: 42, token_type: "Bearer" } });
    await expect(exchange()).rejects.toThrow(/^the token response has no access token$/);
  });

  it("refuses an error status with its status and error code, never the body", async () => {
    provider({ [TOKEN]: Response.json({ error: "invalid_grant", error_description: "id_token=eyJ.secret" }, { status: 400 }) });
    await expect(exchange()).rejects.toThrow(/^the token endpoint answered HTTP 400 \(invalid_grant\)$/);
    vi.restoreAllMocks();
    provider({ [TOKEN]: Response.json({ error: "eyJhbGciOiJSUzI1NiJ9.quoted token" }, { status: 401 }) });
    await expect(exchange()).rejects.toThrow(/^the token endpoint answered HTTP 401$/);
    vi.restoreAllMocks();
    provider({ [TOKEN]: new Response(null, { status: 307, headers: { location: "https://evil.example/token" } }) });
    await expect(exchange()).rejects.toThrow(/^the token endpoint answered HTTP 307$/);
  });

  it(`accepts a token response of ${UPSTREAM_MAX_BYTES} bytes and refuses one a byte longer`, async () => {
    const tokens = { access_token: "at-1", token_type: "Bearer" };
    provider({ [TOKEN]: streamed(jsonOfSize(tokens, UPSTREAM_MAX_BYTES)) });
    await expect(exchange()).resolves.toMatchObject({ access_token: "at-1" });
    vi.restoreAllMocks();
    provider({ [TOKEN]: streamed(jsonOfSize(tokens, UPSTREAM_MAX_BYTES + 1)) });
    await expect(exchange()).rejects.toThrow(`login.example answered more than ${UPSTREAM_MAX_BYTES} bytes`);
  });
});

describe("the ID token", () => {
  /** The provider as discovered, its keys fetched from the stub's jwks_uri; `document` changes the discovery document. */
  async function discovered(document: Record<string, unknown> = {}): Promise<Provider> {
    provider({ [`${ISSUER}/.well-known/openid-configuration`]: { ...DOCUMENT, ...document } });
    return discover(ISSUER);
  }
  const verify = async (token: string | undefined, nonce = NONCE, found?: Provider) =>
    verifyIdToken(found ?? (await discovered()), token, CLIENT.id, nonce);

  it("accepts this login's ID token, signed by the issuer's key, and gives its claims", async () => {
    await expect(verify(await idToken({ name: "Alice" }))).resolves.toMatchObject({ sub: "alice-0001", name: "Alice", nonce: NONCE });
  });

  it("accepts several audiences when the authorized party is this client", async () => {
    await expect(verify(await idToken({ aud: [CLIENT.id, "another-client"], azp: CLIENT.id }))).resolves.toMatchObject({
      sub: "alice-0001",
    });
  });

  it("refuses a token for another client, or several audiences without this client as the authorized party", async () => {
    await expect(verify(await idToken({ aud: "another-client" }))).rejects.toThrow("invalid token: aud");
    await expect(verify(await idToken({ aud: ["another-client", "third"] }))).rejects.toThrow("invalid token: aud");
    await expect(verify(await idToken({ aud: [CLIENT.id, "another-client"] }))).rejects.toThrow("invalid token: azp");
    await expect(verify(await idToken({ aud: [CLIENT.id, "another-client"], azp: "another-client" }))).rejects.toThrow(
      "invalid token: azp",
    );
  });

  it("accepts an authorized party (azp) that names this client, with one audience or several", async () => {
    await expect(verify(await idToken({ azp: CLIENT.id }))).resolves.toMatchObject({ sub: "alice-0001" });
    await expect(verify(await idToken({ aud: [CLIENT.id], azp: CLIENT.id }))).resolves.toMatchObject({ sub: "alice-0001" });
  });

  it("refuses an authorized party (azp) that names another client, even when the audience is this client alone", async () => {
    // OpenID Connect Core §3.1.3.7: when azp is present it must be this client, whatever aud says.
    await expect(verify(await idToken({ azp: "another-client" }))).rejects.toThrow("invalid token: azp");
    await expect(verify(await idToken({ aud: [CLIENT.id], azp: "another-client" }))).rejects.toThrow("invalid token: azp");
    await expect(verify(await idToken({ azp: 7 }))).rejects.toThrow("invalid token: azp");
  });

  it("refuses an iat more than the 30 s clock tolerance in the future, as a future nbf is, and accepts one within it", async () => {
    await expect(verify(await idToken({ iat: now() + 365 * 86_400, exp: now() + 366 * 86_400 }))).rejects.toThrow("invalid token: iat");
    await expect(verify(await idToken({ iat: now() + 35 }))).rejects.toThrow("invalid token: iat");
    await expect(verify(await idToken({ iat: now() + 25 }))).resolves.toMatchObject({ sub: "alice-0001" });
    await expect(verify(await idToken({ nbf: now() + 35 }))).rejects.toThrow("invalid token: nbf");
  });

  it("accepts an ID token typed JWT (any case, with or without application/) or not typed at all", async () => {
    for (const typ of ["JWT", "jwt", "application/jwt", undefined]) {
      await expect(verify(await idToken({}, { typ })), String(typ)).resolves.toMatchObject({ sub: "alice-0001" });
    }
  });

  it("refuses an ID token typed as an access token (at+jwt), or as any other kind of JWT the issuer signs", async () => {
    // RFC 8725 §3.11: explicit typing keeps one kind of token from passing as another; RFC 9068 access tokens say at+jwt.
    for (const typ of ["at+jwt", "application/at+jwt", "AT+JWT", "logout+jwt", "dpop+jwt", "secevent+jwt", "JOSE"]) {
      await expect(verify(await idToken({}, { typ })), typ).rejects.toThrow("invalid token: typ");
    }
  });

  it("refuses a token from another issuer, even signed by this issuer's key", async () => {
    await expect(verify(await idToken({ iss: "https://evil.example" }))).rejects.toThrow("invalid token: iss");
    await expect(verify(await idToken({ iss: `${ISSUER}/` }))).rejects.toThrow("invalid token: iss");
  });

  it("refuses a token with another login's nonce, or none, and any token when this login has no nonce", async () => {
    await expect(verify(await idToken({ nonce: "some-other-login" }))).rejects.toThrow("invalid token: nonce");
    await expect(verify(await idToken({ nonce: undefined }))).rejects.toThrow("invalid token: nonce");
    const tokenWithoutNonce = await idToken({ nonce: undefined });
    await expect(verifyIdToken(await discovered(), tokenWithoutNonce, CLIENT.id, undefined)).rejects.toThrow("this login has no nonce");
  });

  it("refuses a token expired beyond the 30 s clock tolerance, and one without iat", async () => {
    await expect(verify(await idToken({ exp: now() - 31, iat: now() - 400 }))).rejects.toThrow("invalid token: exp");
    await expect(verify(await idToken({ exp: undefined }))).rejects.toThrow("invalid token: exp");
    await expect(verify(await idToken({ iat: undefined }))).rejects.toThrow("invalid token: iat");
  });

  it("refuses a token without a subject", async () => {
    await expect(verify(await idToken({ sub: undefined }))).rejects.toThrow("invalid token: sub");
    await expect(verify(await idToken({ sub: "" }))).rejects.toThrow("invalid token: sub");
  });

  it("refuses a token signed by a key that is not the issuer's, under the issuer's kid", async () => {
    await expect(verify(await idToken({}, { key: otherRsa.privateKey }))).rejects.toThrow("invalid token: signature");
  });

  it("refuses an algorithm the discovery document does not list, though the issuer has a key for it", async () => {
    const es256 = await idToken({}, { alg: "ES256", kid: "ec", key: ec.privateKey });
    await expect(verify(es256)).rejects.toThrow("invalid token: algorithm not allowed");
    // The same token passes once the document lists ES256: the refusal above is the algorithm's, not the key's.
    await expect(
      verify(es256, NONCE, await discovered({ id_token_signing_alg_values_supported: ["RS256", "ES256"] })),
    ).resolves.toMatchObject({
      sub: "alice-0001",
    });
  });

  it("refuses a token response without an ID token", async () => {
    await expect(verify(undefined)).rejects.toThrow("the token response has no ID token");
    await expect(verify("")).rejects.toThrow("the token response has no ID token");
  });

  it("refuses an ID token for a provider that issues none (GitHub)", async () => {
    const github: Provider = { issuer: ISSUER, authorizationEndpoint: "", tokenEndpoint: "", requiresIssParameter: false };
    await expect(verify(await idToken(), NONCE, github)).rejects.toThrow("this provider issues no ID tokens");
  });
});
