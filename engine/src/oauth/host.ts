/**
 * @module oauth/host
 * Authorization-server mode (AUTH_LOGIN set): the Worker runs `@cloudflare/workers-oauth-provider`, which owns the
 * OAuth endpoints and the discovery documents, validates every token on /mcp, and hands the engine's router the
 * request with the grant's identity on the execution context. The provider is imported dynamically, only in this
 * mode (library.ts): a server in "none" or "resource server" mode never evaluates it.
 *
 *   /.well-known/oauth-authorization-server       RFC 8414 metadata (the provider)
 *   /.well-known/oauth-protected-resource[/mcp]   RFC 9728 metadata (the provider; the engine serves none here)
 *   /register                                     DCR (the provider, rate limited; every member bounded first)
 *   /token                                        code and refresh exchange, revocation (the provider, rate limited;
 *                                                 its clients checked first, one request per grant at a time, a
 *                                                 retried refresh answered again and a reused one refused); the
 *                                                 client credentials grant of machine clients (the engine's own:
 *                                                 client-credentials.ts)
 *   /authorize  /oauth/callback                   consent and third-party login (login.ts)
 *   /mcp                                          the engine, with a verified token only
 *
 * The provider keeps its state in OAuthState objects (state.ts) through the store it is given as `OAUTH_KV`
 * (state-store.ts), never in the KV namespace: KV is eventually consistent.
 */
import type {
  ClientRegistrationCallbackOptions,
  ClientRegistrationCallbackResult,
  OAuthHelpers,
  OAuthProvider,
  OAuthProviderOptions,
} from "@cloudflare/workers-oauth-provider";
import { advertisedScopes } from "../auth/authenticate";
import type { Config, ConfigResult } from "../config/config";
import { checkHost } from "../http/guards";
import type { McpServer } from "../server/server";
import { memoize } from "../util/memo";
import { HttpError } from "../wire/errors";
import type { OAuthBindings } from "./bindings";
import { refuseOtherGrant, serveClientCredentials } from "./client-credentials";
import { checkClientMetadata, checkRegistrationSize } from "./client-limits";
import { oauthLibrary } from "./library";
import { handleLogin } from "./login";
import { withMachineClients } from "./machine-metadata";
import { resolveMachineToken } from "./machine-token";
import { checkOAuthRateLimit } from "./rate-limit";
import { stateStore } from "./state-store";
import { serveToken } from "./token-endpoint";

/** What the host needs of the engine: its declarations (name, scopes) and its router for everything else. */
export interface EngineRouter {
  server: McpServer;
  /** `loaded`: the configuration the Worker loaded for this request, passed down. */
  fetch(request: Request, env: OAuthBindings, execution: ExecutionContext, loaded: ConfigResult): Promise<Response>;
}

type ProviderEnv = OAuthBindings & { OAUTH_PROVIDER: OAuthHelpers };

const ROOT_RESOURCE_METADATA = "/.well-known/oauth-protected-resource";
const AUTHORIZATION_SERVER_METADATA = "/.well-known/oauth-authorization-server";
const TOKEN_PATH = "/token";

/** Most origins one isolate keeps a provider for (a Worker has one or two: workers.dev and a custom domain). */
const MAX_ORIGINS = 4;
interface OriginProvider {
  provider: OAuthProvider<ProviderEnv>;
  options: OAuthProviderOptions<ProviderEnv>;
}
/** Per engine (its tools give the scopes and the consent page's name), then per origin. */
const providers = new WeakMap<EngineRouter, Map<string, OriginProvider>>();

/**
 * The env the provider runs with: the Worker's, with the OAuthState objects as its `OAUTH_KV`. One per env object
 * (stable for the isolate), so what is memoized per env downstream stays memoized.
 */
const providerEnvOf = memoize(
  // config/settings.ts refuses this mode without OAUTH_STATE, so a request here has it.
  (env: OAuthBindings): ProviderEnv => ({ ...env, OAUTH_KV: stateStore(env.OAUTH_STATE!) }) as ProviderEnv,
);

/** Serves one request in authorization-server mode. */
export async function serveAuthorizationServer(
  request: Request,
  env: OAuthBindings,
  execution: ExecutionContext,
  engine: EngineRouter,
  config: Config,
): Promise<Response> {
  // Why first: the provider builds its issuer, its metadata and the audience of the tokens it issues from the
  // request's origin, so a Host the server does not answer to never reaches it (in production, config/settings.ts requires
  // ALLOWED_HOSTS in this mode; in development only loopback hosts pass).
  const refused = refuseForeignHost(request, config);
  if (refused) return refused;
  // Why before anything is stored: registration writes a client and the token endpoint does crypto; floods stop here.
  const limited = await checkOAuthRateLimit(request, env, config);
  if (limited) return limited;
  const url = new URL(request.url);
  const origin = url.origin;
  // Clients probe the root form of the protected resource metadata too (RFC 9728 §3.1 leaves the path-inserted form
  // for a resource with a path). The one resource here is /mcp, so both forms answer the provider's one document.
  const forwarded =
    url.pathname === ROOT_RESOURCE_METADATA ? new Request(new URL(`${ROOT_RESOURCE_METADATA}/mcp`, origin), request) : request;
  // One provider per origin (its resource URL is `<origin>/mcp`), kept for the few origins a Worker answers on: only
  // origins whose Host passed checkHost above.
  const origins = providers.get(engine) ?? new Map<string, OriginProvider>();
  if (!providers.has(engine)) providers.set(engine, origins);
  const { provider, options } = origins.get(origin) ?? (await originProvider(origin, engine, config));
  if (!origins.has(origin) && origins.size < MAX_ORIGINS) origins.set(origin, { provider, options });
  const providerEnv = providerEnvOf(env);
  if (url.pathname === TOKEN_PATH && request.method === "POST") {
    const { getOAuthApi } = await oauthLibrary();
    const helpers = () => getOAuthApi(options, providerEnv);
    const { refreshTokenMs, refreshRetryMs } = config.limits.oauth;
    const state = env.OAUTH_STATE!;
    const machine = { config, state, origin, tokenPath: TOKEN_PATH };
    const clientCredentials = (tokenRequest: Request, form: URLSearchParams) => serveClientCredentials(tokenRequest, form, machine);
    const machineClientIds = machineClientIdsOf(config);
    return serveToken(request, providerEnv, execution, {
      provider,
      helpers,
      state,
      refreshTokenMs,
      refreshRetryMs,
      machineClientIds,
      clientCredentials,
      refuseOtherGrant: (tokenRequest, form) => refuseOtherGrant(tokenRequest, form, machine),
    });
  }
  const response = await provider.fetch(forwarded, providerEnv, execution);
  // The provider's metadata knows nothing of the grant the engine adds beside it: the document says it too.
  const machineClients = config.authServer!.machineClients.length > 0;
  return machineClients && url.pathname.startsWith(AUTHORIZATION_SERVER_METADATA) ? withMachineClients(response) : response;
}

/** The machine clients' ids, once per configuration. */
const machineClientIdsOf = memoize((config: Config): ReadonlySet<string> => new Set(config.authServer!.machineClients.map(({ id }) => id)));

async function originProvider(origin: string, engine: EngineRouter, config: Config): Promise<OriginProvider> {
  const { OAuthProvider } = await oauthLibrary();
  const options = providerOptions(origin, engine, config);
  return { provider: new OAuthProvider(options), options };
}

/**
 * Every registration is held to the bounds of client-limits.ts. Why this hook: the provider calls it after parsing
 * the body and before storing anything, and answers its refusal as RFC 7591 §3.2.2 says (400 with the code).
 */
async function boundRegistration({
  clientMetadata,
  request,
}: ClientRegistrationCallbackOptions): Promise<ClientRegistrationCallbackResult | undefined> {
  // Why: a machine client is declared by the operator (AUTH_MACHINE_CLIENTS), never registered by whoever calls
  // /register; the extension asks for clients registered out of band.
  const grants = clientMetadata.grant_types;
  if (Array.isArray(grants) && grants.includes("client_credentials")) {
    const description =
      "the client_credentials grant is for machine clients, which the server's configuration declares: they are never registered";
    return { code: "invalid_client_metadata", description, status: 400 };
  }
  // Members first, so the refusal names the one that is too long. The provider has read this body already (its own
  // cap is 1 MiB), so reading the copy costs no more than that.
  const refusal = checkClientMetadata(clientMetadata) ?? checkRegistrationSize((await request.arrayBuffer()).byteLength);
  return refusal && { code: refusal.code, description: refusal.description, status: 400 };
}

/** A 403 for a Host `checkHost` refuses, in the OAuth error shape of the provider's own endpoints; else `undefined`. */
function refuseForeignHost(request: Request, config: Config): Response | undefined {
  try {
    checkHost(request, config);
    return undefined;
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return Response.json(
      { error: "invalid_request", error_description: error.message },
      { status: error.status, headers: { "cache-control": "no-store" } },
    );
  }
}

/**
 * Deletes expired grants and their tokens that an earlier version left in OAUTH_KV (the scheduled handler), while
 * that binding is still bound. Nothing else is purged here: each OAuthState object deletes its own expired records.
 */
export async function purgeExpiredGrants(env: OAuthBindings, engine: EngineRouter, config: Config): Promise<{ grantsPurged: number }> {
  if (!env.OAUTH_KV) return { grantsPurged: 0 };
  // The resource URL plays no part in purging (it only reads and deletes KV records), but the options require one.
  // The Worker's own env: OAUTH_KV is the namespace itself here, not the objects.
  const { OAuthProvider } = await oauthLibrary();
  const provider = new OAuthProvider(providerOptions("https://purge.invalid", engine, config));
  let grantsPurged = 0;
  let cursor: string | undefined;
  // Bounded: a namespace of a million grants is purged over several runs rather than one unbounded one.
  for (let batch = 0; batch < 100; batch++) {
    const result = await provider.purgeExpiredData(env as ProviderEnv, { ...(cursor && { cursor }) });
    grantsPurged += result.grantsPurged;
    if (result.done || !result.cursor) break;
    cursor = result.cursor;
  }
  return { grantsPurged };
}

function providerOptions(origin: string, engine: EngineRouter, config: Config): OAuthProviderOptions<ProviderEnv> {
  const settings = config.authServer!;
  const { oauth } = config.limits;
  const loaded: ConfigResult = { ok: true, config };
  const scopes = advertisedScopes(engine.server.tools.values());
  const context = {
    settings,
    scopes,
    serverName: engine.server.info.title ?? engine.server.info.name,
    keepUpstreamToken: config.upstreamToken,
    grantsPerPerson: oauth.grantsPerPerson,
  };
  return {
    apiRoute: "/mcp",
    apiHandler: { fetch: (request, env, execution) => engine.fetch(request, env, execution, loaded) },
    defaultHandler: {
      fetch: (request, env, execution) =>
        // The env's own objects: config/settings.ts refuses this mode without OAUTH_STATE.
        handleLogin(
          request as Request,
          (env as ProviderEnv).OAUTH_PROVIDER,
          { ...context, state: (env as ProviderEnv).OAUTH_STATE! },
          (next) => engine.fetch(next, env, execution, loaded),
        ),
    },
    authorizeEndpoint: "/authorize",
    tokenEndpoint: TOKEN_PATH,
    clientRegistrationEndpoint: "/register",
    clientRegistrationCallback: boundRegistration,
    // The provider counts in seconds.
    accessTokenTTL: oauth.accessTokenMs / 1000,
    refreshTokenTTL: oauth.refreshTokenMs / 1000,
    // Why: claude.ai registers a new client at every connect; unused ones are deleted instead of piling up.
    clientRegistrationTTL: oauth.clientMs / 1000,
    clientIdMetadataDocumentEnabled: true,
    ...(scopes.length && { scopesSupported: scopes, requiredScopes: scopes }),
    // One document describes /mcp, served by the provider only: the engine's own metadata routes stay unreached.
    resourceMetadata: {
      resource: `${origin}/mcp`,
      authorization_servers: [origin],
      bearer_methods_supported: ["header"],
      resource_name: context.serverName,
    },
    // A machine client's token is the engine's own (machine-token.ts): the provider, not finding it among its own,
    // asks here, and passes what this returns to the engine as `ctx.props`.
    ...(settings.machineClients.length > 0 && {
      resolveExternalToken: async ({ token }) => {
        const props = await resolveMachineToken(config, token, `${origin}/mcp`);
        return props && { props, audience: `${origin}/mcp` };
      },
    }),
    onError: ({ code, status, internal }) => {
      // Never the request, the description or any token: the error code and the failed check are enough.
      console.warn(JSON.stringify({ level: "warn", message: "oauth error", code, status, reason: internal?.reason }));
    },
  };
}
