import { describe, expect, it } from "vitest";
import { lazy, memoize, textMemo } from "../../src/util/memo";

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

describe("textMemo", () => {
  it("computes once per exact text and gives the same verdict for a repeated one, false included", () => {
    let calls = 0;
    const isJson = textMemo(4, 100, (text) => {
      calls++;
      return text === "application/json";
    });
    expect([isJson("text/plain"), isJson("text/plain"), isJson("application/json"), isJson("application/json")]).toEqual([
      false,
      false,
      true,
      true,
    ]);
    expect(calls).toBe(2);
    // The exact text: another spelling is another entry, judged on its own.
    expect(isJson("Application/JSON")).toBe(false);
    expect(calls).toBe(3);
  });

  it("keeps at most maxEntries texts, and judges every text past the bound each time, as it would a kept one", () => {
    let calls = 0;
    const even = textMemo(3, 100, (text) => {
      calls++;
      return Number(text) % 2 === 0;
    });
    for (let n = 0; n < 10; n++) expect(even(String(n))).toBe(n % 2 === 0);
    expect(even.size).toBe(3);
    calls = 0;
    expect([even("8"), even("9"), even("9")]).toEqual([true, false, false]);
    expect(calls).toBe(3);
    expect(even.size).toBe(3);
  });

  it("never keeps a text longer than maxLength", () => {
    const long = "x".repeat(11);
    const memo = textMemo(10, 10, (text) => text.length);
    expect([memo(long), memo(long)]).toEqual([11, 11]);
    expect(memo.size).toBe(0);
  });
});
