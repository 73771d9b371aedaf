/**
 * @module principal
 * Who is calling. With authorization off every caller is the same anonymous principal, so nothing may be listed
 * or kept "per caller" unless callers are told apart.
 */

/** The caller. Anonymous unless authorization is turned on. */
export interface Principal {
  readonly id: string;
  readonly scopes: readonly string[];
  readonly authenticated: boolean;
  /** A name to show (the upstream login's display name), when the built-in authorization server signed them in. */
  readonly name?: string;
  /**
   * The upstream provider's access token (AUTH_UPSTREAM_TOKEN=on), for tools that call that provider's API on the
   * user's behalf. A secret: never log it, never return it, never send it anywhere but that provider. A tool running
   * as a task (Tasks extension) does not get it: it is never stored with the task.
   */
  readonly upstreamToken?: string;
}

export const ANONYMOUS: Principal = Object.freeze({ id: "anonymous", scopes: Object.freeze([]), authenticated: false });
