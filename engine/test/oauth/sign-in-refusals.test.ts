/**
 * A sign-in the upstream provider cannot complete, through the real Worker in authorization-server mode: every
 * request to the provider on the way (OpenID Connect discovery at /authorize, then at the callback the code
 * exchange, the key set the ID token is checked with, and GitHub's user record), each failing in each way found.
 * Every one is the refusal a bad ID token gets: `access_denied` at the client's redirect URI with its `state`, never
 * a 500 or the runtime's error page, and one log line naming the step and the cause. fetch is stubbed: the provider
 * is a function of the URL asked.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { authorizationServer, createMcpWorker } from "../../src";
import { authorizePath, formPost, jsonPost, LOGIN, ORIGIN, REDIRECT_URI } from "../helpers/auth-server";
import { FIXTURE } from "../helpers/fixture";

const ISSUER = LOGIN.AUTH_LOGIN_ISSUER;
const DISCOVERY_URL = `${ISSUER}/.well-known/openid-configuration`;
const DOCUMENT = {
  issuer: ISSUER,
  authorization_endpoint: `${ISSUER}/authorize`,
  token_endpoint: `${ISSUER}/token`,
  jwks_uri: `${ISSUER}/jwks`,
  id_token_signing_alg_values_supported: ["RS256"],
};

/** What the stubbed provider does for one URL: answer, or fail the fetch as the runtime does (unreachable, timeout). */
type Answer = Response | Error | ((nonce: string) => Response | Promise<Response>);
/** The runtime's fetch rejections: a host it cannot reach, and the 5 s AbortSignal.timeout of every upstream request. */
const UNREACHABLE = () => new TypeError("Network connection lost.");
const TIMED_OUT = () => new DOMException("The operation was aborted due to timeout", "TimeoutError");

let signer: CryptoKey;
let jwks: unknown;

beforeAll(async () => {
  const pair = await generateKeyPair("RS256");
  signer = pair.privateKey;
  jwks = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "RS256", use: "sig" }] };
});

/** A valid ID token for this login's nonce. */
const idTokenFor = (nonce: string) =>
  new SignJWT({ nonce })
    .setProtectedHeader({ alg: "RS256", kid: "k1", typ: "JWT" })
    .setIssuer(ISSUER)
    .setAudience(LOGIN.AUTH_LOGIN_CLIENT_ID)
    .setSubject("alice-0001")
    .setIssuedAt()
    .setExpirationTime("5m")
    .sign(signer);

/** The OpenID Connect provider and GitHub as they answer when all is well; a test replaces some of the answers. */
function defaultAnswers(): Record<string, Answer> {
  return {
    [DISCOVERY_URL]: () => Response.json(DOCUMENT),
    [`${ISSUER}/jwks`]: () => Response.json(jwks),
    [`${ISSUER}/token`]: async (nonce) => Response.json({ access_token: "at", token_type: "Bearer", id_token: await idTokenFor(nonce) }),
    "https://github.com/login/oauth/access_token": () => Response.json({ access_token: "gho_at", token_type: "bearer" }),
    "https://api.github.com/user": () => Response.json({ id: 583231, login: "octocat" }),
  };
}

let warnings: Record<string, unknown>[];
/** The nonce this server sent the provider (read from the authorization URL), which the token endpoint signs. */
let sentNonce = "";

beforeEach(() => {
  warnings = [];
  sentNonce = "";
  vi.spyOn(console, "warn").mockImplementation((line: unknown) => {
    warnings.push(JSON.parse(String(line)));
  });
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** Replaces fetch: each URL gets its answer from `answers` over the defaults; any other URL answers 404. */
function provider(answers: Record<string, Answer> = {}): string[] {
  const fetched: string[] = [];
  const all = { ...defaultAnswers(), ...answers };
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const url = new Request(input as RequestInfo, init).url;
    fetched.push(url);
    const answer = all[url];
    if (answer === undefined) return new Response("no", { status: 404 });
    if (answer instanceof Error) throw answer;
    return answer instanceof Response ? answer : answer(sentNonce);
  });
  return fetched;
}

/** A Worker of its own (so its discovery is not one an earlier test cached), with the test's login settings. */
function worker(vars: Record<string, string | undefined> = {}) {
  const mcp = createMcpWorker({ ...FIXTURE, authorizationServer });
  const bindings = { ...env, ...LOGIN, OAUTH_RATE_LIMITER: undefined, ...vars } as unknown as Env;
  return (path: string, init?: RequestInit) => mcp.fetch(new Request(`${ORIGIN}${path}`, init), bindings, createExecutionContext());
}
type Call = ReturnType<typeof worker>;

/** The `name=value` pairs a response sets, as the Cookie header a browser would send back. */
const cookiesOf = (response: Response) =>
  response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(";")[0])
    .join("; ");

/** A client registers and asks to authorize: the consent page, its form's handle and the cookie that binds it. */
async function consentPage(call: Call) {
  const registration = { client_name: "Client", redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: "none" };
  const { client_id } = (await (await call("/register", jsonPost(registration))).json()) as { client_id: string };
  const page = await call(authorizePath(client_id));
  expect(page.status).toBe(200);
  const handle = /name="handle" value="([^"]+)"/.exec(await page.text())![1]!;
  return { handle, cookie: cookiesOf(page) };
}

/** Consent, approval, and the redirect to the provider: the state and cookie its callback must come back with. */
async function sentToProvider(call: Call) {
  const { handle, cookie } = await consentPage(call);
  const approved = await call("/authorize", formPost({ handle, decision: "approve" }, { cookie }));
  expect(approved.status).toBe(302);
  const login = new URL(approved.headers.get("location")!);
  sentNonce = login.searchParams.get("nonce") ?? "";
  return { state: login.searchParams.get("state")!, cookie: cookiesOf(approved) };
}

/** The provider sends the person back with a code. */
async function callback(call: Call) {
  const { state, cookie } = await sentToProvider(call);
  return call(`/oauth/callback?code=c1&state=${encodeURIComponent(state)}`, { headers: { cookie } });
}

/** The refusal: access_denied back at the client with its state, and one log line naming the step and the cause. */
function expectRefused(response: Response, step: string, reason: string) {
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get("location")!);
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
  expect(location.searchParams.get("error")).toBe("access_denied");
  expect(location.searchParams.get("state")).toBe("client-state");
  expect(location.searchParams.has("code")).toBe(false);
  expect(refusals()).toEqual([{ level: "warn", message: "upstream sign-in refused", step, reason: expect.stringContaining(reason) }]);
}

/** The log lines of refused sign-ins (the Worker's startup line is a warning too, in development). */
const refusals = () => warnings.filter((line) => line.message === "upstream sign-in refused");

describe("a provider whose discovery fails, at GET /authorize", () => {
  const failures: [string, Answer, string][] = [
    ["is unreachable", UNREACHABLE(), "login.example could not be reached"],
    ["does not answer within 5 s", TIMED_OUT(), "login.example did not answer within 5000 ms"],
    ["answers an error status", new Response("down", { status: 503 }), "the discovery document was not fetched (HTTP 503"],
    ["answers something that is not JSON", new Response("<html>maintenance</html>"), "not a JSON object"],
    ["names another issuer", Response.json({ ...DOCUMENT, issuer: "https://evil.example" }), "the discovery document names another issuer"],
    [
      "names a plain http key set on another host",
      Response.json({ ...DOCUMENT, jwks_uri: "http://keys.example/jwks" }),
      "jwks_uri must be an https URL",
    ],
    [
      "names no authorization endpoint",
      Response.json({ ...DOCUMENT, authorization_endpoint: undefined }),
      "the discovery document has no authorization_endpoint",
    ],
  ];
  for (const [what, answer, reason] of failures) {
    it(`refuses the sign-in with access_denied and a log line when the provider ${what}`, async () => {
      const call = worker();
      const registration = { client_name: "Client", redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: "none" };
      provider({ [DISCOVERY_URL]: answer });
      const { client_id } = (await (await call("/register", jsonPost(registration))).json()) as { client_id: string };
      expectRefused(await call(authorizePath(client_id)), "discovery", reason);
    });
  }

  it("refuses the approval the same way when discovery fails after the consent page was shown (another isolate)", async () => {
    provider();
    const { handle, cookie } = await consentPage(worker());
    vi.mocked(fetch).mockRestore();
    provider({ [DISCOVERY_URL]: UNREACHABLE() });
    const approved = await worker()("/authorize", formPost({ handle, decision: "approve" }, { cookie }));
    expectRefused(approved, "discovery", "login.example could not be reached");
  });

  it("tries discovery again at the next request, and then serves the consent page", async () => {
    const call = worker();
    provider({ [DISCOVERY_URL]: UNREACHABLE() });
    const registration = { client_name: "Client", redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: "none" };
    const { client_id } = (await (await call("/register", jsonPost(registration))).json()) as { client_id: string };
    expectRefused(await call(authorizePath(client_id)), "discovery", "could not be reached");
    vi.mocked(fetch).mockRestore();
    provider();
    expect((await call(authorizePath(client_id))).status).toBe(200);
  });
});

describe("a provider that fails at the callback", () => {
  it("signs the person in when every answer is right (the harness the refusals below are measured against)", async () => {
    provider();
    const response = await callback(worker());
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location")!);
    expect(location.searchParams.get("code")).toBeTruthy();
    expect(location.searchParams.get("error")).toBeNull();
    expect(refusals()).toEqual([]);
  });

  const failures: [string, Record<string, Answer>, string, string][] = [
    ["its token endpoint is unreachable", { [`${ISSUER}/token`]: UNREACHABLE() }, "token exchange", "login.example could not be reached"],
    ["its token endpoint times out", { [`${ISSUER}/token`]: TIMED_OUT() }, "token exchange", "did not answer within 5000 ms"],
    [
      "its token endpoint answers an error",
      { [`${ISSUER}/token`]: Response.json({ error: "invalid_grant" }, { status: 400 }) },
      "token exchange",
      "the token endpoint answered HTTP 400 (invalid_grant)",
    ],
    [
      "its token endpoint answers something that is not JSON",
      { [`${ISSUER}/token`]: new Response("<html>oops</html>") },
      "token exchange",
      "the token response has no access token",
    ],
    [
      "its key set is unreachable",
      { [`${ISSUER}/jwks`]: UNREACHABLE() },
      "ID token",
      "JWK Set not fetched (login.example could not be reached)",
    ],
    [
      "its key set answers an error",
      { [`${ISSUER}/jwks`]: new Response("gone", { status: 404 }) },
      "ID token",
      "JWK Set not fetched (HTTP 404",
    ],
    ["its key set is not JSON", { [`${ISSUER}/jwks`]: new Response("<html>keys</html>") }, "ID token", "the JWK Set is not UTF-8 JSON"],
    ["its key set is not a JWK Set", { [`${ISSUER}/jwks`]: Response.json({ keys: "none" }) }, "ID token", "not a JWK Set"],
    [
      "its ID token carries another login's nonce",
      { [`${ISSUER}/token`]: async () => Response.json({ access_token: "at", token_type: "Bearer", id_token: await idTokenFor("other") }) },
      "ID token",
      "invalid token: nonce",
    ],
  ];
  for (const [what, answers, step, reason] of failures) {
    it(`refuses the sign-in with access_denied and a log line when ${what}`, async () => {
      provider(answers);
      expectRefused(await callback(worker()), step, reason);
    });
  }
});

describe("GitHub failing at the callback", () => {
  const github = () => worker({ AUTH_LOGIN: "github", AUTH_LOGIN_ISSUER: undefined });

  it("refuses the sign-in with access_denied and a log line when GitHub's user record is unreachable", async () => {
    provider({ "https://api.github.com/user": UNREACHABLE() });
    expectRefused(await callback(github()), "user record", "api.github.com could not be reached");
  });

  it("refuses the sign-in with access_denied and a log line when GitHub's user record answers an error", async () => {
    provider({ "https://api.github.com/user": new Response("Bad credentials", { status: 401 }) });
    expectRefused(await callback(github()), "user record", "api.github.com answered HTTP 401");
  });

  it("refuses the sign-in with access_denied and a log line when GitHub's token endpoint is unreachable", async () => {
    provider({ "https://github.com/login/oauth/access_token": UNREACHABLE() });
    expectRefused(await callback(github()), "token exchange", "github.com could not be reached");
  });
});
