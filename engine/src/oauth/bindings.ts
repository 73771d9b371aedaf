/**
 * @module oauth/bindings
 * The bindings of authorization-server mode (AUTH_LOGIN): where the provider keeps clients, grants and tokens, and
 * the limit on the two endpoints that cost the most.
 */
import type { OAuthStateNamespace } from "./state-store";

export interface OAuthBindings {
  /**
   * Clients, grants, tokens and sign-ins in progress, each read after every write before it (state.ts; stored hashed
   * or encrypted by the provider). Required in this mode.
   */
  OAUTH_STATE?: OAuthStateNamespace;
  /**
   * Where an earlier version kept that state (eventually consistent, so no longer used for it): the scheduled run
   * deletes the expired grants left there while the binding is still bound. Optional.
   */
  OAUTH_KV?: KVNamespace;
  /** Requests per client network (an IPv4 address or IPv6 /64) per period on `/register` and `/token`; without it they are not limited. */
  OAUTH_RATE_LIMITER?: RateLimit;
}
