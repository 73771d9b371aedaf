/**
 * @module upstream
 * The third-party login: sends the person to GitHub or an OpenID Connect provider and turns the answer into an
 * identity. The OAuth mechanics (PKCE, state, nonce, ID token claims, issuer checks) are oauth4webapi's; this module
 * only says which endpoints, which scopes and which fields make the identity.
 */
import * as oauth from "oauth4webapi";
import type { AuthServerSettings } from "../../config/config";
import { memoize } from "../../memo";

/** Who signed in upstream, as the MCP tools see them (`ctx.principal`). */
export interface UpstreamIdentity {
  /**
   * Stable across logins and unique per provider: the provider's numeric id or `sub`, never a changeable name
   * (`sub` percent-encoded, as it always was). It becomes `ctx.principal.id`; codes and tokens carry only the opaque
   * id derived from it (user-id.ts).
   */
  id: string;
  name: string;
  /** The provider's access token, kept only when AUTH_UPSTREAM_TOKEN=on. */
  upstreamToken?: string;
}

/** What the login keeps between the redirect and the callback: never sent to the provider. */
export interface UpstreamSecrets {
  verifier: string;
  nonce?: string;
}

/** GitHub is OAuth 2.0 without discovery: its endpoints are fixed. */
const GITHUB: oauth.AuthorizationServer = {
  issuer: "https://github.com/login/oauth",
  authorization_endpoint: "https://github.com/login/oauth/authorize",
  token_endpoint: "https://github.com/login/oauth/access_token",
};

/** Why allow http at all: a loopback test issuer. Config accepts http only for loopback hosts. */
const requestOptions = (settings: AuthServerSettings) =>
  settings.issuer?.startsWith("http:") ? { [oauth.allowInsecureRequests]: true } : {};

/** The provider's metadata: fixed for GitHub, discovered once per isolate for OpenID Connect. */
const authorizationServer = memoize(async (settings: AuthServerSettings): Promise<oauth.AuthorizationServer> => {
  if (settings.login === "github") return GITHUB;
  const issuer = new URL(settings.issuer!);
  const response = await oauth.discoveryRequest(issuer, { algorithm: "oidc", ...requestOptions(settings) });
  return oauth.processDiscoveryResponse(issuer, response);
});

/** Fresh secrets for one login: the PKCE verifier, and a nonce with OpenID Connect. */
export function newSecrets(settings: AuthServerSettings): UpstreamSecrets {
  const verifier = oauth.generateRandomCodeVerifier();
  // Why a nonce with OpenID Connect: it ties the ID token to this login, so a token minted for another is refused.
  return settings.login === "oidc" ? { verifier, nonce: oauth.generateRandomNonce() } : { verifier };
}

/** The URL that starts the upstream login. */
export async function loginUrl(
  settings: AuthServerSettings,
  callbackUrl: string,
  state: string,
  secrets: UpstreamSecrets,
): Promise<string> {
  const as = await authorizationServer(settings);
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set("client_id", settings.clientId);
  url.searchParams.set("redirect_uri", callbackUrl);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("scope", settings.scopes.join(" "));
  url.searchParams.set("state", state);
  url.searchParams.set("code_challenge", await oauth.calculatePKCECodeChallenge(secrets.verifier));
  url.searchParams.set("code_challenge_method", "S256");
  if (secrets.nonce) url.searchParams.set("nonce", secrets.nonce);
  return url.href;
}

/**
 * Exchanges the callback's code for the identity. `state` was already matched to this browser by the provider's
 * `finishUpstream` (a single-use, cookie-bound value), so it is not checked a second time here.
 */
export async function finishLogin(
  settings: AuthServerSettings,
  callback: URL,
  callbackUrl: string,
  secrets: UpstreamSecrets,
): Promise<UpstreamIdentity> {
  const as = await authorizationServer(settings);
  const client: oauth.Client = { client_id: settings.clientId };
  const parameters = oauth.validateAuthResponse(as, client, callback, oauth.skipStateCheck);
  const options = requestOptions(settings);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.ClientSecretPost(settings.clientSecret),
    parameters,
    callbackUrl,
    secrets.verifier,
    options,
  );
  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    response,
    secrets.nonce ? { expectedNonce: secrets.nonce, requireIdToken: true } : {},
  );
  const person = settings.login === "github" ? await githubUser(tokens.access_token) : oidcUser(tokens);
  return { ...person, upstreamToken: tokens.access_token };
}

async function githubUser(accessToken: string): Promise<{ id: string; name: string }> {
  const response = await fetch("https://api.github.com/user", {
    headers: { authorization: `Bearer ${accessToken}`, accept: "application/vnd.github+json", "user-agent": "mcp-workers-template" },
  });
  if (!response.ok) throw new Error(`GitHub /user answered ${response.status}`);
  const user = (await response.json()) as { id?: unknown; login?: unknown; name?: unknown };
  if (typeof user.id !== "number" || typeof user.login !== "string") throw new Error("GitHub /user has no id");
  // Why the numeric id: a login can be renamed and then taken by someone else; the id never changes hands.
  return { id: `github-${user.id}`, name: typeof user.name === "string" && user.name ? user.name : user.login };
}

function oidcUser(tokens: oauth.TokenEndpointResponse): { id: string; name: string } {
  const claims = oauth.getValidatedIdTokenClaims(tokens)!;
  const name = [claims.name, claims.preferred_username, claims.email].find((value) => typeof value === "string" && value);
  return { id: `oidc-${encodeURIComponent(claims.sub)}`, name: (name as string | undefined) ?? claims.sub };
}

/** The origin the login redirects to, which the consent form's CSP must allow. */
export async function loginOrigin(settings: AuthServerSettings): Promise<string> {
  return new URL((await authorizationServer(settings)).authorization_endpoint!).origin;
}
