/**
 * The bench's in-isolate RATE_LIMITER (bench/workers/template/in-isolate-rate-limit.ts), what the template rows and the
 * rate-limited line count with in place of Miniflare 5's simulator: it must really count per caller and refuse over
 * the limit, as the binding does, or the rate-limited line would show no refusals. A clock passed in, no timing.
 */
import { describe, expect, it } from "vitest";
import { InIsolateRateLimit } from "../../bench/workers/template/in-isolate-rate-limit";

describe("the bench's in-isolate rate limiter", () => {
  it("allows `limit` calls per key in a window, refuses the next, and counts each key apart", async () => {
    const limiter = new InIsolateRateLimit({ limit: 3, period: 60 }, () => 1_000);
    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push((await limiter.limit({ key: "a" })).success);
    expect(outcomes).toEqual([true, true, true, false]);
    expect(await limiter.limit({ key: "b" })).toEqual({ success: true });
  });

  it("starts every key afresh in the next window of `period` seconds", async () => {
    let now = 0;
    const limiter = new InIsolateRateLimit({ limit: 1, period: 10 }, () => now);
    expect(await limiter.limit({ key: "a" })).toEqual({ success: true });
    now = 9_999;
    expect(await limiter.limit({ key: "a" })).toEqual({ success: false });
    now = 10_000;
    expect(await limiter.limit({ key: "a" })).toEqual({ success: true });
  });

  it("allows a call while the count is below the limit even if its delta takes it past, as the binding does", async () => {
    const limiter = new InIsolateRateLimit({ limit: 2, period: 60 }, () => 0);
    expect(await limiter.limit({ key: "a", delta: 5 })).toEqual({ success: true });
    expect(await limiter.limit({ key: "a" })).toEqual({ success: false });
  });
});
