/**
 * @module notes
 * The example domain's storage: each notebook is a Durable Object with its own SQLite database. A notebook is
 * addressed by `<principal>:<notebook_id>`, so a handle only opens the caller's own notebooks: possession of a
 * handle is never enough to read someone else's notes.
 */
import { DurableObject } from "cloudflare:workers";
import type { Principal } from "./mcp";

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

export class Notebook extends DurableObject<Env> {
  private readonly sql: SqlStorage;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`
      CREATE TABLE IF NOT EXISTS notebook (title TEXT NOT NULL, created_at TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS notes (
        id TEXT PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL, tags TEXT NOT NULL,
        created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS notes_by_update ON notes (updated_at DESC);`);
  }

  /** Creates the notebook; a second call is a no-op. */
  create(title: string): { title: string; createdAt: string } {
    const existing = this.sql.exec<{ title: string; created_at: string }>("SELECT title, created_at FROM notebook").toArray()[0];
    if (existing) return { title: existing.title, createdAt: existing.created_at };
    const createdAt = new Date().toISOString();
    this.sql.exec("INSERT INTO notebook (title, created_at) VALUES (?, ?)", title, createdAt);
    return { title, createdAt };
  }

  exists(): boolean {
    return this.sql.exec("SELECT 1 FROM notebook").toArray().length > 0;
  }

  /** Adds a note, or returns why it cannot (the notebook is full). */
  add(title: string, body: string, tags: string[]): Note | { error: string } {
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
    return this.sql.exec("DELETE FROM notes WHERE id = ?", id).rowsWritten > 0;
  }

  /** Notes whose title, body or tags contain every word of the query (case-insensitive), newest first. */
  search(query: string, limit: number): NoteSummary[] {
    const words = query.toLowerCase().split(/\s+/).filter(Boolean).slice(0, 8);
    const clause = words.map(() => "instr(lower(title || ' ' || body || ' ' || tags), ?) > 0").join(" AND ") || "1";
    return this.sql
      .exec<NoteRow>(`SELECT * FROM notes WHERE ${clause} ORDER BY updated_at DESC LIMIT ?`, ...words, limit)
      .toArray()
      .map((row) => toSummary(toNote(row)));
  }

  /** Note ids starting with `prefix`, for completion. */
  ids(prefix: string, limit: number): string[] {
    return this.sql
      .exec<{ id: string }>("SELECT id FROM notes WHERE substr(id, 1, length(?)) = ? ORDER BY id LIMIT ?", prefix, prefix, limit)
      .toArray()
      .map((row) => row.id);
  }
}
