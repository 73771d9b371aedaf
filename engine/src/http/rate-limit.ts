/**
 * @module http/rate-limit
 * Requests per caller per period, through the Workers rate-limiting bindings: RATE_LIMITER for every JSON-RPC request
 * on `/mcp` (without the binding there is no limit), and a tool's own binding for its budget (define/budget.ts). The
 * key is the principal when authorization is on, else the client's network (`callerKey`). A binding counts per
 * Cloudflare location and is eventually consistent: it stops floods, not single requests.
 *
 * The unit is one JSON-RPC request: every HTTP request costs one before its body is read, and a 2025-03-26 batch
 * pays for the rest of its requests once it is parsed, before any of them runs (`legacy/serve.ts`).
 */
import type { Config } from "../config/config";
import { ErrorCode, HttpError } from "../wire/errors";
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
 * (`tasks/quota.ts`), of each caller's share of the listeners (`listen/groups.ts`) and of tool budgets.
 */
export function callerKey(exchange: Pick<HttpExchange, "principal" | "request">): string {
  const principal = exchange.principal;
  return principal?.authenticated ? `principal:${principal.id}` : clientNetwork(exchange.request);
}

/**
 * Charges `units` to `key` on `limiter`; the milliseconds until the key may be served again when it is over its
 * limit, else undefined. The binding counts one per call and has no weight parameter, so N units are N calls (in
 * parallel: one round trip).
 */
export async function charge(limiter: RateLimit, key: string, units: number, periodMs: number): Promise<number | undefined> {
  // One unit (every request but a 2025-03-26 batch's rest): one call, without the array and Promise.all around it.
  const outcomes =
    units === 1 ? [await limiter.limit({ key })] : await Promise.all(Array.from({ length: units }, () => limiter.limit({ key })));
  if (outcomes.every(({ success }) => success)) {
    refusals.served(key);
    return undefined;
  }
  return refusals.retryAfterMs(key, periodMs, Date.now());
}

/**
 * Charges `units` requests to the caller, or throws 429 when the caller is over its limit: `Retry-After` (the time
 * left, see `RefusalClock`), `RateLimit-Limit` and `RateLimit-Remaining`, and, with `rateLimitError: "sep-3304"`, the
 * draft's -32023 with `data.retryAfterMs`.
 */
export async function checkRateLimit(exchange: HttpExchange, units = 1): Promise<void> {
  const limiter = (exchange.env as RateLimitBindings).RATE_LIMITER;
  if (!limiter || units < 1) return;
  const { periodMs, requests } = exchange.config.limits.rateLimit;
  const retryAfterMs = await charge(limiter, `mcp:${callerKey(exchange)}`, units, periodMs);
  if (retryAfterMs !== undefined) throw rateLimited(exchange.config, retryAfterMs, requests);
}

/** The 429 of a request over the rate limit, as `config.rateLimitError` shapes it. */
function rateLimited(config: Config, retryAfterMs: number, limit: number): HttpError {
  const seconds = Math.ceil(retryAfterMs / 1000);
  const headers = { "retry-after": String(seconds), "ratelimit-limit": String(limit), "ratelimit-remaining": "0" };
  const message = `Too Many Requests: retry in ${seconds} seconds`;
  if (config.rateLimitError !== "sep-3304") return new HttpError(429, message, headers);
  return new HttpError(429, message, headers, { code: ErrorCode.RateLimited, data: { retryAfterMs, limit, remaining: 0 } });
}

/**
 * When a refused key may be served again, as far as this isolate can tell. The binding answers only yes or no,
 * never when its window ends; a window is at most one period long, so it has ended at the latest one period after
 * the first refusal this isolate saw of the key. The time left counts down from there (a retry 20 s into a 60 s
 * period is told 40 s); a key served again is forgotten, and one refused a period or more after its first refusal
 * starts a new count. Why not the whole period every time: a client told 60 s on each retry waits longer than it
 * must, and one told nothing useful retries at once.
 */
class RefusalClock {
  /** First refusal of each key, oldest first; at most `maxKeys` (callers are unbounded, memory is not). */
  private readonly firstRefused = new Map<string, number>();

  constructor(private readonly maxKeys: number) {}

  /** The milliseconds left, at least 1 s, for a key refused at `now`. */
  retryAfterMs(key: string, periodMs: number, now: number): number {
    let first = this.firstRefused.get(key);
    if (first === undefined || now - first >= periodMs) {
      first = now;
      this.firstRefused.delete(key);
      this.firstRefused.set(key, now);
      for (const oldest of this.firstRefused.keys()) {
        if (this.firstRefused.size <= this.maxKeys) break;
        this.firstRefused.delete(oldest);
      }
    }
    return Math.max(1_000, first + periodMs - now);
  }

  /** The key was served: its next refusal starts a new count. */
  served(key: string): void {
    this.firstRefused.delete(key);
  }
}

/** Every binding's refusals in this isolate: keys carry their limit's prefix (`mcp:`, `tool:<name>:`). */
const refusals = new RefusalClock(10_000);
