/**
 * @module pagination
 * Opaque list cursors. A cursor encodes an offset; anything the server did not issue is -32602.
 */
import { invalidParams } from "./errors";

export const PAGE_SIZE = 50;
const CURSOR = /^o([0-9]{1,7})$/;

export function paginate<T>(items: readonly T[], cursor: unknown): { page: T[]; nextCursor?: string } {
  let offset = 0;
  if (cursor !== undefined) {
    const decoded = typeof cursor === "string" ? decodeCursor(cursor) : undefined;
    const match = decoded === undefined ? null : CURSOR.exec(decoded);
    offset = match ? Number(match[1]) : -1;
    if (offset <= 0 || offset >= items.length) throw invalidParams("Invalid cursor");
  }
  const page = items.slice(offset, offset + PAGE_SIZE);
  const next = offset + PAGE_SIZE;
  return next < items.length ? { page, nextCursor: btoa(`o${next}`).replace(/=+$/, "") } : { page };
}

function decodeCursor(cursor: string): string | undefined {
  try {
    return atob(cursor);
  } catch {
    return undefined;
  }
}
