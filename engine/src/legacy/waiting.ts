/**
 * @module legacy/waiting
 * How many calls of 2025 sessions may wait for the client's answers at once. A waiting call holds its Worker
 * invocation, its response stream and calls held open in its session's object for as long as the client takes
 * (`limits.sessions.inputTimeoutMs`), and nothing else bounds how many a client starts: so at most
 * `limits.sessions.maxWaitingPerSession` per session, counted by the session's object as it opens their questions
 * (`LegacySession.openQuestion`), and `limits.sessions.maxWaitingPerCaller` per caller across its sessions, counted
 * in a ledger: a LegacySession object named `waiting:<caller>` (a session's object is named by its id, which has no
 * colon), as tasks count theirs (tasks/quota.ts). The caller is the principal when authorization is on, else the
 * client's network (`callerKey`): with authorization off every caller is the same principal, and one count shared
 * by all would let one client starve everyone.
 *
 * The unit is one call's wait: from the moment its handler asks (`ctx.ask` with questions to send, however many at
 * once) until it has every answer, or the wait ends (timeout, cancellation, the session's end).
 */
import type { HttpExchange } from "../http/exchange";
import { callerKey } from "../http/rate-limit";
import { describeError, type LogScope, log } from "../util/log";
import { ErrorCode, RpcError } from "../wire/errors";

/** Which count a waiting call was refused by. */
export type WaitingLimit = "session" | "caller";

/**
 * A call refused because too many calls wait already: -32603 with `data.limit` and `data.max`, as a listener past its
 * share is (listen/listen.ts); a 2025 `tools/call` answers it as a tool error instead, as a task past its caller's
 * quota is (legacy/dispatch.ts), so the model reads it.
 */
export class TooManyWaiting extends RpcError {
  constructor(limit: WaitingLimit, max: number) {
    const message =
      limit === "session"
        ? `Too many calls of this session wait for the client's answers (at most ${max}): answer or cancel one of them first`
        : `Too many calls of this caller wait for the client's answers (at most ${max}, across its sessions): answer or cancel one of them first`;
    super(ErrorCode.InternalError, message, { limit, max });
  }
}

/** The name of the ledger object that counts a caller's waiting calls. */
export const waitingLedgerName = (exchange: Pick<HttpExchange, "principal" | "request">): string => `waiting:${callerKey(exchange)}`;

/** What a ledger object does (the LegacySession class holds both roles). */
export interface WaitingLedgerStub {
  admitWaiting(call: string, expiresAt: number, max: number): Promise<boolean>;
  releaseWaiting(call: string): Promise<void>;
}

/**
 * Counts a call's wait in its caller's ledger, or throws `TooManyWaiting` when the caller is at `max`. Returns the
 * release, which the caller calls once the wait is over: best effort, since a release lost with its Worker expires
 * when the wait could last no longer (`waitMs`).
 */
export async function admitWaitingCall(
  ledger: WaitingLedgerStub,
  call: string,
  { max, waitMs }: { max: number; waitMs: number },
  scope: LogScope & { execution: ExecutionContext },
): Promise<() => void> {
  if (!(await ledger.admitWaiting(call, Date.now() + waitMs, max))) throw new TooManyWaiting("caller", max);
  return () =>
    scope.execution.waitUntil(
      ledger.releaseWaiting(call).catch((error: unknown) => log(scope, "error", "releasing a waiting call failed", describeError(error))),
    );
}

/**
 * The ledger: one storage entry per waiting call, with the time its wait ends at the latest. Entries past it do not
 * count and are deleted at the next admission, or by the object's alarm, set to the latest of them (so what a lost
 * release left is gone once the caller stops coming).
 */
export class WaitingLedger {
  constructor(private readonly storage: DurableObjectStorage) {}

  /** Counts the call in, unless `max` calls wait already. */
  async admit(call: string, expiresAt: number, max: number): Promise<boolean> {
    const live = await this.prune();
    if (live >= max) return false;
    await this.storage.put(`w:${call}`, expiresAt);
    const alarm = await this.storage.getAlarm();
    if (alarm === null || alarm < expiresAt) await this.storage.setAlarm(expiresAt);
    return true;
  }

  /** The call no longer waits. */
  async release(call: string): Promise<void> {
    await this.storage.delete(`w:${call}`);
  }

  /** Deletes the entries past their time; returns how many are left. */
  async prune(): Promise<number> {
    const now = Date.now();
    const entries = await this.storage.list<number>({ prefix: "w:" });
    const expired = [...entries].filter(([, until]) => until <= now).map(([key]) => key);
    // Why in slices: one delete takes at most 128 keys.
    for (let start = 0; start < expired.length; start += 128) await this.storage.delete(expired.slice(start, start + 128));
    return entries.size - expired.length;
  }
}
