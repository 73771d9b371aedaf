/**
 * The bench's RATE_LIMITER for the template rows: a fixed-window counter per key, kept in the isolate, with the
 * configured `limit` and `period`, behind the Workers rate-limit binding's interface (`limit({ key }) => { success }`).
 *
 * Why the bench has its own: Miniflare 5 simulates the binding locally with a Durable Object fetch per `limit()`,
 * a cost many times the engine's own per request, which is neither the engine's nor production's (Cloudflare's
 * binding is native). Miniflare 4 simulated it with an in-isolate counter like this one, so the template rows keep
 * the guarantee (every request is counted and refused over the limit) without measuring the simulator. Bench only:
 * never imported by engine/src or the template.
 */

/** The binding's `simple` setting in wrangler.toml: at most `limit` calls per key per `period` seconds. */
export interface SimpleLimit {
  limit: number;
  period: number;
}

export class InIsolateRateLimit {
  readonly #limit: number;
  readonly #periodMs: number;
  readonly #now: () => number;
  /** The window the counts belong to (its number since the epoch); counts of an older window are dropped. */
  #window = -1;
  readonly #counts = new Map<string, number>();

  constructor({ limit, period }: SimpleLimit, now: () => number = Date.now) {
    this.#limit = limit;
    this.#periodMs = period * 1000;
    this.#now = now;
  }

  /** As the binding: allowed while the key's count is below the limit (even if `delta` takes it past), then counted. */
  async limit({ key, delta = 1 }: { key: string; delta?: number }): Promise<{ success: boolean }> {
    const window = Math.floor(this.#now() / this.#periodMs);
    if (window !== this.#window) {
      this.#window = window;
      this.#counts.clear();
    }
    const count = this.#counts.get(key) ?? 0;
    if (count >= this.#limit) return { success: false };
    this.#counts.set(key, count + delta);
    return { success: true };
  }
}
