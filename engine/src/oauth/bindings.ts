/**
 * @module oauth/bindings
 * The bindings of authorization-server mode (AUTH_LOGIN): where the provider keeps clients, grants and tokens, and
 * the limit on the two endpoints that cost the most.
 */
export interface OAuthBindings {
  /** Clients, grants and tokens (stored hashed or encrypted by the provider). Required in this mode. */
  OAUTH_KV?: KVNamespace;
  /** Requests per client network (an IPv4 address, an IPv6 /64) per period on `/register` and `/token`; without it they are not limited. */
  OAUTH_RATE_LIMITER?: RateLimit;
}
