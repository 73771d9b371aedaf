/**
 * @module notes
 * The example domain's storage: each notebook is a Durable Object with its own SQLite database. A notebook is
 * addressed by `<principal>:<notebook_id>`, so a handle only opens the caller's own notebooks: possession of a
 * handle is never enough to read someone else's notes.
 *
 * Listing: when callers are told apart (authorization on), each principal also has a shelf, the ids of the
 * notebooks it created, so `resources/list` can list its notes. The shelf is a Notebook object named
 * `<principal>:shelf` that only uses its `shelf` table: no extra binding or migration. That name never meets a
 * notebook's, whose last part is always a notebook id (`nb_...`, no colon).
 *
 * Reads write nothing: a handle nobody minted wakes its object (a notebook cannot be told from one that does not
 * exist without asking it), but the object gets its tables only on its first write, so it keeps no storage.
 */
import { DurableObject } from "cloudflare:workers";
import type { Principal } from "mcp-workers-engine";

export interface Note {
  id: string;
  title: string;
  body: string;
  tags: string[];
  createdAt: string;
  updatedAt: string;
}

export type NoteSummary = Pick<Note, "id" | "title" | "tags" | "updatedAt">;

export const NOTE_LIMITS = { title: 200, body: 20_000, tags: 10, tag: 32, notesPerNotebook: 1_000 } as const;

/** `nb_` followed by 22 base64url characters (128 random bits): unguessable, and cheap to validate. */
export const NOTEBOOK_ID = /^nb_[A-Za-z0-9_-]{22}$/;
export const NOTE_ID = /^n_[0-9a-f]{12}$/;

export function newNotebookId(): string {
  return `nb_${crypto.getRandomValues(new Uint8Array(16)).toBase64({ alphabet: "base64url", omitPadding: true })}`;
}

/** The caller's notebook behind a handle. Handles of other principals resolve to empty, nonexistent notebooks. */
export function notebookFor(env: Env, principal: Principal, notebookId: string) {
  return env.NOTEBOOKS.getByName(`${principal.id}:${notebookId}`);
}

/**
 * Whether the caller's notes are listed (and list changes announced) to it. With authorization off every caller is
 * the same anonymous principal, so a list "for the caller" would be a list for everyone: notes then stay unlisted
 * handles, known only to whoever created them.
 */
export const listsNotes = (principal: Principal): boolean => principal.authenticated;

/** The ids of the notebooks the caller created; kept only while `listsNotes`. */
export function shelfFor(env: Env, principal: Principal) {
  return env.NOTEBOOKS.getByName(`${principal.id}:shelf`);
}

/** A page of `resources/list` visits at most this many notebooks (one Durable Object call each) and lists at most this many notes. */
const LIST_PAGE = { notebooks: 10, notes: 50 } as const;

export interface ListedNote {
  notebookId: string;
  id: string;
  title: string;
}

/**
 * One page of the caller's notes: notebooks in the order they were created, notes by id. The cursor is `<seq>`
 * (start at the notebook with that shelf position or a later one) or `<seq>/<note id>` (within that notebook,
 * after that note). The engine hands back only cursors this function issued to this caller, unaltered.
 */
export async function listNotes(env: Env, principal: Principal, cursor?: string): Promise<{ notes: ListedNote[]; nextCursor?: string }> {
  const [from = "0", after] = cursor?.split("/") ?? [];
  const notebooks = await shelfFor(env, principal).shelved(Number(from), LIST_PAGE.notebooks);
  const notes: ListedNote[] = [];
  for (const [index, { seq, notebookId }] of notebooks.entries()) {
    const room = LIST_PAGE.notes - notes.length;
    if (room === 0) return { notes, nextCursor: String(seq) };
    // One more than there is room for says whether this notebook has more.
    const page = await notebookFor(env, principal, notebookId).listed(index === 0 ? after : undefined, room + 1);
    notes.push(...page.slice(0, room).map((note) => ({ notebookId, ...note })));
    if (page.length > room) return { notes, nextCursor: `${seq}/${page[room - 1]!.id}` };
  }
  // A full batch of notebooks may have more after it.
  const last = notebooks.at(-1);
  return last && notebooks.length === LIST_PAGE.notebooks ? { notes, nextCursor: String(last.seq + 1) } : { notes };
}

interface NoteRow extends Record<string, SqlStorageValue> {
  id: string;
  title: string;
  body: string;
  tags: string;
  created_at: string;
  updated_at: string;
}

const toNote = (row: NoteRow): Note => ({
  id: row.id,
  title: row.title,
  body: row.body,
  tags: JSON.parse(row.tags) as string[],
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toSummary = ({ id, title, tags, updatedAt }: Note): NoteSummary => ({ id, title, tags, updatedAt });

/** Every table of every Notebook object: a notebook uses `notebook` and `notes`, a principal's shelf only `shelf`. */
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS notebook (title TEXT NOT NULL, created_at TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS notes (
    id TEXT PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL, tags TEXT NOT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
  CREATE INDEX IF NOT EXISTS notes_by_update ON notes (updated_at DESC);
  CREATE TABLE IF NOT EXISTS shelf (seq INTEGER PRIMARY KEY, notebook_id TEXT NOT NULL UNIQUE);`;

export class Notebook extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  /** Whether this object has its tables, that is whether anything was ever written to it. */
  private hasTables: boolean;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    // Why the tables are not created here: a CREATE TABLE is a write, and every handle anyone makes up (any
    // well-formed notebook_id) wakes an object. Reads of an object without tables answer "nothing there" and
    // store nothing; the first write creates every table.
    this.hasTables = this.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'notes'").toArray().length > 0;
  }

  /** Called before every write: creates every table the first time (IF NOT EXISTS costs next to nothing). */
  private writable(): void {
    if (this.hasTables) return;
    this.sql.exec(SCHEMA);
    this.hasTables = true;
  }

  /** Shelf only: records a notebook the principal created; a second call is a no-op. */
  shelve(notebookId: string): void {
    this.writable();
    this.sql.exec("INSERT OR IGNORE INTO shelf (notebook_id) VALUES (?)", notebookId);
  }

  /** Shelf only: the notebooks from shelf position `from` on, in the order they were created. */
  shelved(from: number, limit: number): { seq: number; notebookId: string }[] {
    if (!this.hasTables) return [];
    return this.sql
      .exec<{ seq: number; notebook_id: string }>("SELECT seq, notebook_id FROM shelf WHERE seq >= ? ORDER BY seq LIMIT ?", from, limit)
      .toArray()
      .map((row) => ({ seq: row.seq, notebookId: row.notebook_id }));
  }

  /** Creates the notebook; a second call is a no-op. */
  create(title: string): { title: string; createdAt: string } {
    this.writable();
    const existing = this.sql.exec<{ title: string; created_at: string }>("SELECT title, created_at FROM notebook").toArray()[0];
    if (existing) return { title: existing.title, createdAt: existing.created_at };
    const createdAt = new Date().toISOString();
    this.sql.exec("INSERT INTO notebook (title, created_at) VALUES (?, ?)", title, createdAt);
    return { title, createdAt };
  }

  exists(): boolean {
    if (!this.hasTables) return false;
    return this.sql.exec("SELECT 1 FROM notebook").toArray().length > 0;
  }

  /** Adds a note, or returns why it cannot (the notebook is full). */
  add(title: string, body: string, tags: string[]): Note | { error: string } {
    this.writable();
    const count = this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM notes").one().n;
    if (count >= NOTE_LIMITS.notesPerNotebook) {
      return { error: `This notebook is full (${NOTE_LIMITS.notesPerNotebook} notes). Delete a note first.` };
    }
    const now = new Date().toISOString();
    const id = `n_${crypto.randomUUID().replace(/-/g, "").slice(0, 12)}`;
    this.sql.exec("INSERT INTO notes VALUES (?, ?, ?, ?, ?, ?)", id, title, body, JSON.stringify(tags), now, now);
    return { id, title, body, tags, createdAt: now, updatedAt: now };
  }

  get(id: string): Note | null {
    if (!this.hasTables) return null;
    const row = this.sql.exec<NoteRow>("SELECT * FROM notes WHERE id = ?", id).toArray()[0];
    return row ? toNote(row) : null;
  }

  update(id: string, changes: { title?: string; body?: string; tags?: string[] }): Note | null {
    const note = this.get(id);
    if (!note) return null;
    const updated: Note = { ...note, ...changes, updatedAt: new Date().toISOString() };
    this.sql.exec(
      "UPDATE notes SET title = ?, body = ?, tags = ?, updated_at = ? WHERE id = ?",
      updated.title,
      updated.body,
      JSON.stringify(updated.tags),
      updated.updatedAt,
      id,
    );
    return updated;
  }

  delete(id: string): boolean {
    if (!this.hasTables) return false;
    return this.sql.exec("DELETE FROM notes WHERE id = ?", id).rowsWritten > 0;
  }

  /** Notes whose title, body or tags contain every word of the query (case-insensitive), newest first. */
  search(query: string, limit: number): NoteSummary[] {
    if (!this.hasTables) return [];
    const words = query.toLowerCase().split(/\s+/).filter(Boolean).slice(0, 8);
    const clause = words.map(() => "instr(lower(title || ' ' || body || ' ' || tags), ?) > 0").join(" AND ") || "1";
    return this.sql
      .exec<NoteRow>(`SELECT * FROM notes WHERE ${clause} ORDER BY updated_at DESC LIMIT ?`, ...words, limit)
      .toArray()
      .map((row) => toSummary(toNote(row)));
  }

  /** Notes by id, after `afterId` when given: a stable order for paging, whatever is added or deleted meanwhile. */
  listed(afterId: string | undefined, limit: number): { id: string; title: string }[] {
    if (!this.hasTables) return [];
    return this.sql
      .exec<{ id: string; title: string }>("SELECT id, title FROM notes WHERE id > ? ORDER BY id LIMIT ?", afterId ?? "", limit)
      .toArray();
  }

  count(): number {
    if (!this.hasTables) return 0;
    return this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM notes").one().n;
  }

  /** Whole notes by id, after `afterId` when given: pages for a job that visits every note (retag_notebook). */
  notesAfter(afterId: string | undefined, limit: number): Note[] {
    if (!this.hasTables) return [];
    return this.sql
      .exec<NoteRow>("SELECT * FROM notes WHERE id > ? ORDER BY id LIMIT ?", afterId ?? "", limit)
      .toArray()
      .map(toNote);
  }

  /** Note ids starting with `prefix`, for completion. */
  ids(prefix: string, limit: number): string[] {
    if (!this.hasTables) return [];
    return this.sql
      .exec<{ id: string }>("SELECT id FROM notes WHERE substr(id, 1, length(?)) = ? ORDER BY id LIMIT ?", prefix, prefix, limit)
      .toArray()
      .map((row) => row.id);
  }
}
