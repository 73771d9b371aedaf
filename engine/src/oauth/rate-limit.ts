/**
 * @module oauth/rate-limit
 * Requests per client network (an IPv4 address, an IPv6 /64) per period on the two OAuth endpoints that cost the
 * most: `/register` (each registration is a KV write that lives for AUTH_CLIENT_TTL_SECONDS) and `/token` (hashing,
 * KV reads and writes). Through the OAUTH_RATE_LIMITER binding; without it nothing is limited. Like RATE_LIMITER, it
 * stops floods, not single requests, and its 429 says the time left (`Retry-After`).
 */

import type { Config } from "../config/config";
import { clientNetwork } from "../http/client-address";
import { charge } from "../http/rate-limit";
import type { OAuthBindings } from "./bindings";

const LIMITED_PATHS = new Set(["/register", "/token"]);

/** A 429 when the caller is over its limit, else `undefined`. */
export async function checkOAuthRateLimit(request: Request, env: OAuthBindings, config: Config): Promise<Response | undefined> {
  const limiter = env.OAUTH_RATE_LIMITER;
  if (!limiter || request.method !== "POST" || !LIMITED_PATHS.has(new URL(request.url).pathname)) return undefined;
  // Counted per network, as on /mcp: an IPv6 client's whole /64 is one caller (http/client-address.ts).
  const retryAfterMs = await charge(limiter, `oauth:${clientNetwork(request)}`, 1, config.limits.rateLimit.periodMs);
  if (retryAfterMs === undefined) return undefined;
  // The time left, as on /mcp (http/rate-limit.ts, `RefusalClock`).
  const seconds = String(Math.ceil(retryAfterMs / 1000));
  // RFC 6749 has no code for "too many"; temporarily_unavailable is the one a client treats as retry-later.
  return Response.json(
    { error: "temporarily_unavailable", error_description: `Too many requests: retry in ${seconds} seconds` },
    { status: 429, headers: { "retry-after": seconds, "cache-control": "no-store" } },
  );
}
