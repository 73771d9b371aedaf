/**
 * A rate-limiting binding of a test's own: `limit` requests per key, then every further one refused, for as long
 * as the test runs. Why not the runtime's TIGHT_LIMITER (test/wrangler.toml): Miniflare counts each key per window
 * aligned to the wall clock (a whole minute), so a test that crosses a minute's end, more likely on a busy machine,
 * starts again from zero and is served where it expects a refusal; and its windows are shared by every file of the
 * run. This one counts only what the test sent through it, whenever it sent it.
 */
export function countingLimiter(limit: number): RateLimit {
  const counts = new Map<string, number>();
  return {
    async limit({ key }) {
      const count = (counts.get(key) ?? 0) + 1;
      counts.set(key, count);
      return { success: count <= limit };
    },
  };
}
