/**
 * @module oauth/token-endpoint
 * POST /token around the provider. Before it: the form is read once, bounded (the provider reads a body of any
 * size), the clients it names are checked before the provider looks them up (a client ID metadata document is a
 * fetch, public-host.ts), and a refresh token that was already redeemed revokes its grant (refresh-reuse.ts). After
 * it: a refresh it honoured is remembered. The provider gets the same request, body included.
 */
import type { OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { readAtMost } from "../http/body";
import type { OAuthBindings } from "./bindings";
import { oauthLibrary } from "./library";
import { clientIdProblem, isMetadataDocumentUrl, jwksUriProblem } from "./public-host";
import { grantOf, markRedeemed, wasRedeemed } from "./refresh-reuse";
import { clientIdsOf } from "./token-client";

/** The largest token request read, in bytes: real ones are under 1 KiB; a client assertion may be 16 KiB. */
export const MAX_TOKEN_REQUEST_BYTES = 65_536;

export interface TokenEndpoint {
  provider: { fetch(request: Request, env: OAuthBindings, execution: ExecutionContext): Promise<Response> };
  /** The provider's helpers, made only on the paths that need them (a reused refresh token, a client's key set). */
  helpers: () => OAuthHelpers;
  /** How long a redeemed refresh token is remembered: as long as any grant lives. */
  refreshTokenSeconds: number;
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
  const unsafeClient = await clientProblem(form, authorization, endpoint.helpers);
  if (unsafeClient) {
    // RFC 6749 §5.2: a client that tried HTTP Basic is told which scheme to use.
    const basic = /^\s*basic\b/i.test(authorization ?? "") ? { "www-authenticate": 'Basic realm="token"' } : undefined;
    return tokenError(request, 401, "invalid_client", unsafeClient, basic);
  }
  const kv = env.OAUTH_KV!;
  const refreshToken = form.get("grant_type") === "refresh_token" ? form.get("refresh_token") : null;
  if (refreshToken && (await wasRedeemed(kv, refreshToken))) {
    // A redeemed token is only ever recorded after the provider honoured it, so its user and grant are genuine.
    const grant = grantOf(refreshToken);
    if (grant) await endpoint.helpers().revokeGrant(grant.grantId, grant.userId);
    return tokenError(request, 400, "invalid_grant", "this refresh token was already used, so its grant is revoked: sign in again");
  }
  const response = await endpoint.provider.fetch(new Request(request, { body: bytes }), env, execution);
  if (refreshToken && response.status === 200) await markRedeemed(kv, refreshToken, endpoint.refreshTokenSeconds);
  return response;
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
  const origin = request.headers.get("origin");
  return Response.json(
    { error: code, error_description: description },
    {
      status,
      headers: { "cache-control": "no-store", ...(origin && { "access-control-allow-origin": origin, vary: "Origin" }), ...extra },
    },
  );
}
