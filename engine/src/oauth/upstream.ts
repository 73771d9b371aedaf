/**
 * @module oauth/upstream
 * The third-party login: sends the person to GitHub or an OpenID Connect provider and turns the answer into an
 * identity. The OAuth mechanics (discovery, PKCE, the authorization response, the code exchange, the ID token) are
 * oauth-client.ts's; this module only says which provider, which secrets, which scopes and which fields make the
 * identity, and names the step of the login that failed (`SignInFailure`).
 */

import type { VerifiedClaims } from "../auth/jwt";
import type { AuthServerSettings } from "../config/config";
import { base64url, randomToken } from "../util/encoding";
import { memoize } from "../util/memo";
import { authorizationCode, discover, exchangeCode, fetchWithToken, type Provider, pkceChallenge, verifyIdToken } from "./oauth-client";

/** Who signed in upstream, as the MCP tools see them (`ctx.principal`). */
export interface UpstreamIdentity {
  /**
   * Stable across logins and unique across providers and issuers, never a changeable name: `github-<numeric id>`,
   * or `oidc-<issuer tag>-<sub>` (`oidcId`). It becomes `ctx.principal.id`; codes and tokens carry only the opaque
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

/** The steps of a login that ask the provider something, as a failure's log line names them. */
export type SignInStep = "discovery" | "authorization response" | "token exchange" | "ID token" | "user record";

/**
 * A login the provider could not complete: unreachable, timed out, an answer refused (another issuer, a plain-http
 * endpoint, a bad ID token). The login answers it as it answers a bad ID token: `access_denied` back to the client,
 * and one log line with the step and the reason.
 */
export class SignInFailure extends Error {
  constructor(
    readonly step: SignInStep,
    /** Why, as a log may say it: the engine's own message, or only the class of anything else (`reasonOf`). */
    readonly reason: string,
  ) {
    super(`${step}: ${reason}`);
    this.name = "SignInFailure";
  }
}

/**
 * What a log may say of why a step failed. The engine's own refusals are plain Errors whose messages never quote a
 * token or the provider's answer (oauth-client.ts, auth/jwt.ts, auth/jwks.ts), so they are told whole; of anything
 * else (a runtime's TypeError, a DOMException) only the class, since its message is not this code's to vouch for.
 */
function reasonOf(error: unknown): string {
  if (error instanceof Error) return Object.getPrototypeOf(error) === Error.prototype ? error.message : error.name;
  return typeof error;
}

/** `run`, with any failure turned into the `SignInFailure` of `step`. */
async function step<T>(name: SignInStep, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw new SignInFailure(name, reasonOf(error));
  }
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
 * so the next login tries again: util/memo.ts). Why marked pure: the bundler keeps a module-level call it cannot prove
 * free of side effects, and with it this folder, in Workers that never import the authorization server.
 */
const providerOf = /* @__PURE__ */ memoize(
  async (settings: AuthServerSettings): Promise<Provider> => (settings.login === "github" ? GITHUB : discover(settings.issuer!)),
);

/** The provider of the settings; a discovery that fails throws a `SignInFailure` naming why. */
export const signInProvider = (settings: AuthServerSettings): Promise<Provider> => step("discovery", () => providerOf(settings));

/** Fresh secrets for one login: the PKCE verifier, and a nonce with OpenID Connect (32 random bytes each). */
export function newSecrets(settings: AuthServerSettings): UpstreamSecrets {
  const verifier = randomToken(32);
  // Why a nonce with OpenID Connect: it ties the ID token to this login, so a token minted for another is refused.
  return settings.login === "oidc" ? { verifier, nonce: randomToken(32) } : { verifier };
}

/** The URL that starts the upstream login at `provider` (`signInProvider`). */
export async function loginUrl(
  settings: AuthServerSettings,
  provider: Provider,
  callbackUrl: string,
  state: string,
  secrets: UpstreamSecrets,
): Promise<string> {
  const url = new URL(provider.authorizationEndpoint);
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
 * Exchanges the callback's code for the identity; any step that fails throws a `SignInFailure` naming it. `state`
 * was already matched to this browser by the provider's `finishUpstream` (a single-use, cookie-bound value), so it
 * is not checked a second time here.
 */
export async function finishLogin(
  settings: AuthServerSettings,
  callback: URL,
  callbackUrl: string,
  secrets: UpstreamSecrets,
): Promise<UpstreamIdentity> {
  const provider = await signInProvider(settings);
  const code = await step("authorization response", () => authorizationCode(provider, callback));
  const client = { id: settings.clientId, secret: settings.clientSecret };
  const tokens = await step("token exchange", () => exchangeCode(provider, client, code, callbackUrl, secrets.verifier));
  const person =
    settings.login === "github"
      ? await step("user record", () => githubUser(tokens.access_token))
      : await step("ID token", async () => oidcUser(await verifyIdToken(provider, tokens.id_token, settings.clientId, secrets.nonce)));
  // The login decides whether to keep it (the upstreamToken option): it is a secret.
  return { ...person, upstreamToken: tokens.access_token };
}

async function githubUser(accessToken: string): Promise<{ id: string; name: string }> {
  const user = await fetchWithToken("https://api.github.com/user", accessToken, "application/vnd.github+json");
  if (typeof user.id !== "number" || typeof user.login !== "string") throw new Error("GitHub /user has no id");
  // Why the numeric id: a login can be renamed and then taken by someone else; the id never changes hands. Why no
  // issuer in it: GitHub login has one issuer, github.com (its endpoints are fixed above, no setting points it
  // elsewhere), and the `github-` prefix keeps its ids apart from every OpenID Connect issuer's.
  return { id: `github-${user.id}`, name: typeof user.name === "string" && user.name ? user.name : user.login };
}

async function oidcUser(claims: VerifiedClaims): Promise<{ id: string; name: string }> {
  const name = [claims.name, claims.preferred_username, claims.email].find((value) => typeof value === "string" && value);
  return { id: await oidcId(claims.iss as string, claims.sub), name: (name as string | undefined) ?? claims.sub };
}

/** Bytes of the issuer's SHA-256 in its tag: 16 (128 bits), 22 characters of base64url. */
const ISSUER_TAG_BYTES = 16;

/**
 * The person an OpenID Connect login names: `oidc-<issuer tag>-<sub>`, the tag being the first 16 bytes of SHA-256
 * of the issuer identifier (the ID token's `iss`, as the discovery document spells it), base64url, and `sub`
 * percent-encoded (so printable, and never a `:`, which apps key records with: `<principal>:<id>`).
 *
 * Why the issuer: a `sub` is unique only within its issuer (OpenID Connect Core §5.7), so without it a change of
 * AUTH_LOGIN_ISSUER would hand the new issuer's "alice" the data the old issuer's "alice" left. Why a tag of fixed
 * length, not the issuer spelled out: the id stays short and reads without ambiguity (the sub starts at character
 * 29, whatever either contains), and another issuer with the same tag would take a second preimage of 128 bits.
 */
async function oidcId(issuer: string, sub: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(issuer));
  return `oidc-${base64url(new Uint8Array(digest, 0, ISSUER_TAG_BYTES))}-${encodeURIComponent(sub)}`;
}

/** The origin the login at `provider` redirects to, which the consent form's CSP must allow. */
export const loginOrigin = (provider: Provider): string => new URL(provider.authorizationEndpoint).origin;
