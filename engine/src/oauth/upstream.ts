/**
 * @module oauth/upstream
 * The third-party login: sends the person to GitHub or an OpenID Connect provider and turns the answer into an
 * identity. The OAuth mechanics (discovery, PKCE, the authorization response, the code exchange, the ID token) are
 * oauth-client.ts's; this module only says which provider, which secrets, which scopes and which fields make the
 * identity.
 */

import type { VerifiedClaims } from "../auth/jwt";
import type { AuthServerSettings } from "../config/config";
import { randomToken } from "../util/encoding";
import { memoize } from "../util/memo";
import { authorizationCode, discover, exchangeCode, fetchWithToken, type Provider, pkceChallenge, verifyIdToken } from "./oauth-client";

/** Who signed in upstream, as the MCP tools see them (`ctx.principal`). */
export interface UpstreamIdentity {
  /**
   * Stable across logins and unique per provider: the provider's numeric id or `sub`, never a changeable name
   * (`sub` percent-encoded, as it always was). It becomes `ctx.principal.id`; codes and tokens carry only the opaque
   * id derived from it (user-id.ts).
   */
  id: string;
  name: string;
  /** The provider's access token; the login keeps it in the grant only with the upstreamToken option. */
  upstreamToken?: string;
}

/** What the login keeps between the redirect and the callback: never sent to the provider. */
export interface UpstreamSecrets {
  verifier: string;
  nonce?: string;
}

/** GitHub is OAuth 2.0 without discovery: its endpoints are fixed, and it issues no ID token. */
const GITHUB: Provider = {
  issuer: "https://github.com/login/oauth",
  authorizationEndpoint: "https://github.com/login/oauth/authorize",
  tokenEndpoint: "https://github.com/login/oauth/access_token",
  requiresIssParameter: false,
};

/**
 * The provider: fixed for GitHub, discovered once per isolate for OpenID Connect (a failed discovery is forgotten,
 * so the next login tries again: memo.ts). Why marked pure: the bundler keeps a module-level call it cannot prove
 * free of side effects, and with it this folder, in Workers that never import the authorization server.
 */
const providerOf = /* @__PURE__ */ memoize(
  async (settings: AuthServerSettings): Promise<Provider> => (settings.login === "github" ? GITHUB : discover(settings.issuer!)),
);

/** Fresh secrets for one login: the PKCE verifier, and a nonce with OpenID Connect (32 random bytes each). */
export function newSecrets(settings: AuthServerSettings): UpstreamSecrets {
  const verifier = randomToken(32);
  // Why a nonce with OpenID Connect: it ties the ID token to this login, so a token minted for another is refused.
  return settings.login === "oidc" ? { verifier, nonce: randomToken(32) } : { verifier };
}

/** The URL that starts the upstream login. */
export async function loginUrl(
  settings: AuthServerSettings,
  callbackUrl: string,
  state: string,
  secrets: UpstreamSecrets,
): Promise<string> {
  const url = new URL((await providerOf(settings)).authorizationEndpoint);
  url.searchParams.set("client_id", settings.clientId);
  url.searchParams.set("redirect_uri", callbackUrl);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("scope", settings.scopes.join(" "));
  url.searchParams.set("state", state);
  url.searchParams.set("code_challenge", await pkceChallenge(secrets.verifier));
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
  const provider = await providerOf(settings);
  const code = authorizationCode(provider, callback);
  const client = { id: settings.clientId, secret: settings.clientSecret };
  const tokens = await exchangeCode(provider, client, code, callbackUrl, secrets.verifier);
  const person =
    settings.login === "github"
      ? await githubUser(tokens.access_token)
      : oidcUser(await verifyIdToken(provider, tokens.id_token, settings.clientId, secrets.nonce));
  // The login decides whether to keep it (the upstreamToken option): it is a secret.
  return { ...person, upstreamToken: tokens.access_token };
}

async function githubUser(accessToken: string): Promise<{ id: string; name: string }> {
  const user = await fetchWithToken("https://api.github.com/user", accessToken, "application/vnd.github+json");
  if (typeof user.id !== "number" || typeof user.login !== "string") throw new Error("GitHub /user has no id");
  // Why the numeric id: a login can be renamed and then taken by someone else; the id never changes hands.
  return { id: `github-${user.id}`, name: typeof user.name === "string" && user.name ? user.name : user.login };
}

function oidcUser(claims: VerifiedClaims): { id: string; name: string } {
  const name = [claims.name, claims.preferred_username, claims.email].find((value) => typeof value === "string" && value);
  return { id: `oidc-${encodeURIComponent(claims.sub)}`, name: (name as string | undefined) ?? claims.sub };
}

/** The origin the login redirects to, which the consent form's CSP must allow. */
export async function loginOrigin(settings: AuthServerSettings): Promise<string> {
  return new URL((await providerOf(settings)).authorizationEndpoint).origin;
}
