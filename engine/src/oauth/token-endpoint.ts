/**
 * @module oauth/token-endpoint
 * POST /token around the provider. Before it: the form is read once, bounded (the provider reads a body of any
 * size), and the clients it names are checked before the provider looks them up (a client ID metadata document is a
 * fetch, public-host.ts). Then a code, a refresh token or a token to revoke takes its grant's turn in the grant's
 * object (state.ts), so the token requests on one grant run one at a time: a code is exchanged once, of the uses of
 * one refresh token one rotates while a retry gets that rotation's answer and a reuse revokes the grant
 * (refresh-reuse.ts), and a revocation is never undone by a refresh it raced. The provider gets the same request,
 * body included. The client credentials grant of machine clients never reaches the provider, which has none: the
 * engine answers it (client-credentials.ts), and refuses a machine client any other grant.
 */
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { readAtMost } from "../http/body";
import type { OAuthBindings } from "./bindings";
import { fetchDocumentAuth } from "./client-auth";
import { oauthLibrary } from "./library";
import { clientIdProblem, isMetadataDocumentUrl, jwksUriProblem } from "./public-host";
import { grantOf, openAnswer, requestProof, sealAnswer, tokenIdOf } from "./refresh-reuse";
import type { RefreshOutcome } from "./state";
import { type OAuthStateNamespace, objectNamed, personObjectName } from "./state-store";
import { clientIdsOf } from "./token-client";

/** The largest token request read, in bytes: real ones are under 1 KiB; a client assertion may be 16 KiB. */
export const MAX_TOKEN_REQUEST_BYTES = 65_536;

export interface TokenEndpoint {
  provider: { fetch(request: Request, env: OAuthBindings, execution: ExecutionContext): Promise<Response> };
  /** The provider's helpers, made only on the paths that need them (a client's key set). */
  helpers: () => OAuthHelpers;
  /** The objects that hold the grants (OAUTH_STATE). */
  state: OAuthStateNamespace;
  /** How long a use of a refresh token is remembered: as long as any grant lives (`limits.oauth.refreshTokenMs`). */
  refreshTokenMs: number;
  /** How long a retry of a refresh gets the same answer (`limits.oauth.refreshRetryMs`). */
  refreshRetryMs: number;
  /** The ids of the machine clients (AUTH_MACHINE_CLIENTS), which may use the client credentials grant only. */
  machineClientIds: ReadonlySet<string>;
  /** Answers `grant_type=client_credentials` (client-credentials.ts). */
  clientCredentials(request: Request, form: URLSearchParams): Promise<Response>;
  /** Refuses an authenticated machine client any other grant; `undefined` when it did not authenticate (client-credentials.ts). */
  refuseOtherGrant(request: Request, form: URLSearchParams): Promise<Response | undefined>;
}

export async function serveToken(
  request: Request,
  env: OAuthBindings,
  execution: ExecutionContext,
  endpoint: TokenEndpoint,
): Promise<Response> {
  const bytes = request.body ? await readAtMost(request.body.getReader(), MAX_TOKEN_REQUEST_BYTES) : new Uint8Array();
  if (!bytes) return tokenError(request, 413, "invalid_request", `the token request is larger than ${MAX_TOKEN_REQUEST_BYTES} bytes`);
  const form = new URLSearchParams(new TextDecoder().decode(bytes));
  const authorization = request.headers.get("authorization");
  const grantType = form.get("grant_type");
  if (grantType === "client_credentials") return endpoint.clientCredentials(request, form);
  // RFC 6749 §5.2: a machine client may use only the grant it was declared for; it has no person to act for.
  // One that has not authenticated goes on to the provider, which answers as for any client it does not know.
  if (grantType && clientIdsOf(form, authorization)?.some((id) => endpoint.machineClientIds.has(id))) {
    const refusal = await endpoint.refuseOtherGrant(request, form);
    if (refusal) return refusal;
  }
  const unsafeClient = await clientProblem(form, authorization, endpoint.helpers);
  if (unsafeClient) {
    // RFC 6749 §5.2: a client that tried HTTP Basic is told which scheme to use.
    const basic = /^\s*basic\b/i.test(authorization ?? "") ? { "www-authenticate": 'Basic realm="token"' } : undefined;
    return tokenError(request, 401, "invalid_client", unsafeClient, basic);
  }
  const forwarded = () => endpoint.provider.fetch(new Request(request, { body: bytes }), env, execution);
  const refreshToken = grantType === "refresh_token" ? form.get("refresh_token") : null;
  const presented = grantType === "authorization_code" ? form.get("code") : (refreshToken ?? revokedToken(form));
  const grant = presented ? grantOf(presented) : undefined;
  // Nothing of a grant to order (another grant type, a malformed code or token): the provider answers.
  if (!grant) return forwarded();
  const object = objectNamed(endpoint.state, personObjectName(grant.userId));
  const refresh = refreshToken ? { tokenId: await tokenIdOf(refreshToken), proof: await requestProof(form, authorization) } : undefined;
  const turn = await object.beginTokenRequest({ ...grant, ...(refresh && { refresh }), recordMs: endpoint.refreshTokenMs });
  if (turn.kind === "reused") {
    return tokenError(request, 400, "invalid_grant", "this refresh token was already used, so its grant is revoked: sign in again");
  }
  if (turn.kind === "replay") return replayed(request, await openAnswer(refreshToken!, turn.sealed), turn.answeredAt);
  let outcome: RefreshOutcome | undefined = refresh && { tokenId: refresh.tokenId };
  try {
    const response = await forwarded();
    if (!refresh || response.status !== 200) return response;
    const answer = await response.text();
    const successor = (JSON.parse(answer) as { refresh_token?: unknown }).refresh_token;
    if (typeof successor === "string") {
      const sealed = await sealAnswer(refreshToken!, answer);
      outcome = {
        tokenId: refresh.tokenId,
        answer: { sealed, successorId: await tokenIdOf(successor), windowMs: endpoint.refreshRetryMs },
      };
    }
    return new Response(answer, response);
  } finally {
    // Also when the provider threw: the grant's next request must not wait out the turn.
    await object.endTokenRequest(grant.grantId, turn.holder, outcome);
  }
}

/**
 * The token a revocation (RFC 7009) names, or null when the request is not one: the provider reads a request without
 * `grant_type` that names a `token` as a revocation. Why it takes the grant's turn like any token request: a refresh
 * of the same grant in progress would otherwise write its rotation (the grant record, a new access token) after the
 * revocation deleted the grant, and those tokens would outlive the revocation that answered 200. In its turn, the
 * revocation comes wholly before the refresh (which then finds no grant) or wholly after it (and revokes what it
 * issued, since the provider still knows the just-used refresh token as the grant's previous one).
 */
function revokedToken(form: URLSearchParams): string | null {
  return form.get("grant_type") ? null : form.get("token");
}

/**
 * A retry's answer: the rotation's own, its `expires_in` counted from the rotation, since the access token it
 * carries expires when that one said.
 */
function replayed(request: Request, kept: string, answeredAt: number): Response {
  const answer = JSON.parse(kept) as { expires_in?: unknown };
  if (typeof answer.expires_in === "number") {
    answer.expires_in = Math.max(0, answer.expires_in - Math.floor((Date.now() - answeredAt) / 1000));
  }
  return Response.json(answer, { headers: answerHeaders(request) });
}

/** Why a client the request names must not be looked up (or its key set fetched), or `undefined`. */
async function clientProblem(
  form: URLSearchParams,
  authorization: string | null,
  helpers: () => OAuthHelpers,
): Promise<string | undefined> {
  const ids = clientIdsOf(form, authorization);
  if (!ids) return "the client could not be identified";
  for (const id of ids) {
    const problem = clientIdProblem(id);
    if (problem) return problem;
  }
  // Why only with an assertion: the provider fetches a document's jwks_uri only to verify a client assertion. The
  // document is looked up here first, to see that URL before the provider fetches it.
  const asserted = form.getAll("client_assertion").some(Boolean) || form.getAll("client_assertion_type").some(Boolean);
  // SEP-3149: without an assertion the request authenticates with `none`, which a document's client may use only
  // when it shares no authenticated method with this server (client-auth.ts).
  for (const id of asserted ? [] : ids.filter(isMetadataDocumentUrl)) {
    const auth = await fetchDocumentAuth(id);
    if (!auth.ok) return auth.problem;
    if (auth.mustAuthenticate) return "this client must authenticate with private_key_jwt: its metadata document offers it";
  }
  for (const id of asserted ? ids.filter(isMetadataDocumentUrl) : []) {
    try {
      const problem = jwksUriProblem((await helpers().lookupClient(id))?.jwksUri);
      if (problem) return problem;
    } catch (error) {
      const { CimdFetchError } = await oauthLibrary();
      if (error instanceof CimdFetchError) return "this client's metadata document could not be used";
      throw error;
    }
  }
  return undefined;
}

/** An RFC 6749 §5.2 error, readable by a browser-based client as the provider's own answers are. */
function tokenError(request: Request, status: number, code: string, description: string, extra?: Record<string, string>): Response {
  return Response.json({ error: code, error_description: description }, { status, headers: { ...answerHeaders(request), ...extra } });
}

/** A token endpoint answer is never cached (RFC 6749 §5.1), and a browser-based client may read it. */
export function answerHeaders(request: Request): Record<string, string> {
  const origin = request.headers.get("origin");
  return { "cache-control": "no-store", pragma: "no-cache", ...(origin && { "access-control-allow-origin": origin, vary: "Origin" }) };
}
