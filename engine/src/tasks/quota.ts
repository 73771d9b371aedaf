/**
 * @module tasks/quota
 * How many tasks one caller may have in progress at once. The count lives in a ledger: a TaskRunner object named
 * `quota:<caller>` (one binding serves both roles; a task's own object is named by its id, which has no colon). The
 * caller is the principal when authorization is on, else the client's network (`callerKey`), as for the rate limiter: with
 * authorization off every caller is the same anonymous principal, and one shared count would let one client
 * starve everyone.
 */
import type { HttpExchange } from "../http/exchange";
import { callerKey } from "../http/rate-limit";

export const quotaName = (exchange: Pick<HttpExchange, "principal" | "request">): string => `quota:${callerKey(exchange)}`;

/** The ledger: one storage entry per task in progress, with the time it expires at the latest. */
export class QuotaLedger {
  constructor(private readonly storage: DurableObjectStorage) {}

  /** Counts the task in, unless `max` tasks are already in progress (entries past their expiry do not count). */
  admit(taskId: string, expiresAt: number, max: number): boolean {
    const now = Date.now();
    let live = 0;
    for (const [key, until] of this.storage.kv.list<number>({ prefix: "t:" })) {
      if (until <= now) this.storage.kv.delete(key);
      else live++;
    }
    if (live >= max) return false;
    this.storage.kv.put(`t:${taskId}`, expiresAt);
    return true;
  }

  /** The task is no longer in progress (finished, cancelled or expired). */
  release(taskId: string): void {
    this.storage.kv.delete(`t:${taskId}`);
  }
}
