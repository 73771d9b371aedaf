/**
 * @module modern/replay-guard
 * The Durable Object behind single-use `requestState`.
 */
import { DurableObject } from "cloudflare:workers";

/**
 * Remembers single-use `requestState` nonces until they expire, so a state that authorized a one-time action
 * (such as a deletion) cannot authorize it again. Sharded by nonce prefix; expired nonces are purged by alarm.
 *
 * Yours to bind, not to call: export `createMcpWorker`'s `ReplayGuard` from the Worker's entry module, bind it in
 * wrangler.toml as `REPLAY_GUARD` (`class_name = "ReplayGuard"`, a SQLite class in `migrations`), and
 * `ctx.ask(..., { singleUse: true })` works. Without the binding, a single-use `ask` is refused.
 * @see docs/security.md
 */
export class ReplayGuard extends DurableObject<unknown> {
  constructor(ctx: DurableObjectState, env: unknown) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS used (nonce TEXT PRIMARY KEY, expires_at INTEGER NOT NULL)");
  }

  /** True the first time a nonce is presented, false ever after (until it has expired anyway). */
  async consume(nonce: string, expiresAt: number): Promise<boolean> {
    const { rowsWritten } = this.ctx.storage.sql.exec("INSERT OR IGNORE INTO used VALUES (?, ?)", nonce, expiresAt);
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(expiresAt);
    return rowsWritten > 0;
  }

  /** Whether a nonce was consumed already (and has not expired): a read, which never consumes it. */
  async used(nonce: string): Promise<boolean> {
    return this.ctx.storage.sql.exec("SELECT 1 FROM used WHERE nonce = ?", nonce).toArray().length > 0;
  }

  override async alarm(): Promise<void> {
    const sql = this.ctx.storage.sql;
    sql.exec("DELETE FROM used WHERE expires_at <= ?", Date.now());
    const next = sql.exec<{ at: number | null }>("SELECT min(expires_at) AS at FROM used").one().at;
    if (next !== null) await this.ctx.storage.setAlarm(next);
  }
}

/** The binding single-use state needs (wrangler.toml `REPLAY_GUARD`). */
export interface ReplayGuardBindings {
  REPLAY_GUARD?: DurableObjectNamespace<ReplayGuard>;
}
