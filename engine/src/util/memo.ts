/**
 * @module util/memo
 * Per-isolate caches for values that never change once computed (parsed settings, imported keys, schemas).
 * Keyed weakly by the object they derive from, so nothing outlives it; never used for per-request data.
 */

/**
 * `compute(key)`, computed once per key object and remembered while the key lives. A promise that rejects is
 * forgotten, so the next call computes again: a failed fetch (an issuer's discovery document, a key set) is not a
 * value that never changes.
 */
export function memoize<K extends object, V>(compute: (key: K) => V): (key: K) => V {
  const cache = new WeakMap<K, V>();
  return (key) => {
    // One lookup on the hot path (these run several times per request); `has` only to tell a cached undefined apart.
    const cached = cache.get(key);
    if (cached !== undefined || cache.has(key)) return cached as V;
    const value = compute(key);
    cache.set(key, value);
    if (value instanceof Promise) value.catch(() => cache.get(key) === value && cache.delete(key));
    return value;
  };
}

/** `make()`, computed on first use: work that only some requests need stays off the cold start. */
export function lazy<T>(make: () => T): () => T {
  let made = false;
  let value: T;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value;
  };
}

/** A per-isolate cache of verdicts by text (`textMemo`): how many it holds. */
export interface TextMemo<V> {
  (text: string): V;
  readonly size: number;
}

/**
 * `compute(text)`, remembered per exact text for the texts that repeat across requests (the `Accept` a client sends
 * on every POST). Why bounded: the texts are the caller's, so at most `maxEntries` texts of at most `maxLength`
 * characters are ever kept; past either bound the verdict is computed each time, exactly as for a remembered text.
 * `compute` must be pure: a remembered verdict is the one computing it again would give.
 */
export function textMemo<V>(maxEntries: number, maxLength: number, compute: (text: string) => V): TextMemo<V> {
  const cache = new Map<string, V>();
  const lookup = (text: string): V => {
    const cached = cache.get(text);
    if (cached !== undefined || cache.has(text)) return cached as V;
    const value = compute(text);
    if (cache.size < maxEntries && text.length <= maxLength) cache.set(text, value);
    return value;
  };
  return Object.defineProperty(lookup, "size", { get: () => cache.size }) as TextMemo<V>;
}
