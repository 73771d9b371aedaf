/**
 * @module util/wake
 * Waits inside a Durable Object that something happens for a key, or that time runs out, whichever comes first:
 * `Wakers` holds the waiters of each key and wakes them all when told. A waiter removes itself either way, so no
 * key keeps an empty set and no timer outlives its wait.
 */
export class Wakers<K> {
  private readonly waiting = new Map<K, Set<() => void>>();

  /** Resolves when `wake(key)` is called, or after `ms`. */
  wait(key: K, ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const waiters = this.waiting.get(key) ?? new Set<() => void>();
      this.waiting.set(key, waiters);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0) this.waiting.delete(key);
        resolve();
      };
      const timer = setTimeout(done, ms);
      waiters.add(done);
    });
  }

  /** Wakes every waiter of `key`. */
  wake(key: K): void {
    for (const done of [...(this.waiting.get(key) ?? [])]) done();
  }

  /** Wakes every waiter of every key. */
  wakeAll(): void {
    for (const key of [...this.waiting.keys()]) this.wake(key);
  }
}
