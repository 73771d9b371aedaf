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
