/**
 * @module rate-limit
 * Requests per caller per minute, through the Workers rate-limiting binding (RATE_LIMITER in wrangler.toml;
 * without the binding there is no limit). The key is the principal when authorization is on, else the client IP.
 * The binding counts per Cloudflare location and is eventually consistent: it stops floods, not single requests.
 */
import { HttpError } from "../protocol/errors";
import type { HttpExchange } from "./exchange";

export async function checkRateLimit(exchange: HttpExchange): Promise<void> {
  const limiter = exchange.env.RATE_LIMITER;
  if (!limiter) return;
  const principal = exchange.principal;
  const key = principal?.authenticated
    ? `principal:${principal.id}`
    : `ip:${exchange.request.headers.get("cf-connecting-ip") ?? "unknown"}`;
  const { success } = await limiter.limit({ key });
  if (!success) throw new HttpError(429, "Too Many Requests: retry in a minute", { "retry-after": "60" });
}
