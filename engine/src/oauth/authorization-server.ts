/**
 * @module oauth/authorization-server
 * The built-in authorization server as one value, `authorizationServer`, that the entry module passes to
 * `createMcpWorker` when it sets AUTH_LOGIN. Why a value the app imports rather than something the Worker always
 * carries: the worker layer refers to this folder by type only, so a Worker that never imports this value uploads
 * none of its code and none of `@cloudflare/workers-oauth-provider` (about 37 KB gzip).
 */
import type { Config } from "../config/config";
import type { OAuthBindings } from "./bindings";
import { type EngineRouter, purgeExpiredGrants, serveAuthorizationServer } from "./host";
import { OAuthState } from "./state";

/** What `createMcpWorker` needs of the authorization server: serving every request in that mode, the purge, its state. */
export interface AuthorizationServer {
  /** Serves one request in authorization-server mode (the OAuth endpoints, and /mcp behind a verified token). */
  serve(request: Request, env: OAuthBindings, execution: ExecutionContext, engine: EngineRouter, config: Config): Promise<Response>;
  /** Deletes expired grants and their tokens: the Worker's scheduled run. */
  purgeExpiredGrants(env: OAuthBindings, engine: EngineRouter, config: Config): Promise<{ grantsPurged: number }>;
  /** The Durable Object class of its state (`OAUTH_STATE`), which `createMcpWorker` hands back as `OAuthState`. */
  OAuthState: typeof OAuthState;
}

/**
 * The built-in OAuth authorization server (AUTH_LOGIN: sign-in through GitHub or OpenID Connect), as the
 * `authorizationServer` option of `createMcpWorker`. Only a Worker that passes it includes its code; one that sets
 * AUTH_LOGIN without it does not run open: its configuration is invalid (`/mcp` and `/health` answer 503, and the
 * page at `/` says what to add to src/index.ts).
 *
 * @example
 * ```ts
 * export const signedInWorker = createMcpWorker<Env>({
 *   name: "weather",
 *   version: "1.0.0",
 *   tools: [getForecast],
 *   // With AUTH_LOGIN set: without this line the configuration is invalid, and /mcp answers 503 until it is added.
 *   authorizationServer,
 * });
 * ```
 */
export const authorizationServer: AuthorizationServer = { serve: serveAuthorizationServer, purgeExpiredGrants, OAuthState };
