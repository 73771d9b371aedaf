/**
 * @module auth/authenticate
 * Authorization (off unless AUTH_ISSUER is set): this server is an OAuth 2.1 resource server. Every request
 * carries `Authorization: Bearer <JWT>`, verified against the issuer's keys for signature, issuer, expiry and
 * audience (RFC 8707: the token must be issued for this server). The verified subject becomes the principal.
 * Clients discover the issuer from the Protected Resource Metadata (RFC 9728) that 401 answers point to.
 * Tokens are never forwarded anywhere. Scopes are checked per tool, with scope hierarchies (`scopes.ts`).
 */
import type { AuthSettings, Config } from "../config/config";
import { memoize } from "../util/memo";
import { HttpError } from "../wire/errors";
import { ANONYMOUS, type Principal } from "../wire/principal";
import { keySetOf } from "./jwks";
import { type VerifiedClaims, verifyAccessToken } from "./jwt";
import { machineClaimsOf } from "./machine-claims";
import { scopeHolder } from "./scopes";

/**
 * The issuer's keys per settings: inline, or fetched and cached per isolate (refetched when an unknown kid shows up).
 * Why jwt.ts and jwks.ts are imported statically: they only define constants and functions, so evaluating them
 * costs nothing with authorization off, while a dynamic import made the bundler wrap every module they share with
 * the engine in a lazy initializer (about 0.5 KiB gzip of the upload).
 */
const keySet = memoize((settings: AuthSettings) => keySetOf(settings));

/**
 * The audience tokens must carry: AUTH_AUDIENCE, or this server's MCP endpoint URL (RFC 8707). Why the request's
 * origin can stand for this server: every route that calls this has passed `checkHost`, and without AUTH_AUDIENCE
 * config/settings.ts lets production run only with ALLOWED_HOSTS, so the Host is one the operator listed (loopback in
 * development), never one the caller picked to name another service.
 */
const audienceOf = (request: Request, settings: AuthSettings) => settings.audience ?? `${new URL(request.url).origin}/mcp`;

/** This server's resource identifier for the metadata: the audience when it is a URL, else the endpoint URL. */
const resourceUrl = (request: Request, settings: AuthSettings) => {
  const audience = audienceOf(request, settings);
  return URL.canParse(audience) ? audience : `${new URL(request.url).origin}/mcp`;
};
export const metadataUrl = (request: Request) => `${new URL(request.url).origin}/.well-known/oauth-protected-resource/mcp`;

/** A 400, 401 or 403 with the `WWW-Authenticate` challenge (RFC 6750 §3) that tells the client where to get a token. */
function challenge(request: Request, status: 400 | 401 | 403, message: string, params: Record<string, string> = {}): HttpError {
  const fields = { ...params, resource_metadata: metadataUrl(request) };
  const header = `Bearer ${Object.entries(fields)
    .map(([name, value]) => `${name}="${value.replace(/["\\]/g, "")}"`)
    .join(", ")}`;
  return new HttpError(status, message, { "www-authenticate": header });
}

/**
 * Verifies the bearer token and returns the principal: a person, or a machine client when the token was minted through
 * the client credentials grant (machine-claims.ts); anonymous when authorization is off.
 * `scopes` are the scopes a client should ask for (`advertisedScopes`), named in every 401 challenge.
 */
export async function authenticate(
  request: Request,
  config: Config,
  scopes: readonly string[],
  execution?: ExecutionContext,
): Promise<Principal> {
  if (config.authServer) return grantedPrincipal(request, execution, scopes);
  const settings = config.auth;
  if (!settings) return ANONYMOUS;
  // Why: URLs end up in logs, histories and Referer headers; a token there is a leaked token (OAuth 2.1).
  // Why 400: a token in the URL is a malformed request (RFC 6750 §3.1 invalid_request; the spec's error table).
  const query = new URL(request.url).searchParams;
  if (query.has("access_token") || query.has("token")) {
    throw challenge(request, 400, "Bad Request: send the token in the Authorization header, never in the URL", {
      error: "invalid_request",
    });
  }
  // Why name scopes on a 401 (spec: SHOULD): the client asks for them when it first authorizes, instead of guessing.
  // The body is not read yet, so the operation is unknown: the scopes are those the metadata lists.
  const scope: Record<string, string> = scopes.length ? { scope: scopes.join(" ") } : {};
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/.exec(request.headers.get("authorization") ?? "");
  if (!match) throw challenge(request, 401, "Unauthorized: a bearer token is required", scope);
  let claims: VerifiedClaims;
  try {
    // Signature, an access token's typ, issuer, audience, the allow-listed algorithm, sub, exp, nbf and iat (30 s
    // clock tolerance): jwt.ts.
    claims = await verifyAccessToken(match[1]!, keySet(settings), {
      issuer: settings.issuer,
      audience: audienceOf(request, settings),
      algorithms: settings.algorithms,
    });
  } catch {
    // The reason (expired, wrong audience, bad signature) is not echoed: it helps an attacker more than a client.
    throw challenge(request, 401, "Unauthorized: the token is invalid or expired", { error: "invalid_token", ...scope });
  }
  // A token the issuer minted for a machine (client credentials) reaches tools as the client it names.
  const machine = machineClaimsOf(claims);
  if (machine) return clientPrincipal(machine.clientId, machine.clientId, machine.scopes ?? scopesOf(claims));
  // Why: a person's id here is the issuer's `sub` as it is, and a machine's is `client-<client id>`; a person whose
  // `sub` the issuer spells `client-ci` would otherwise be machine `ci` to every tool (its data, its limits, its
  // quotas). The issuer chose that `sub`, so the token is refused, saying why, rather than renamed.
  if (claims.sub.startsWith(CLIENT_ID_PREFIX)) {
    throw challenge(request, 401, "Unauthorized: the token is invalid or expired", {
      error: "invalid_token",
      error_description: `a person's token whose sub starts with ${CLIENT_ID_PREFIX} is refused: that prefix names machine clients here`,
      ...scope,
    });
  }
  return { id: claims.sub, scopes: scopesOf(claims), authenticated: true };
}

/** What starts the principal id of every machine client, in both modes, and no person's id. */
const CLIENT_ID_PREFIX = "client-";

/**
 * With the built-in authorization server the provider has already checked the token (signature, expiry, audience)
 * before the request reached the engine, and put what it verified on the execution context: the grant's props
 * (`ctx.props`, written by this server at login) and the token's scopes (`ctx.auth.scope`).
 * Why fail closed: a request that reached /mcp without them did not pass through the provider.
 */
function grantedPrincipal(request: Request, execution: ExecutionContext | undefined, scopes: readonly string[]): Principal {
  const verified = execution as (ExecutionContext & { props?: unknown; auth?: { scope?: unknown } }) | undefined;
  const machine = machinePrincipal(verified?.props);
  if (machine) return machine;
  const props = verified?.props as { id?: unknown; name?: unknown; upstreamToken?: unknown } | undefined;
  if (typeof props?.id !== "string" || !Array.isArray(verified?.auth?.scope)) {
    throw challenge(request, 401, "Unauthorized: a bearer token is required", scopes.length ? { scope: scopes.join(" ") } : {});
  }
  return {
    id: props.id,
    scopes: verified.auth.scope.filter((scope): scope is string => typeof scope === "string"),
    authenticated: true,
    ...(typeof props.name === "string" && { name: props.name }),
    ...(typeof props.upstreamToken === "string" && { upstreamToken: props.upstreamToken }),
  };
}

/**
 * A machine client (the client credentials grant), from the props the engine's own token check handed the provider
 * (oauth/machine-token.ts): the client, never a person, so no user id; its id is `client-<client id>`, which no
 * person's id of this server can be (`github-...`, `oidc-...`), so what it keeps and what it is counted for are its
 * own. Why a dash, as theirs: a client id holds no `:` (config/machine-clients.ts), so neither does this id, and
 * apps key records with `<principal>:<id>` (oauth/upstream.ts).
 */
function machinePrincipal(props: unknown): Principal | undefined {
  const { client, scopes } = (props ?? {}) as { client?: { id?: unknown; name?: unknown }; scopes?: unknown };
  if (typeof client?.id !== "string" || typeof client.name !== "string" || !Array.isArray(scopes)) return undefined;
  return clientPrincipal(
    client.id,
    client.name,
    scopes.filter((scope): scope is string => typeof scope === "string"),
  );
}

/** A machine client as the principal, in either mode: never a person, so its id is its own namespace's. */
const clientPrincipal = (id: string, name: string, scopes: string[]): Principal => ({
  id: `${CLIENT_ID_PREFIX}${id}`,
  scopes,
  authenticated: true,
  name,
  client: { id, name },
});

/** Scopes from `scope` (space-separated, RFC 8693) or `scp` (an array, as some issuers send); never an empty one. */
function scopesOf(payload: Record<string, unknown>): string[] {
  if (typeof payload.scope === "string") return payload.scope.split(" ").filter(Boolean);
  if (Array.isArray(payload.scp)) return payload.scp.filter((scope): scope is string => typeof scope === "string" && scope !== "");
  return [];
}

/** What authorization needs to know of a tool: its name and the scopes it requires. */
export interface ScopedTool {
  name: string;
  scopes?: readonly string[];
}

/**
 * Whether the principal may use the tool: the one place that decides, for listing and for calling. Each scope the
 * tool needs must be granted, or implied by a granted one under the `scopeHierarchy` option (`notes` implies `notes:read`
 * by default). With authorization off there are no scopes to check.
 */
export function permits(principal: Principal, tool: ScopedTool, config: Config): boolean {
  if (!principal.authenticated || !(config.auth || config.authServer)) return true;
  return (tool.scopes ?? []).every(scopeHolder(principal.scopes, config.scopeHierarchy));
}

/** 403 with every scope the tool needs in one challenge, so the client can step up in one go. */
export function requireToolScopes(request: Request, config: Config, principal: Principal, tool: ScopedTool | undefined): void {
  if (!tool || permits(principal, tool, config)) return;
  const scope = (tool.scopes ?? []).join(" ");
  throw challenge(request, 403, `Forbidden: tool ${tool.name} needs the scopes: ${scope}`, {
    error: "insufficient_scope",
    scope,
    error_description: `The ${tool.name} tool requires ${scope}`,
  });
}

/** The scopes this server advertises, in its metadata and its 401 challenges: every scope a tool declares. */
export function advertisedScopes(tools: Iterable<ScopedTool>): string[] {
  return [...new Set([...tools].flatMap((tool) => tool.scopes ?? []))].sort();
}

/** RFC 9728 Protected Resource Metadata, or `undefined` when authorization is off. */
export function protectedResourceMetadata(request: Request, config: Config, scopes: readonly string[], name: string) {
  if (!config.auth) return undefined;
  return {
    resource: resourceUrl(request, config.auth),
    authorization_servers: [config.auth.issuer],
    bearer_methods_supported: ["header"],
    ...(scopes.length && { scopes_supported: scopes }),
    resource_name: name,
  };
}
