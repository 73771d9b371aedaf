/**
 * A whole sign-in through the real Worker in authorization-server mode, as a client and a browser do it: register,
 * the consent page, approve, GitHub's login (its token endpoint and /user stubbed), the callback with the code, and
 * the code exchange; then refreshes and /mcp calls with the tokens. `OAUTH_KV` is the namespace the test gives
 * (test/helpers/lagging-kv.ts: one that lags as KV does), and `stepPauseMs` is how long the person takes between
 * the steps of signing in (the client takes none between the token answer and its first call).
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, vi } from "vitest";
import { authorizationServer, createMcpWorker, type LimitOptions } from "../../src";
import type { OAuthStateNamespace } from "../../src/oauth/state-store";
import { authorizePath, formPost, jsonPost, ORIGIN, REDIRECT_URI } from "./auth-server";
import { FIXTURE } from "./fixture";
import { rpc } from "./rpc";

/** The PKCE verifier of authorizePath's challenge (RFC 7636 appendix B). */
const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";

export interface TokenAnswer {
  access_token?: string;
  refresh_token?: string;
  expires_in?: number;
  error?: string;
  error_description?: string;
}

let githubUsers = 0;

/** A person no test has signed in yet: their GitHub id. */
export const newPerson = () => 1_000 + githubUsers++;

/** GitHub's token endpoint and /user, answering as the person with GitHub id `id`. */
function stubGitHub(id: number): void {
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const url = new Request(input as RequestInfo, init).url;
    if (url === "https://github.com/login/oauth/access_token") return Response.json({ access_token: "gho_upstream", token_type: "bearer" });
    if (url === "https://api.github.com/user") return Response.json({ id, login: `person-${id}` });
    return new Response("unexpected", { status: 500 });
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `state`: the OAUTH_STATE the Worker is given (test/helpers/gated-state.ts, to order racing requests); the test
 * Worker's own by default.
 */
export function signInWorker(options: {
  kv: KVNamespace;
  stepPauseMs: number;
  limits?: LimitOptions;
  state?: OAuthStateNamespace;
  /** Settings for this Worker only (AUTH_MACHINE_CLIENTS, say). */
  vars?: Record<string, unknown>;
}) {
  const worker = createMcpWorker({ ...FIXTURE, authorizationServer, ...(options.limits && { limits: options.limits }) });
  const bindings = {
    ...env,
    AUTH_LOGIN: "github",
    AUTH_LOGIN_CLIENT_ID: "gh-client",
    AUTH_LOGIN_CLIENT_SECRET: "gh-secret",
    OAUTH_RATE_LIMITER: undefined,
    OAUTH_KV: options.kv,
    ...(options.state && { OAUTH_STATE: options.state }),
    ...options.vars,
  } as unknown as Env;
  const call = (path: string, init?: RequestInit) =>
    worker.fetch(new Request(`${ORIGIN}${path}`, init), bindings, createExecutionContext());
  const jar = new Map<string, string>();
  const keepCookies = (response: Response) => {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const at = pair!.indexOf("=");
      jar.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
  };
  const cookie = () => [...jar].map(([name, value]) => `${name}=${value}`).join("; ");

  async function token(fields: Record<string, string>): Promise<{ status: number; body: TokenAnswer }> {
    const response = await call("/token", formPost(fields));
    return { status: response.status, body: (await response.json()) as TokenAnswer };
  }

  /** Registers a public client that may refresh: its id. */
  async function register(): Promise<string> {
    const registration = {
      client_name: "Client",
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
    };
    const registered = await call("/register", jsonPost(registration));
    expect(registered.status).toBe(201);
    return ((await registered.json()) as { client_id: string }).client_id;
  }

  /**
   * A person (a new one, unless the test names one from `newPerson`) signs in at GitHub and approves `clientId`: the
   * code the client gets back.
   */
  async function codeFor(clientId: string, person = newPerson()): Promise<{ code: string }> {
    stubGitHub(person);
    await pause(options.stepPauseMs);
    const page = await call(authorizePath(clientId));
    expect(page.status, "the consent page").toBe(200);
    keepCookies(page);
    const handle = /name="handle" value="([^"]+)"/.exec(await page.text())![1]!;
    await pause(options.stepPauseMs);
    const approved = await call("/authorize", formPost({ handle, decision: "approve" }, { cookie: cookie() }));
    expect(approved.status, "the approval").toBe(302);
    keepCookies(approved);
    const state = new URL(approved.headers.get("location")!).searchParams.get("state")!;
    await pause(options.stepPauseMs);
    const back = await call(`/oauth/callback?code=gh-code&state=${encodeURIComponent(state)}`, { headers: { cookie: cookie() } });
    expect(back.status, "the callback").toBe(302);
    const code = new URL(back.headers.get("location")!).searchParams.get("code");
    expect(code, "the authorization code").toBeTruthy();
    vi.restoreAllMocks();
    return { code: code! };
  }

  /** The client exchanges a code (PKCE verifier included). */
  const exchange = (clientId: string, code: string) =>
    token({ grant_type: "authorization_code", code, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: VERIFIER });

  /** Signs one person (a new one, unless named) in with a new client: the client's id and the code exchange's answer. */
  async function signIn(person = newPerson()): Promise<{ clientId: string; tokens: TokenAnswer }> {
    const clientId = await register();
    const { code } = await codeFor(clientId, person);
    await pause(options.stepPauseMs);
    const exchanged = await exchange(clientId, code);
    expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
    return { clientId, tokens: exchanged.body };
  }

  const refresh = (clientId: string, refreshToken: string) =>
    token({ grant_type: "refresh_token", client_id: clientId, refresh_token: refreshToken });

  /** RFC 7009 revocation at /token (no grant_type, the token named): its status (200 whether or not it was known). */
  const revoke = async (clientId: string, tokenToRevoke: string, hint = "refresh_token") => {
    const response = await call("/token", formPost({ token: tokenToRevoke, token_type_hint: hint, client_id: clientId }));
    await response.body?.cancel();
    return response.status;
  };

  /** The status of a tools/list on /mcp with this access token (200: served; 401: the token is not valid). */
  const mcpStatus = async (accessToken: string) => {
    const response = await rpc((request) => worker.fetch(request, bindings, createExecutionContext())).send(
      "tools/list",
      {},
      { headers: { authorization: `Bearer ${accessToken}` } },
    );
    await response.body?.cancel();
    return response.status;
  };

  return { register, codeFor, exchange, signIn, refresh, revoke, token, mcpStatus, bindings };
}
