/**
 * @module oauth/login
 * The authorization endpoint and the upstream callback: the provider's "default handler". The order is the one the
 * MCP security guidance asks of a server that signs people in through a third party: consent for this client first
 * (or a remembered approval), then the redirect to the upstream login, then the grant.
 *
 *   GET  /authorize       validate the request (client, its metadata document's host and size, exact redirect URI,
 *                         PKCE S256), then consent page or login
 *   POST /authorize       the consent answer: deny (back to the client with access_denied) or allow (to the login)
 *   GET  /oauth/callback  the upstream answer: identity, then the authorization code back to the client (with `iss`),
 *                         and the person's grants beyond their limit revoked (grant-limit.ts)
 *
 * A provider that cannot be used (discovery, the code exchange, its keys or its user record failing in any way) is
 * refused as a bad ID token is: `access_denied` back to the client, and a log line naming the step and the cause
 * (`refuseSignIn`), never an uncaught exception. Everything else falls through to the engine's routes (the landing
 * page, /health).
 */
import type { AuthRequest, OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { AuthServerSettings } from "../config/config";
import { log } from "../util/log";
import { fetchDocumentAuth } from "./client-auth";
import { checkClientMetadata, type MetadataRefusal, metadataOf } from "./client-limits";
import { consentPage, errorPage, pageHeaders } from "./consent-page";
import { limitGrants } from "./grant-limit";
import { oauthLibrary } from "./library";
import type { Provider } from "./oauth-client";
import { clientIdProblem, isMetadataDocumentUrl, jwksUriProblem } from "./public-host";
import type { OAuthStateNamespace } from "./state-store";
import {
  finishLogin,
  loginOrigin,
  loginUrl,
  newSecrets,
  SignInFailure,
  type SignInStep,
  signInProvider,
  type UpstreamSecrets,
} from "./upstream";
import { opaqueUserId } from "./user-id";

export const CALLBACK_PATH = "/oauth/callback";

/** How long a remembered approval lasts before the consent page shows again: 30 days (a literal: oauth-client.ts). */
const REMEMBER_SECONDS = 2_592_000;

export interface LoginContext {
  settings: AuthServerSettings;
  /** The objects that hold the grants (OAUTH_STATE), and how many one person may hold (limits.oauth.grantsPerPerson). */
  state: OAuthStateNamespace;
  grantsPerPerson: number;
  /** The scopes this server grants: those its tools declare. */
  scopes: readonly string[];
  serverName: string;
  /** Keep the upstream access token in the grant, for `ctx.principal.upstreamToken` (the `upstreamToken` option). */
  keepUpstreamToken: boolean;
}

type Fallback = (request: Request) => Promise<Response>;

export async function handleLogin(request: Request, helpers: OAuthHelpers, context: LoginContext, fallback: Fallback): Promise<Response> {
  const url = new URL(request.url);
  try {
    if (url.pathname === "/authorize" && request.method === "GET") return await showConsent(request, helpers, context);
    if (url.pathname === "/authorize" && request.method === "POST") return await answerConsent(request, helpers, context);
    if (url.pathname === CALLBACK_PATH && request.method === "GET") return await finishUpstream(request, helpers, context);
  } catch (error) {
    const { AuthorizationError, CimdFetchError } = await oauthLibrary();
    // A redirect back to the client only once the provider validated the client and its exact redirect URI.
    if (error instanceof AuthorizationError && error.redirectTo) return redirect(error.redirectTo);
    if (error instanceof AuthorizationError) return errorPage(error.code, error.description);
    if (error instanceof CimdFetchError) return errorPage("invalid_client", "this app's client metadata document could not be used");
    throw error;
  }
  return fallback(request);
}

async function showConsent(request: Request, helpers: OAuthHelpers, context: LoginContext): Promise<Response> {
  // Why before parseAuthRequest: it fetches a client ID metadata document, so its URL is checked first.
  const clientId = new URL(request.url).searchParams.get("client_id") ?? "";
  const unsafe = clientIdProblem(clientId);
  if (unsafe) return errorPage("invalid_client", unsafe);
  // SEP-3149: a document whose methods this server cannot use is refused now, before anyone approves it, and before
  // the provider reads it (which would refuse it too, with no word why).
  const auth = isMetadataDocumentUrl(clientId) ? await fetchDocumentAuth(clientId) : undefined;
  if (auth && !auth.ok) return errorPage("invalid_client_metadata", auth.problem);
  const refused = isMetadataDocumentUrl(clientId) ? await checkMetadataDocument(helpers, clientId) : undefined;
  if (refused) return errorPage(refused.code, refused.description);
  const authRequest = await helpers.parseAuthRequest(request);
  // Why refuse a request without PKCE S256 (the provider lets confidential clients omit it): the MCP spec requires
  // it of every client, and without it a stolen code is a stolen grant.
  if (authRequest.codeChallengeMethod !== "S256" || !authRequest.codeChallenge) {
    const { authorizationErrorRedirect } = await oauthLibrary();
    return redirect(authorizationErrorRedirect(authRequest, "invalid_request", "PKCE with S256 is required"));
  }
  // Why the provider before any consent is stored: the page's CSP names its login, and a provider that cannot be
  // used is refused now rather than after the person has approved.
  const provider = await signInProvider(context.settings).catch((error: unknown) => refuseSignIn(authRequest, error));
  if (provider instanceof Response) return provider;
  const remember = { secret: context.settings.consentSecret };
  if (await helpers.isConsentRemembered(request, authRequest, remember)) {
    return startUpstream(request, helpers, context, provider, authRequest);
  }
  const details = await helpers.describeConsent(authRequest);
  const consent = await helpers.beginConsent(authRequest);
  const html = consentPage(context.serverName, details, consent.handle, context.scopes);
  return new Response(html, { headers: pageHeaders(consent.headers, formTargets(provider, authRequest)) });
}

async function answerConsent(request: Request, helpers: OAuthHelpers, context: LoginContext): Promise<Response> {
  const form = await request.formData();
  const handle = form.get("handle");
  // Why: the handle is the form's CSRF token; a post without one did not come from the consent page.
  if (typeof handle !== "string" || !handle) return errorPage("invalid_request", "the consent form is missing its token");
  if (form.get("decision") !== "approve") {
    const denied = await helpers.denyConsent(request, handle);
    denied.headers.set("location", denied.redirectTo);
    return new Response(null, { status: 302, headers: denied.headers });
  }
  const ticked = form.getAll("scope").filter((scope): scope is string => typeof scope === "string");
  // approveConsent refuses a handle that is unknown, used, expired, or not bound to this browser's cookie.
  const approved = await helpers.approveConsent(request, handle, {
    scope: ticked.filter((scope) => context.scopes.includes(scope)),
    remember: { secret: context.settings.consentSecret, maxAgeSeconds: REMEMBER_SECONDS },
  });
  // Usually discovered when the page was shown; but this post may reach an isolate that has not seen the provider yet.
  const provider = await signInProvider(context.settings).catch((error: unknown) =>
    refuseSignIn(approved.request, error, approved.headers),
  );
  if (provider instanceof Response) return provider;
  return startUpstream(request, helpers, context, provider, approved.request, approved.headers);
}

/** Sends the browser to the upstream login; its state is the provider's single-use, browser-bound value. */
async function startUpstream(
  request: Request,
  helpers: OAuthHelpers,
  context: LoginContext,
  provider: Provider,
  authRequest: AuthRequest,
  headers?: Headers,
): Promise<Response> {
  const secrets = newSecrets(context.settings);
  const transaction = await helpers.beginUpstream(authRequest, { data: secrets, ...(headers && { headers }) });
  const location = await loginUrl(context.settings, provider, new URL(CALLBACK_PATH, request.url).href, transaction.state, secrets);
  transaction.headers.set("location", location);
  return new Response(null, { status: 302, headers: transaction.headers });
}

async function finishUpstream(request: Request, helpers: OAuthHelpers, context: LoginContext): Promise<Response> {
  // finishUpstream checks `state`: single use, ten minutes, and bound to this browser by a cookie.
  const { request: authRequest, data, headers } = await helpers.finishUpstream<UpstreamSecrets>(request);
  const { authorizationErrorRedirect } = await oauthLibrary();
  const callback = new URL(request.url);
  if (callback.searchParams.has("error")) {
    headers.set("location", authorizationErrorRedirect(authRequest, "access_denied", "the sign-in was declined"));
    return new Response(null, { status: 302, headers });
  }
  // A code the provider refused, an ID token with the wrong nonce, issuer or audience, a provider that did not
  // answer: nobody is signed in, and the client is told so.
  const identity = await finishLogin(context.settings, callback, new URL(CALLBACK_PATH, request.url).href, data).catch((error: unknown) =>
    refuseSignIn(authRequest, error, headers),
  );
  if (identity instanceof Response) return identity;
  const { redirectTo } = await helpers.completeAuthorization({
    request: authRequest,
    // Opaque: the provider writes it into the code and tokens, which travel in URLs (user-id.ts).
    userId: await opaqueUserId(identity.id, context.settings),
    metadata: { name: identity.name },
    scope: authRequest.scope,
    // Encrypted by the provider with a key only the token holder can unwrap; the engine reads it as ctx.principal.
    // The upstream token only when the server asked to keep it (the `upstreamToken` option): it is a secret.
    props: {
      id: identity.id,
      name: identity.name,
      ...(context.keepUpstreamToken && identity.upstreamToken && { upstreamToken: identity.upstreamToken }),
    },
  });
  // Before the client gets its code: a person's grants stay within their limit whatever clients they sign in to.
  await limitGrants(context.state, redirectTo, context.grantsPerPerson);
  headers.set("location", redirectTo);
  return new Response(null, { status: 302, headers });
}

/**
 * A metadata document is held to the bounds of a registration (client-limits.ts): the provider caps it at 5 KiB
 * but not member by member, and its name is shown on the consent page. Its `jwks_uri` must be public like its URL.
 */
async function checkMetadataDocument(helpers: OAuthHelpers, clientId: string): Promise<MetadataRefusal | undefined> {
  const client = await helpers.lookupClient(clientId);
  if (!client) return undefined;
  const jwks = jwksUriProblem(client.jwksUri);
  return checkClientMetadata(metadataOf(client)) ?? (jwks ? { code: "invalid_client_metadata", description: jwks } : undefined);
}

/** Where the consent form's post may lead: the upstream login, and (if it answers at once) the client's redirect. */
function formTargets(provider: Provider, authRequest: AuthRequest): string[] {
  const redirectUri = new URL(authRequest.redirectUri);
  const client = redirectUri.protocol === "http:" || redirectUri.protocol === "https:" ? redirectUri.origin : redirectUri.protocol;
  return [loginOrigin(provider), client];
}

/** What the client is told (`error_description`): that the sign-in failed, and whether it could even start. */
const REFUSAL: Record<SignInStep, string> = {
  discovery: "the sign-in provider could not be used",
  "authorization response": "the sign-in could not be verified",
  "token exchange": "the sign-in could not be verified",
  "ID token": "the sign-in could not be verified",
  "user record": "the sign-in could not be verified",
};

/**
 * The answer to a sign-in the provider could not complete (`SignInFailure`): `access_denied` back to the client,
 * whose redirect URI the provider has validated, with its `state`; and a log line with the step and the reason (the
 * reason never quotes a token: upstream.ts). Anything else is a fault of this server, and is not hidden as a refusal.
 */
async function refuseSignIn(authRequest: AuthRequest, error: unknown, headers = new Headers()): Promise<Response> {
  if (!(error instanceof SignInFailure)) throw error;
  log(undefined, "warn", "upstream sign-in refused", { step: error.step, reason: error.reason });
  const { authorizationErrorRedirect } = await oauthLibrary();
  headers.set("location", authorizationErrorRedirect(authRequest, "access_denied", REFUSAL[error.step]));
  headers.set("cache-control", "no-store");
  return new Response(null, { status: 302, headers });
}

const redirect = (location: string) => new Response(null, { status: 302, headers: { location, "cache-control": "no-store" } });
