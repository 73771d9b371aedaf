/**
 * @module oauth/state
 * The Durable Object that holds the built-in authorization server's state (binding `OAUTH_STATE`): everything
 * `@cloudflare/workers-oauth-provider` would keep in KV, behind the same calls (state-store.ts), where a read always
 * sees the writes before it. One object per person holds their grants (with the authorization code in each) and
 * tokens, and the record of every use of their refresh tokens; every other record (a registered client, a sign-in
 * transaction, a used assertion id) has an object of its own. Records expire as they would in KV (an alarm deletes
 * them). The token requests on one grant run one at a time here (`beginTokenRequest`), which is what makes a code
 * single use and a refresh rotate once (refresh-reuse.ts). A person holds at most limits.oauth.grantsPerPerson grants:
 * each sign-in revokes those beyond it (`revokeGrantsBeyond`). A machine client's object (`assertions:<client id>`)
 * remembers the ids of the client assertions it used, until each expires, so none is accepted twice (`useAssertionId`).
 */
import { DurableObject } from "cloudflare:workers";
import { Wakers } from "../util/wake";
import { decideRefresh, type RefreshRecord } from "./refresh-reuse";

/**
 * Longest a token request holds its grant: the others on the same grant wait for it up to this long, then go ahead.
 * Why 30 s: the provider may fetch a client's metadata document (10 s at most) in the request; a holder that never
 * finishes (its Worker failed) delays the grant's next request by this much, once.
 */
export const TOKEN_REQUEST_TURN_MS = 30_000;

/** A stored value, with its metadata as JSON text (the store parses it: RPC carries the text as it was put). */
export interface StoredValue {
  value: string;
  metadata: string | null;
}

/** One key of a listing, as KV lists it (`expiration` in seconds), its metadata as JSON text. */
export interface StoredKey {
  name: string;
  expiration?: number;
  metadata?: string;
}

export interface StoredPage {
  keys: StoredKey[];
  list_complete: boolean;
  cursor?: string;
}

/** A token request on one of this person's grants, as the token endpoint asks to run it. */
export interface TokenRequest {
  userId: string;
  grantId: string;
  /** For a refresh: the used token's id (refresh-reuse.ts `tokenIdOf`) and the request's hash (`requestProof`). */
  refresh?: { tokenId: string; proof: string };
  /** How long a use of a refresh token is remembered: the longest a grant lives (ms). */
  recordMs: number;
}

/** `proceed`: the caller has the grant's turn and runs the provider; `replay`: the first use's sealed answer. */
export type TokenRequestTurn =
  | { kind: "proceed"; holder: string }
  | { kind: "replay"; sealed: string; answeredAt: number }
  | { kind: "reused" };

/** How a refresh the caller ran ended: with the answer to keep for retries, or without one (the provider refused). */
export interface RefreshOutcome {
  tokenId: string;
  answer?: { sealed: string; successorId: string; windowMs: number };
}

/** How the use of a client assertion's id went: the first use, a replay, or the client's memory is full. */
export type AssertionUse = { kind: "first" } | { kind: "replayed" } | { kind: "full"; retryAt: number };

const ASSERTION_TABLE = "CREATE TABLE IF NOT EXISTS assertion_ids (id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL)";

const SCHEMA = [
  "CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, value TEXT NOT NULL, metadata TEXT, expires_at INTEGER)",
  `CREATE TABLE IF NOT EXISTS refresh_uses (token_id TEXT PRIMARY KEY, grant_id TEXT NOT NULL, proof TEXT NOT NULL,
    successor_id TEXT, sealed TEXT, answered_at INTEGER, replay_until INTEGER, expires_at INTEGER NOT NULL)`,
  "CREATE TABLE IF NOT EXISTS turns (grant_id TEXT PRIMARY KEY, holder TEXT NOT NULL, until INTEGER NOT NULL)",
];

/** The grant id of a `grant:<userId>:<grantId>` key. */
const grantIdOfKey = (key: string) => /^grant:[^:]+:([^:]+)$/.exec(key)?.[1];

/**
 * Yours to bind, not to call: export `createMcpWorker`'s `OAuthState` from the Worker's entry module and bind it in
 * wrangler.toml as `OAUTH_STATE` (`class_name = "OAuthState"`, a SQLite class in `migrations`). The authorization
 * server (AUTH_LOGIN) refuses to run without it.
 * @see docs/security.md
 */
export class OAuthState extends DurableObject<unknown> {
  /** Whether this object has its tables: created at its first write, so a read of a key nobody wrote stores nothing. */
  private tables = false;
  /** Requests waiting for a grant's turn, woken when it ends. */
  private readonly waiting = new Wakers<string>();

  private get sql(): SqlStorage {
    return this.ctx.storage.sql;
  }

  private hasTables(): boolean {
    this.tables ||= this.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'entries'").toArray().length > 0;
    return this.tables;
  }

  private createTables(): void {
    if (this.hasTables()) return;
    for (const statement of SCHEMA) this.sql.exec(statement);
    this.tables = true;
  }

  async get(key: string): Promise<StoredValue | null> {
    if (!this.hasTables()) return null;
    const row = this.sql
      .exec<{ value: string; metadata: string | null }>(
        "SELECT value, metadata FROM entries WHERE key = ? AND (expires_at IS NULL OR expires_at > ?)",
        key,
        Date.now(),
      )
      .toArray()[0];
    return row ?? null;
  }

  /** `expiresAt` in ms since the epoch, or null to keep it until it is deleted; `metadata` as JSON text, or null. */
  async put(key: string, value: string, expiresAt: number | null, metadata: string | null): Promise<void> {
    this.createTables();
    this.sql.exec("INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?)", key, value, metadata, expiresAt);
    if (expiresAt !== null) await this.wakeBy(expiresAt);
  }

  async delete(key: string): Promise<void> {
    if (!this.hasTables()) return;
    this.sql.exec("DELETE FROM entries WHERE key = ?", key);
    // A grant's refresh records end with it: a later use of one of its tokens finds no grant, and is refused.
    const grantId = grantIdOfKey(key);
    if (grantId) this.sql.exec("DELETE FROM refresh_uses WHERE grant_id = ?", grantId);
  }

  /** Keys starting with `prefix`, in order, `limit` at a time; `cursor` is the last key of the previous page. */
  async list(prefix: string, limit: number, cursor: string | undefined): Promise<StoredPage> {
    if (!this.hasTables()) return { keys: [], list_complete: true };
    const rows = this.sql
      .exec<{ key: string; metadata: string | null; expires_at: number | null }>(
        `SELECT key, metadata, expires_at FROM entries WHERE key >= ?1 AND key > ?2 AND substr(key, 1, length(?1)) = ?1
         AND (expires_at IS NULL OR expires_at > ?3) ORDER BY key LIMIT ?4`,
        prefix,
        cursor ?? "",
        Date.now(),
        limit + 1,
      )
      .toArray();
    const keys = rows.slice(0, limit).map((row) => ({
      name: row.key,
      ...(row.expires_at !== null && { expiration: Math.floor(row.expires_at / 1000) }),
      ...(row.metadata !== null && { metadata: row.metadata }),
    }));
    return rows.length > limit ? { keys, list_complete: false, cursor: keys.at(-1)!.name } : { keys, list_complete: true };
  }

  /**
   * Takes the grant's turn for one token request, once no other request holds it. A refresh is decided here, in
   * that turn: a reuse revokes the grant at once (its grant record and tokens, as the provider's revokeGrant deletes
   * them), a retry gets the kept answer, and a first use proceeds to the provider.
   */
  async beginTokenRequest(request: TokenRequest): Promise<TokenRequestTurn> {
    // The last check of the turn and everything up to taking it run without an await in between, so no other
    // request can check it in the meantime (two woken together would otherwise both find it free).
    for (let wait = this.turnWait(request.grantId); wait > 0; wait = this.turnWait(request.grantId)) {
      await this.waiting.wait(request.grantId, wait);
    }
    this.createTables();
    const now = Date.now();
    if (request.refresh) {
      const { tokenId, proof } = request.refresh;
      const use = this.refreshUse(tokenId, now);
      const successorUsed = use?.successorId ? this.refreshUse(use.successorId, now) !== undefined : false;
      const decision = decideRefresh(use, proof, now, successorUsed);
      if (decision === "reused") {
        this.revoke(request.userId, request.grantId);
        return { kind: "reused" };
      }
      if (decision === "replay") return { kind: "replay", sealed: use!.sealed!, answeredAt: use!.answeredAt! };
      this.sql.exec(
        "INSERT OR REPLACE INTO refresh_uses (token_id, grant_id, proof, expires_at) VALUES (?, ?, ?, ?)",
        tokenId,
        request.grantId,
        proof,
        now + request.recordMs,
      );
    }
    const holder = crypto.randomUUID();
    this.sql.exec("INSERT OR REPLACE INTO turns VALUES (?, ?, ?)", request.grantId, holder, now + TOKEN_REQUEST_TURN_MS);
    if (request.refresh) await this.wakeBy(now + request.recordMs);
    return { kind: "proceed", holder };
  }

  /** Ends a turn `beginTokenRequest` gave: keeps a refresh's answer for retries (or forgets a refused one), wakes the next. */
  async endTokenRequest(grantId: string, holder: string, refresh?: RefreshOutcome): Promise<void> {
    if (!this.hasTables()) return;
    const now = Date.now();
    if (refresh?.answer) {
      const { sealed, successorId, windowMs } = refresh.answer;
      this.sql.exec(
        "UPDATE refresh_uses SET successor_id = ?, sealed = ?, answered_at = ?, replay_until = ? WHERE token_id = ? AND successor_id IS NULL",
        successorId,
        sealed,
        now,
        now + windowMs,
        refresh.tokenId,
      );
      // The answer that carried this token is no retry's any more: its refresh token has now been used.
      this.sql.exec("UPDATE refresh_uses SET sealed = NULL WHERE successor_id = ?", refresh.tokenId);
    } else if (refresh) {
      // Refused (not this grant's current token, another client, an expired grant): nothing was redeemed.
      this.sql.exec("DELETE FROM refresh_uses WHERE token_id = ? AND successor_id IS NULL", refresh.tokenId);
    }
    // A turn that ran out may have been taken by another request meanwhile: only its own holder ends it.
    this.sql.exec("DELETE FROM turns WHERE grant_id = ? AND holder = ?", grantId, holder);
    this.waiting.wake(grantId);
    if (refresh?.answer) await this.wakeBy(now + refresh.answer.windowMs);
  }

  /**
   * Revokes this person's grants beyond the `max` most recently used (`keptGrantId`, the sign-in just made, always
   * among them), as the provider's revokeGrant would: each with its tokens and refresh records. Why: every client a
   * person signs in to adds a grant to this object, and nothing else bounds them (limits.oauth.grantsPerPerson).
   * "Used" is when the grant was last written, at its sign-in, its code exchange or its latest refresh: a rewrite
   * (`INSERT OR REPLACE`) gives its row a new rowid, so the smallest rowid is the grant whose tokens were issued least
   * recently, and a client refreshing every day keeps its grant however early it signed in. A grant whose token
   * request holds its turn is waited for, never revoked in the middle of it: a refresh would write its rotation back
   * after the revocation, as a racing revocation's would (token-endpoint.ts). Returns how many it revoked.
   */
  async revokeGrantsBeyond(userId: string, keptGrantId: string, max: number): Promise<number> {
    let revoked = 0;
    for (let grantId = this.grantBeyond(userId, keptGrantId, max); grantId; grantId = this.grantBeyond(userId, keptGrantId, max)) {
      const wait = this.turnWait(grantId);
      if (wait > 0) {
        // Its request may end it, refresh it (it then counts as used) or revoke it: the next pass decides again.
        await this.waiting.wait(grantId, wait);
        continue;
      }
      this.revoke(userId, grantId);
      revoked++;
    }
    return revoked;
  }

  /**
   * Records the use of a client assertion's id (`id`: a hash of the client and its `jti`), kept until `expiresAt`,
   * when the assertion itself can no longer be used. Why here, in one object per client: every isolate asks the
   * same object, so an assertion is accepted once wherever it is replayed, and a read follows every write before it.
   * Why a bound (`max` live ids): the memory must not grow with what one client sends; a full memory refuses new
   * assertions (nothing stored) until the oldest expires, at `retryAt`. A replay and a full memory store nothing.
   */
  async useAssertionId(id: string, expiresAt: number, max: number): Promise<AssertionUse> {
    const now = Date.now();
    this.sql.exec(ASSERTION_TABLE);
    const seen = this.sql.exec("SELECT 1 FROM assertion_ids WHERE id = ? AND expires_at > ?", id, now).toArray().length > 0;
    if (seen) return { kind: "replayed" };
    this.sql.exec("DELETE FROM assertion_ids WHERE expires_at <= ?", now);
    const live = this.sql
      .exec<{ n: number; oldest: number | null }>("SELECT count(*) AS n, min(expires_at) AS oldest FROM assertion_ids")
      .one();
    if (live.n >= max) return { kind: "full", retryAt: live.oldest ?? now };
    this.sql.exec("INSERT INTO assertion_ids VALUES (?, ?)", id, expiresAt);
    await this.wakeBy(expiresAt);
    return { kind: "first" };
  }

  override async alarm(): Promise<void> {
    // A machine client's object holds its assertion ids only (its name is its own, never a person's or a key's).
    if (this.hasAssertionTable()) {
      this.sql.exec("DELETE FROM assertion_ids WHERE expires_at <= ?", Date.now());
      const next = this.sql.exec<{ at: number | null }>("SELECT min(expires_at) AS at FROM assertion_ids").one().at;
      if (next !== null) await this.ctx.storage.setAlarm(next);
      return;
    }
    if (!this.hasTables()) return;
    const now = Date.now();
    this.sql.exec("DELETE FROM entries WHERE expires_at <= ?", now);
    this.sql.exec("DELETE FROM refresh_uses WHERE expires_at <= ?", now);
    this.sql.exec("UPDATE refresh_uses SET sealed = NULL WHERE sealed IS NOT NULL AND replay_until <= ?", now);
    this.sql.exec("DELETE FROM turns WHERE until <= ?", now);
    const next = this.sql
      .exec<{ at: number | null }>(
        `SELECT min(at) AS at FROM (SELECT min(expires_at) AS at FROM entries UNION ALL SELECT min(expires_at) FROM refresh_uses
         UNION ALL SELECT min(replay_until) FROM refresh_uses WHERE sealed IS NOT NULL)`,
      )
      .one().at;
    if (next !== null) await this.ctx.storage.setAlarm(next);
  }

  private hasAssertionTable(): boolean {
    return this.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'assertion_ids'").toArray().length > 0;
  }

  private refreshUse(tokenId: string, now: number): (RefreshRecord & { sealed: string | null; answeredAt: number | null }) | undefined {
    const row = this.sql
      .exec<{ proof: string; successor_id: string | null; sealed: string | null; answered_at: number | null; replay_until: number | null }>(
        "SELECT proof, successor_id, sealed, answered_at, replay_until FROM refresh_uses WHERE token_id = ? AND expires_at > ?",
        tokenId,
        now,
      )
      .toArray()[0];
    return (
      row && {
        proof: row.proof,
        successorId: row.successor_id,
        replayUntil: row.replay_until,
        kept: row.sealed !== null,
        sealed: row.sealed,
        answeredAt: row.answered_at,
      }
    );
  }

  /** The grant and its tokens, as the provider's revokeGrant deletes them, with its refresh records. */
  private revoke(userId: string, grantId: string): void {
    const tokens = `token:${userId}:${grantId}:`;
    this.sql.exec("DELETE FROM entries WHERE key = ? OR substr(key, 1, length(?2)) = ?2", `grant:${userId}:${grantId}`, tokens);
    this.sql.exec("DELETE FROM refresh_uses WHERE grant_id = ?", grantId);
  }

  /** The least recently used of the person's live grants beyond the `max` most recent (`keptGrantId` one of them). */
  private grantBeyond(userId: string, keptGrantId: string, max: number): string | undefined {
    if (!this.hasTables()) return undefined;
    const prefix = `grant:${userId}:`;
    const others = this.sql
      .exec<{ key: string }>(
        `SELECT key FROM entries WHERE substr(key, 1, length(?1)) = ?1 AND key != ?2 AND (expires_at IS NULL OR expires_at > ?3)
         ORDER BY rowid DESC LIMIT -1 OFFSET ?4`,
        prefix,
        `${prefix}${keptGrantId}`,
        Date.now(),
        max - 1,
      )
      .toArray();
    const oldest = others.at(-1)?.key;
    return oldest === undefined ? undefined : grantIdOfKey(oldest);
  }

  /** How long another request still holds the grant's turn (ms); 0 or less when it is free. */
  private turnWait(grantId: string): number {
    if (!this.hasTables()) return 0;
    const until = this.sql.exec<{ until: number }>("SELECT until FROM turns WHERE grant_id = ?", grantId).toArray()[0]?.until;
    return until === undefined ? 0 : until - Date.now();
  }

  private async wakeBy(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }
}
