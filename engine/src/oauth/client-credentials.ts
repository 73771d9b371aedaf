/**
 * @module oauth/client-credentials
 * POST /token with `grant_type=client_credentials` (RFC 6749 §4.4), for the machine clients AUTH_MACHINE_CLIENTS
 * declares: the MCP extension `io.modelcontextprotocol/oauth-client-credentials`. The provider has no such grant, so
 * the engine answers it beside the provider, on its own: the client authenticates (its secret, `client_secret_basic`
 * or `client_secret_post`, or a JWT assertion, `private_key_jwt`: client-assertion.ts), gets at most the scopes it was given and for this server's
 * resource only, and gets an access token of the engine's own (machine-token.ts) and no refresh token: it can
 * always ask again.
 *
 * Every refusal is the RFC 6749 §5.2 error (RFC 8707 `invalid_target` for another resource), and stores nothing:
 * the one write, the assertion's id (its single use), comes after every other check.
 */
import { KeySetUnavailable } from "../auth/jwks";
import { scopeHolder } from "../auth/scopes";
import type { Config } from "../config/config";
import type { MachineClient } from "../config/machine-clients";
import type { ScopeHierarchy } from "../config/scopes";
import { log } from "../util/log";
import { ASSERTION_TYPE, useAssertion, verifyAssertion } from "./client-assertion";
import { mintMachineToken } from "./machine-token";
import type { OAuthStateNamespace } from "./state-store";
import { assertionIssuer, basicCredentials } from "./token-client";
import { answerHeaders } from "./token-endpoint";

export interface ClientCredentialsContext {
  config: Config;
  /** The objects that remember used assertion ids (OAUTH_STATE). */
  state: OAuthStateNamespace;
  /** This server's origin: its issuer, and `<origin>/mcp` its one resource. */
  origin: string;
  /** The path of the token endpoint, for an assertion's audience. */
  tokenPath: string;
}

/** A refusal: the OAuth error, its status, a description, and the client when it is known (for the log line). */
class Refusal {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly description: string,
    readonly client?: MachineClient,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** Bad client authentication: 401, with the challenge RFC 6749 §5.2 asks for (Basic is the one scheme taken here). */
const badClient = (description: string, client?: MachineClient) =>
  new Refusal(401, "invalid_client", description, client, { "www-authenticate": 'Basic realm="token"' });

const SECRET_REFUSED = "the client id and secret were not accepted";
const ASSERTION_REFUSED =
  "the client assertion was not accepted: unknown client, a bad signature, expired, longer-lived than 5 minutes, or not for this server";

/** Parameters a token request must not repeat (RFC 6749 §3.2: none may appear more than once). */
const SINGLE = ["grant_type", "scope", "client_id", "client_assertion", "client_assertion_type", "client_secret"];

export async function serveClientCredentials(
  request: Request,
  form: URLSearchParams,
  context: ClientCredentialsContext,
): Promise<Response> {
  try {
    const { client, scopes } = await grantFor(request, form, context);
    const resource = `${context.origin}/mcp`;
    const ttlMs = context.config.limits.oauth.accessTokenMs;
    const token = await mintMachineToken(context.config, client, scopes, resource, ttlMs);
    const scope = scopes.join(" ");
    log(undefined, "info", "machine client token", { client: client.id, scope });
    // No refresh token (the extension, RFC 6749 §4.4.3): the client authenticates again when this one expires.
    return Response.json(
      { access_token: token, token_type: "Bearer", expires_in: Math.floor(ttlMs / 1000), scope },
      { headers: answerHeaders(request) },
    );
  } catch (error) {
    return refused(request, error);
  }
}

/**
 * A token request that names a machine client for another grant (`authorization_code`, `refresh_token`, ...):
 * `unauthorized_client` once the client has authenticated (RFC 6749 §5.2: it is not authorized for that grant, having
 * no person to act for); `undefined` when it has not, and the caller hands the request to the provider, which knows
 * no such client and answers exactly as it answers any unknown one. Why: an answer of this code's own (another
 * description, another challenge) would tell a stranger which ids are machine clients. Nothing is stored: an
 * assertion's id is recorded only for a token.
 */
export async function refuseOtherGrant(
  request: Request,
  form: URLSearchParams,
  context: ClientCredentialsContext,
): Promise<Response | undefined> {
  let client: MachineClient;
  try {
    ({ client } = await authenticateClient(request, form, context, context.config.authServer?.machineClients ?? []));
  } catch (error) {
    if (error instanceof Refusal) return undefined;
    throw error;
  }
  return refused(request, new Refusal(400, "unauthorized_client", "a machine client may use the client_credentials grant only", client));
}

/**
 * A refusal's answer, and its log line: the code, the status and the client, never the request, a secret or an
 * assertion. Its headers are every /token answer's (never cached, readable by a browser-based client: token-endpoint.ts).
 */
function refused(request: Request, error: unknown): Response {
  if (!(error instanceof Refusal)) throw error;
  log(undefined, "warn", "oauth error", { code: error.code, status: error.status, client: error.client?.id });
  return Response.json(
    { error: error.code, error_description: error.description },
    { status: error.status, headers: { ...answerHeaders(request), ...error.headers } },
  );
}

/** The client and the scopes it gets, once every check holds; throws a `Refusal` at the first that does not. */
async function grantFor(request: Request, form: URLSearchParams, context: ClientCredentialsContext) {
  const clients = context.config.authServer?.machineClients ?? [];
  // Without machine clients this server has no such grant, as the provider would answer.
  if (clients.length === 0) throw new Refusal(400, "unsupported_grant_type", "this server has no machine clients");
  const repeated = SINGLE.find((name) => form.getAll(name).length > 1);
  if (repeated) throw new Refusal(400, "invalid_request", `${repeated} is given more than once`);
  const authenticated = await authenticateClient(request, form, context, clients);
  const scopes = grantedScopes(form.get("scope"), authenticated.client, context.config.scopeHierarchy);
  // RFC 8707: this server issues tokens for one resource, its /mcp; a token for anything else is not its to give.
  const resources = form.getAll("resource");
  if (resources.length > 1 || (resources.length === 1 && resources[0] !== `${context.origin}/mcp`)) {
    throw new Refusal(400, "invalid_target", `the one resource here is ${context.origin}/mcp`, authenticated.client);
  }
  // Last, once everything else holds: the assertion's single use, the one thing a token request stores.
  if (authenticated.assertion) {
    const use = await useAssertion(context.state, authenticated.client, authenticated.assertion);
    if (use.kind === "replayed")
      throw badClient("this client assertion was already used: sign a new one (a new jti)", authenticated.client);
    if (use.kind === "full") {
      const seconds = String(Math.max(1, Math.ceil((use.retryAt - Date.now()) / 1000)));
      throw new Refusal(
        429,
        "temporarily_unavailable",
        `too many live client assertions: retry in ${seconds} seconds`,
        authenticated.client,
        {
          "retry-after": seconds,
        },
      );
    }
  }
  return { client: authenticated.client, scopes };
}

/**
 * Who the client is, by the one method it used: its secret (HTTP Basic, `client_secret_basic`, or in the form,
 * `client_secret_post`, as the extension's own example sends it), or a JWT assertion. Why refuse two methods at once
 * (RFC 6749 §2.3): one request, one way to decide who sent it.
 */
async function authenticateClient(request: Request, form: URLSearchParams, context: ClientCredentialsContext, clients: MachineClient[]) {
  const basic = basicCredentials(request.headers.get("authorization"));
  if (basic === undefined) throw badClient("the Basic credentials could not be read");
  const posted = form.get("client_secret");
  const assertion = form.get("client_assertion");
  if ([basic, posted, assertion].filter((method) => method !== null).length > 1) {
    throw new Refusal(400, "invalid_request", "use one client authentication method, not two");
  }
  const named = form.get("client_id");
  const secret = basic ?? (posted === null ? null : { id: named, secret: posted });
  if (secret) {
    const client = clients.find((declared) => declared.id === secret.id);
    if (basic && named !== null && named !== basic.id) throw badClient("client_id is not the client of the Basic credentials", client);
    // Why hash before knowing whether the client takes a secret: an unknown client, a key client and a wrong secret
    // then cost the same work, so the time of the answer does not tell which ids are machine clients either.
    const presented = await sha256(secret.secret);
    // One description for an unknown client and a wrong secret: which ids are machine clients is not told here.
    if (client?.auth.method !== "client_secret_basic") throw badClient(SECRET_REFUSED);
    if (!crypto.subtle.timingSafeEqual(presented, client.auth.secretSha256)) throw badClient(SECRET_REFUSED, client);
    return { client };
  }
  if (assertion === null) throw badClient("client authentication is required: a client secret or a client assertion (private_key_jwt)");
  if (form.get("client_assertion_type") !== ASSERTION_TYPE) throw badClient(`client_assertion_type must be ${ASSERTION_TYPE}`);
  // RFC 7523 §3: the assertion names its client (iss and sub, checked equal below); a client_id, when sent, must agree.
  const id = named ?? assertionIssuer(assertion);
  const client = clients.find((declared) => declared.id === id);
  if (client?.auth.method !== "private_key_jwt") throw badClient(ASSERTION_REFUSED);
  const audiences = [context.origin, `${context.origin}/`, `${context.origin}${context.tokenPath}`];
  try {
    return { client, assertion: await verifyAssertion(assertion, client, audiences) };
  } catch (error) {
    // Why not invalid_client: the client's key set could not be fetched, so nothing is known of its credentials;
    // telling it they are wrong would send its operator looking in the wrong place. It may retry once the failure is
    // forgotten (auth/jwks.ts).
    if (error instanceof KeySetUnavailable) {
      const seconds = String(Math.max(1, Math.ceil((error.retryAt - Date.now()) / 1000)));
      throw new Refusal(503, "temporarily_unavailable", "the client's key set could not be fetched: retry later", client, {
        "retry-after": seconds,
      });
    }
    // One answer whatever failed (signature, audience, expiry, life, jti): the detail helps an attacker more.
    throw badClient(ASSERTION_REFUSED, client);
  }
}

/**
 * The SHA-256 of a presented secret. Why compare hashes: both sides are then 32 bytes, so the comparison's time tells
 * nothing about the secret's length; and `timingSafeEqual` tells nothing about where they differ.
 */
async function sha256(secret: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(secret)));
}

/**
 * The scopes the token carries: of those asked for, the ones the client holds under the server's scope hierarchy
 * (`scopeHierarchy`, as per-tool checks apply it to people: a client given `invoices` may ask for `invoices:read`, and
 * then gets only that); without `scope`, all it was given. Why narrow rather than refuse a request that also names
 * others (RFC 6749 §3.3 lets the server issue fewer, and the answer's `scope` says which): the official clients ask
 * for every scope the server's 401 challenge lists, which a client given fewer would otherwise never get past. A
 * request naming none of the client's scopes is refused, `invalid_scope`: there is nothing to grant.
 */
function grantedScopes(asked: string | null, client: MachineClient, hierarchy: ScopeHierarchy): string[] {
  if (asked === null || asked.trim() === "") return client.scopes;
  const scopes = [...new Set(asked.split(" ").filter(Boolean))];
  const granted = scopes.filter(scopeHolder(client.scopes, hierarchy));
  if (granted.length === 0) throw new Refusal(400, "invalid_scope", `this client may not have: ${scopes.join(" ")}`, client);
  return granted;
}
