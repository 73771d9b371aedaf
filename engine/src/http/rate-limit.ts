/**
 * @module http/rate-limit
 * JSON-RPC requests per caller per period, through the Workers rate-limiting binding (RATE_LIMITER in wrangler.toml;
 * without the binding there is no limit). The key is the principal when authorization is on, else the client's network (`callerKey`).
 * The binding counts per Cloudflare location and is eventually consistent: it stops floods, not single requests.
 *
 * The unit is one JSON-RPC request: every HTTP request costs one before its body is read, and a 2025-03-26 batch
 * pays for the rest of its requests once it is parsed, before any of them runs (`legacy/serve.ts`).
 */
import { HttpError } from "../wire/errors";
import { clientNetwork } from "./client-address";
import type { HttpExchange } from "./exchange";

/** The binding this module reads: requests per caller per period on `/mcp` (wrangler.toml `[[ratelimits]]`). */
export interface RateLimitBindings {
  RATE_LIMITER?: RateLimit;
}

/**
 * Who a per-caller limit counts: the principal when it signed in, else the client's network (an IPv6 client's /64,
 * see http/client-address.ts). Why not the anonymous principal: with authorization off every caller is that one
 * principal, and one shared count would let one client starve everyone. Also the key of the per-caller task quota
 * (`tasks/quota.ts`) and of each caller's share of the listeners (`listen/groups.ts`).
 */
export function callerKey(exchange: Pick<HttpExchange, "principal" | "request">): string {
  const principal = exchange.principal;
  return principal?.authenticated ? `principal:${principal.id}` : clientNetwork(exchange.request);
}

/**
 * Charges `units` requests to the caller, or throws 429 when the caller is over its limit.
 *
 * Why Retry-After is the whole period (RATE_LIMIT_PERIOD_SECONDS): the binding answers only `{ success }`, never how
 * long until its window frees up, so the period is the one honest bound the server has.
 */
export async function checkRateLimit(exchange: HttpExchange, units = 1): Promise<void> {
  const limiter = (exchange.env as RateLimitBindings).RATE_LIMITER;
  if (!limiter || units < 1) return;
  const key = callerKey(exchange);
  // The binding counts one per call and has no weight parameter, so N units are N calls (in parallel: one round).
  const outcomes = await Promise.all(Array.from({ length: units }, () => limiter.limit({ key })));
  if (outcomes.every(({ success }) => success)) return;
  const seconds = exchange.config.limits.rateLimit.periodMs / 1000;
  throw new HttpError(429, `Too Many Requests: retry in ${seconds} seconds`, { "retry-after": String(seconds) });
}
