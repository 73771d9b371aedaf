/**
 * @module wire/principal
 * Who is calling. With authorization off every caller is the same anonymous principal, so nothing may be listed
 * or kept "per caller" unless callers are told apart.
 */

/**
 * The caller (`ctx.principal`): anonymous unless authorization is turned on, and then the verified subject of the
 * bearer token with its scopes. With authorization off every caller is the same anonymous principal, so list or keep
 * nothing "per caller" then; `authenticated` tells the two apart.
 *
 * @example
 * ```ts
 * export function ownerKey(principal: Principal, id: string): string {
 *   // With authorization off every caller is the same anonymous principal: the key then tells no one apart.
 *   return `${principal.id}:${id}`;
 * }
 * ```
 */
export interface Principal {
  /**
   * Who it is: the token's subject (`sub`); with the built-in authorization server, the upstream login's user
   * (`github-<id>`, `oidc-<issuer tag>-<sub>`), or `client-<client id>` for a machine client; `"anonymous"` when
   * authorization is off. Key what a caller stores by it.
   */
  readonly id: string;
  /** The OAuth scopes the caller's token grants (none when anonymous). */
  readonly scopes: readonly string[];
  /** Whether a verified token named the caller; false for the anonymous principal. */
  readonly authenticated: boolean;
  /** A name to show (the upstream login's display name, or a machine client's), when the built-in authorization server signed them in. */
  readonly name?: string;
  /**
   * Present when the caller is a machine, not a person: an OAuth client that signed in with the client credentials
   * grant (a CI job, a daemon, another server), with no user behind it. `id` is its `client_id`, `name` the name its
   * configuration gives it. Rate limits, budgets and stored things count it as its own caller (`principal.id` is
   * `client-<id>`); per-tool scopes apply to it as to people. No person's id starts with `client-`: with the built-in
   * authorization server a person's is `github-...` or `oidc-...`; with an external issuer (AUTH_ISSUER) it is the
   * token's `sub`, and a person's token whose `sub` starts with `client-` is refused (401 `invalid_token`).
   */
  readonly client?: { readonly id: string; readonly name: string };
  /**
   * The upstream provider's access token (AUTH_UPSTREAM_TOKEN=on), for tools that call that provider's API on the
   * user's behalf. A secret: never log it, never return it, never send it anywhere but that provider. A tool running
   * as a task (Tasks extension) does not get it: it is never stored with the task.
   */
  readonly upstreamToken?: string;
}

export const ANONYMOUS: Principal = Object.freeze({ id: "anonymous", scopes: Object.freeze([]), authenticated: false });
