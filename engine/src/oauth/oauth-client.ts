/**
 * @module oauth/oauth-client
 * The OAuth 2.0 / OpenID Connect client side of the upstream login, and nothing more: discovery of the provider
 * (OpenID Connect Discovery 1.0), the PKCE challenge (RFC 7636), the authorization response (RFC 6749 §4.1.2,
 * RFC 9207), the code exchange with client_secret_post (RFC 6749 §4.1.3), and the ID token (OpenID Connect Core
 * §3.1.3.7), whose signature and the claims every kind of token shares are checked by the JWT core (auth/jwt.ts)
 * against the provider's published keys (auth/jwks.ts), and its own rules here. Every failure throws a plain Error
 * whose message never quotes a token or an answer (upstream.ts logs it).
 */

import { jwsAlgorithm, type KeySet, remoteKeySet } from "../auth/jwks";
import { type TokenKind, type VerifiedClaims, verifyJwt } from "../auth/jwt";
import { readAtMost } from "../http/body";
import { isLoopbackHostname } from "../http/guards";
import { base64url, decodeUtf8Strict } from "../util/encoding";
import { isObject } from "../wire/envelope";
import type { JsonObject } from "../wire/types";

/** The provider as the login uses it: where to send the person, where to exchange the code, how to check answers. */
export interface Provider {
  /** The issuer identifier exactly as the provider spells it: the callback's `iss` and the ID token's must equal it. */
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  /** RFC 9207: the provider says it always names itself in the authorization response, so a response without is refused. */
  requiresIssParameter: boolean;
  /** OpenID Connect only: the keys and algorithms its ID tokens are verified with. */
  idToken?: { keys: KeySet; algorithms: readonly string[] };
}

/** The OAuth client this server is at the provider. */
export interface ClientCredentials {
  id: string;
  secret: string;
}

/** A token response that passed `exchangeCode`: a bearer access token, and the rest of the members unchecked. */
export type TokenResponse = JsonObject & { access_token: string };

/**
 * Largest answer accepted from the provider (discovery document, token response, user record), in bytes as received:
 * 64 KiB. A literal, not `64 * 1024`: the bundler keeps a module-level product, and with it this file, in Workers
 * that never import the authorization server.
 */
export const UPSTREAM_MAX_BYTES = 65_536;
/** How long one request to the provider may take, in milliseconds. */
const UPSTREAM_TIMEOUT_MS = 5_000;

/** Finds the provider's endpoints and keys from its discovery document. */
export async function discover(configuredIssuer: string): Promise<Provider> {
  const issuer = new URL(configuredIssuer);
  // Why http only on loopback: the discovery document names the endpoints and keys; over plain HTTP anyone on the
  // path could name their own. config/settings.ts refuses such an issuer too, and any http one outside development;
  // this is the same host rule where the fetch happens.
  const allowHttp = issuer.protocol === "http:";
  checkUrl(issuer, "the issuer", allowHttp);
  // Why: an issuer identifier has no query or fragment (RFC 8414 §2); one with them is a mistyped setting.
  if (issuer.search || issuer.hash) throw new Error("the issuer must not have a query or fragment");
  const url = new URL(issuer.href);
  // OpenID Connect Discovery §4.1: the issuer, without a trailing slash, then /.well-known/openid-configuration.
  url.pathname = `${url.pathname.replace(/\/$/, "")}/.well-known/openid-configuration`;
  const { status, json } = await fetchJson(url.href, { headers: { accept: "application/json" } });
  if (status !== 200 || !json) throw new Error(`the discovery document was not fetched (HTTP ${status}, or not a JSON object)`);
  // Why (OpenID Connect Discovery §4.3): a document that names another issuer is not this issuer's, whoever served
  // it; its keys and endpoints must not be trusted for this one. Compared as parsed URLs (as it always was), so a
  // configured `https://id.example` matches a document's `https://id.example/`; the document's own spelling is what
  // `iss` is then held to, character for character.
  if (typeof json.issuer !== "string" || !URL.canParse(json.issuer) || new URL(json.issuer).href !== issuer.href) {
    throw new Error("the discovery document names another issuer");
  }
  // Why the algorithms the provider lists, and only those this server verifies: a token naming any other is not
  // one this provider signs. RS256 when the document lists none: the algorithm every provider must support
  // (OpenID Connect Core §15.1). `jwsAlgorithm` knows only asymmetric ones, never `none` or HMAC.
  const listed = json.id_token_signing_alg_values_supported;
  const algorithms = Array.isArray(listed) ? listed.filter((alg) => typeof alg === "string" && jwsAlgorithm(alg)) : ["RS256"];
  if (!algorithms.length) throw new Error("the provider signs ID tokens with no algorithm this server verifies");
  return {
    issuer: json.issuer,
    authorizationEndpoint: endpoint(json, "authorization_endpoint", allowHttp),
    tokenEndpoint: endpoint(json, "token_endpoint", allowHttp),
    requiresIssParameter: Boolean(json.authorization_response_iss_parameter_supported),
    idToken: { keys: remoteKeySet(endpoint(json, "jwks_uri", allowHttp)), algorithms },
  };
}

/** The PKCE S256 challenge of a verifier (RFC 7636 §4.2): base64url of the SHA-256 of its ASCII. */
export async function pkceChallenge(verifier: string): Promise<string> {
  return base64url(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
}

/**
 * The authorization code of the provider's answer at the callback. `state` is checked by the caller (login.ts,
 * through the OAuth provider's single-use, browser-bound value), not here.
 */
export function authorizationCode(provider: Provider, callback: URL): string {
  const parameters = callback.searchParams;
  const iss = single(parameters, "iss");
  // Why (RFC 9207 §2.4): an answer naming another issuer comes from another provider (a mix-up attack sends this
  // browser's code there); a provider that promises to name itself and does not, is not to be believed either.
  if (iss === undefined ? provider.requiresIssParameter : iss !== provider.issuer) {
    throw new Error("the authorization response does not name this issuer");
  }
  // Why: the person declined, or the provider refused; there is no code to exchange.
  const error = single(parameters, "error");
  if (error !== undefined) throw new Error(`the provider answered with an error${errorCode({ error })}`);
  const code = single(parameters, "code");
  if (!code) throw new Error("the authorization response has no code");
  return code;
}

/** Exchanges the code for tokens at the token endpoint, with the client secret in the form (client_secret_post). */
export async function exchangeCode(
  provider: Provider,
  client: ClientCredentials,
  code: string,
  redirectUri: string,
  verifier: string,
): Promise<TokenResponse> {
  const form = new URLSearchParams({
    grant_type: "authorization_code",
    code,
    // Why the redirect URI and the verifier: the provider checks both against the authorization request, so a code
    // stolen on its way back is useless to whoever lacks this login's verifier (RFC 7636 §1).
    redirect_uri: redirectUri,
    code_verifier: verifier,
    client_id: client.id,
    client_secret: client.secret,
  });
  const { status, json } = await fetchJson(provider.tokenEndpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded;charset=UTF-8", accept: "application/json" },
    body: form,
  });
  // Only the status and the OAuth error code are told: the body may hold tokens (GitHub answers errors with 200).
  if (status !== 200) throw new Error(`the token endpoint answered HTTP ${status}${errorCode(json)}`);
  if (!json || typeof json.access_token !== "string" || !json.access_token) {
    throw new Error(`the token response has no access token${errorCode(json)}`);
  }
  // Why bearer only (compared case-insensitively, RFC 6749 §5.1): any other type (DPoP, say) binds the token to a
  // proof this server never makes, so it would not work as the bearer token tools are handed.
  if (typeof json.token_type !== "string" || json.token_type.toLowerCase() !== "bearer") {
    throw new Error("the token response is not a bearer token");
  }
  return json as TokenResponse;
}

/**
 * An ID token's `typ` (compared case-insensitively): `JWT`, its `application/` form, or none, as providers send them
 * (OpenID Connect names no type of its own; most say `JWT`, some send none). Why an allow-list, and not the
 * access tokens' one: the provider signs other JWTs with the same keys (RFC 9068 access tokens `at+jwt`, logout
 * tokens `logout+jwt`, security events `secevent+jwt`), and one of those must not sign a person in (RFC 8725 §3.11).
 */
const ID_TOKEN: TokenKind = { types: ["jwt", "application/jwt"] };

/** The claims of the ID token of this login (OpenID Connect Core §3.1.3.7); throws when anything about it is wrong. */
export async function verifyIdToken(
  provider: Provider,
  idToken: unknown,
  clientId: string,
  nonce: string | undefined,
): Promise<VerifiedClaims> {
  if (!provider.idToken) throw new Error("this provider issues no ID tokens");
  // Why: without this login's nonce, a token without one would match it; the login cannot be told from another.
  if (!nonce) throw new Error("this login has no nonce");
  // Why required: the ID token is the only signed statement of who signed in; without it there is no identity.
  if (typeof idToken !== "string" || !idToken) throw new Error("the token response has no ID token");
  // Signature by one of the issuer's keys with an allowed algorithm, an ID token's `typ`, `iss` equal to the issuer,
  // `aud` naming this client, a live `exp` (and `nbf`), an `iat` not in the future, a non-empty `sub`: auth/jwt.ts,
  // with its clock tolerance.
  const claims = await verifyJwt(
    idToken,
    provider.idToken.keys,
    { issuer: provider.issuer, audience: clientId, algorithms: provider.idToken.algorithms },
    ID_TOKEN,
  );
  // Why (OpenID Connect Core §3.1.3.7, items 4-5): `azp` names the party the token was issued to. When present it must
  // be this client, whatever `aud` says; with several audiences it must be present, or a token issued to another
  // client that merely lists this one would sign someone in here.
  const { aud, azp } = claims;
  if (azp !== undefined ? azp !== clientId : Array.isArray(aud) && aud.length > 1) throw new Error("invalid token: azp");
  // Why: `iat` is a required claim of an ID token (OpenID Connect Core §2); one without it is malformed.
  if (typeof claims.iat !== "number") throw new Error("invalid token: iat");
  // Why: the nonce ties the token to this login; a token minted for another login (replayed, injected) is refused.
  if (claims.nonce !== nonce) throw new Error("invalid token: nonce");
  return claims;
}

/** GETs a JSON object from the provider with a bearer token (GitHub's user record); throws unless it answers 200. */
export async function fetchWithToken(url: string, accessToken: string, accept: string): Promise<JsonObject> {
  const { status, json } = await fetchJson(url, { headers: { authorization: `Bearer ${accessToken}`, accept } });
  if (status !== 200 || !json) throw new Error(`${new URL(url).host} answered HTTP ${status}, or not a JSON object`);
  return json;
}

/**
 * One request to the provider, its answer read as a JSON object (`undefined` when it is not one). Why no redirects:
 * every URL is the configured one or the discovery document's, not wherever it points. Why the timeout: a provider
 * that hangs must not hold the login open. Why the size cap (declared, then while reading): the answer is held in
 * memory, and a broken endpoint must not fill it.
 */
export async function fetchJson(url: string, init: RequestInit): Promise<{ status: number; json: JsonObject | undefined }> {
  const headers = { "user-agent": "mcp-workers-template", ...(init.headers as Record<string, string>) };
  const response = await fetch(url, { ...init, headers, redirect: "manual", signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS) }).catch(
    (error: unknown) => {
      // Why a message of its own: it is logged (upstream.ts), and the runtime's message is not this code's to vouch
      // for; the host and what happened are enough to tell an outage from a timeout.
      const what = (error as Error)?.name === "TimeoutError" ? `did not answer within ${UPSTREAM_TIMEOUT_MS} ms` : "could not be reached";
      throw new Error(`${new URL(url).host} ${what}`);
    },
  );
  const declaredTooLarge = Number(response.headers.get("content-length")) > UPSTREAM_MAX_BYTES;
  const reader = response.body?.getReader();
  const bytes = !reader ? new Uint8Array() : declaredTooLarge ? undefined : await readAtMost(reader, UPSTREAM_MAX_BYTES);
  if (!bytes) {
    await reader?.cancel().catch(() => {});
    throw new Error(`${new URL(url).host} answered more than ${UPSTREAM_MAX_BYTES} bytes`);
  }
  let value: unknown;
  try {
    value = JSON.parse(decodeUtf8Strict(bytes));
  } catch {
    // Not UTF-8 or not JSON: no object.
  }
  return { status: response.status, json: isObject(value) ? value : undefined };
}

/** A member of the discovery document that must be an endpoint URL: https, or http on loopback for a loopback issuer. */
function endpoint(document: JsonObject, name: string, allowHttp: boolean): string {
  const value = document[name];
  if (typeof value !== "string" || !URL.canParse(value)) throw new Error(`the discovery document has no ${name}`);
  checkUrl(new URL(value), name, allowHttp);
  return value;
}

function checkUrl(url: URL, what: string, allowHttp: boolean): void {
  // Why https: codes, secrets, tokens and keys travel on these requests; plain HTTP only to this machine, in tests.
  if (url.protocol !== "https:" && !(allowHttp && url.protocol === "http:" && isLoopbackHostname(url.hostname))) {
    throw new Error(`${what} must be an https URL (http only on loopback, for a loopback issuer)`);
  }
}

/**
 * A parameter of the authorization response, `undefined` when absent. Why refuse one given twice: which copy counts
 * would differ between checks and use (parameter pollution), so the answer is ambiguous.
 */
function single(parameters: URLSearchParams, name: string): string | undefined {
  const values = parameters.getAll(name);
  if (values.length > 1) throw new Error(`the authorization response has more than one ${name}`);
  return values[0];
}

/** The OAuth error code of an answer, for the message: only a code's characters, so nothing else is ever quoted. */
function errorCode(json: JsonObject | undefined): string {
  const code = json?.error;
  return typeof code === "string" && /^[\w.-]{1,64}$/.test(code) ? ` (${code})` : "";
}
