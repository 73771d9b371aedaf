import { describe, expect, it } from "vitest";
import { lazy, memoize } from "../../src/util/memo";

describe("memoize", () => {
  it("computes once per key object and remembers the value, undefined included", () => {
    let calls = 0;
    const double = memoize((key: { n: number }) => {
      calls++;
      return key.n === 0 ? undefined : key.n * 2;
    });
    const one = { n: 1 };
    const zero = { n: 0 };
    expect([double(one), double(one), double(zero), double(zero)]).toEqual([2, 2, undefined, undefined]);
    expect(calls).toBe(2);
  });

  it("forgets a promise that rejected, so the next call tries again (a failed fetch is not a lasting value)", async () => {
    let calls = 0;
    const fetchOnce = memoize(async (_key: object) => {
      calls++;
      if (calls === 1) throw new Error("upstream down");
      return "document";
    });
    const key = {};
    await expect(fetchOnce(key)).rejects.toThrow("upstream down");
    await expect(fetchOnce(key)).resolves.toBe("document");
    await expect(fetchOnce(key)).resolves.toBe("document");
    expect(calls).toBe(2);
  });
});

describe("lazy", () => {
  it("makes its value on first use, once", () => {
    let calls = 0;
    const value = lazy(() => ++calls);
    expect(calls).toBe(0);
    expect([value(), value()]).toEqual([1, 1]);
  });
});
