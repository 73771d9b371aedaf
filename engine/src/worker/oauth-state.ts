/**
 * @module worker/oauth-state
 * The class `createMcpWorker` hands back as `OAuthState`, which wrangler.toml's `OAUTH_STATE` binding names.
 */
import { DurableObject } from "cloudflare:workers";
// Types only, never a value: a Worker that does not pass `authorizationServer` must bundle none of oauth/.
import type { AuthorizationServer } from "../oauth/authorization-server";
import type { OAuthState } from "../oauth/state";

/**
 * Holds nothing and serves nothing: without the `authorizationServer` option no request of the engine reaches the
 * `OAUTH_STATE` objects. Why a class at all: a binding and its migration name a class the entry module must export,
 * and a migration outlives the choice, so the template binds it whether or not it signs people in, and turning
 * sign-in on changes src/index.ts only. Its methods are the authorization server's; this one has none.
 */
class UnusedOAuthState extends DurableObject<unknown> {}

/** The authorization server's state class when the Worker includes it, else one that holds nothing. */
export function oauthStateClass(authorizationServer: AuthorizationServer | undefined): typeof OAuthState {
  return authorizationServer?.OAuthState ?? (UnusedOAuthState as typeof OAuthState);
}
