/**
 * The Worker in authorization-server mode (AUTH_LOGIN=oidc against an issuer that never answers unless a test stubs
 * fetch, and the `authorizationServer` option), for tests of the OAuth endpoints through the real Worker. Without
 * OAUTH_RATE_LIMITER: these tests send many requests from one address, and the limit is tested on its own.
 */
import { createExecutionContext, listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { vi } from "vitest";
import { authorizationServer, createMcpWorker, type ServerDefinition } from "../../src";
import { FIXTURE } from "./fixture";

export const LOGIN = {
  AUTH_LOGIN: "oidc",
  AUTH_LOGIN_ISSUER: "https://login.example",
  AUTH_LOGIN_CLIENT_ID: "upstream-client",
  AUTH_LOGIN_CLIENT_SECRET: "upstream-secret",
};
export const ORIGIN = "http://localhost:8787";
export const REDIRECT_URI = "http://127.0.0.1:9/cb";

/** `vars`: settings for this server only (AUTH_MACHINE_CLIENTS, say). A path may be a whole URL, for another origin. */
export function authServer(definition: ServerDefinition = FIXTURE, vars: Record<string, unknown> = {}) {
  const worker = createMcpWorker({ ...definition, authorizationServer });
  const bindings = { ...env, ...LOGIN, OAUTH_RATE_LIMITER: undefined, ...vars } as unknown as Env;
  return (path: string, init?: RequestInit) => worker.fetch(new Request(new URL(path, ORIGIN), init), bindings, createExecutionContext());
}

export const jsonPost = (body: unknown): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: typeof body === "string" ? body : JSON.stringify(body),
});

export const formPost = (fields: Record<string, string>, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
  body: new URLSearchParams(fields),
});

/**
 * How many registered clients the OAuthState objects hold (each client in an object of its own, so every object is
 * looked into): a refused registration must leave it unchanged.
 */
export async function storedClients(): Promise<number> {
  let clients = 0;
  for (const id of await listDurableObjectIds(env.OAUTH_STATE)) {
    clients += await runInDurableObject(env.OAUTH_STATE.get(id), (_instance, state) => {
      const sql = state.storage.sql;
      if (sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'entries'").toArray().length === 0) return 0;
      return sql.exec<{ n: number }>("SELECT count(*) AS n FROM entries WHERE key LIKE 'client:%'").one().n;
    });
  }
  return clients;
}

/**
 * Replaces fetch for the test: `documents` maps a URL to the JSON it answers (the upstream's discovery document, a
 * client's metadata document); every other URL answers 404. Returns every URL fetched, in order.
 */
export function stubFetch(documents: Record<string, unknown> = {}): string[] {
  const fetched: string[] = [];
  const answers: Record<string, unknown> = { "https://login.example/.well-known/openid-configuration": DISCOVERY, ...documents };
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const url = new Request(input as RequestInfo, init).url;
    fetched.push(url);
    return url in answers ? Response.json(answers[url], { headers: { "cache-control": "no-store" } }) : new Response("no", { status: 404 });
  });
  return fetched;
}

const DISCOVERY = {
  issuer: "https://login.example",
  authorization_endpoint: "https://login.example/authorize",
  token_endpoint: "https://login.example/token",
  jwks_uri: "https://login.example/jwks",
  response_types_supported: ["code"],
  subject_types_supported: ["public"],
  id_token_signing_alg_values_supported: ["RS256"],
};

/** An authorization request for `clientId`, with PKCE S256, as a client sends it. */
export function authorizePath(clientId: string, redirectUri = REDIRECT_URI): string {
  const query = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    code_challenge_method: "S256",
    state: "client-state",
  });
  return `/authorize?${query}`;
}
