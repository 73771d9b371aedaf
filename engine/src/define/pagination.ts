/**
 * @module define/pagination
 * Opaque list cursors; anything the server did not issue is -32602.
 *
 * Two kinds: a plain offset into a list that is the same for every caller (tools, prompts, fixed resources), and a
 * sealed cursor for a list that depends on the caller (resources that templates list): that one carries a
 * position the server must be able to trust (a listing callback's own cursor), so it is signed and bound.
 */
import type { Config } from "../config/config";
import { keyRing } from "../config/key-ring";
import { open, seal } from "../config/signing";
import { invalidParams } from "../wire/errors";
import type { CacheHint } from "../wire/types";

export const PAGE_SIZE = 50;
const CURSOR = /^o([0-9]{1,7})$/;

export function paginate<T>(items: readonly T[], cursor: unknown, pageSize = PAGE_SIZE): { page: T[]; nextCursor?: string } {
  let offset = 0;
  if (cursor !== undefined) {
    const decoded = typeof cursor === "string" ? decodeCursor(cursor) : undefined;
    const match = decoded === undefined ? null : CURSOR.exec(decoded);
    offset = match ? Number(match[1]) : -1;
    if (offset <= 0 || offset >= items.length) throw invalidParams("Invalid cursor");
  }
  const page = items.slice(offset, offset + pageSize);
  const next = offset + pageSize;
  return next < items.length ? { page, nextCursor: btoa(`o${next}`).replace(/=+$/, "") } : { page };
}

/**
 * The cache hint of a list that is the same for every caller (tools, prompts, fixed resources, skills): `lists.ttlMs`,
 * and public, except with authorization on, where what is listed may depend on the caller's scopes (and only
 * callers with a token may see it), so shared caches must not reuse it.
 */
export function listCacheHint(config: Config): CacheHint {
  return { ttlMs: config.limits.lists.ttlMs, cacheScope: config.auth || config.authServer ? "private" : "public" };
}

function decodeCursor(cursor: string): string | undefined {
  try {
    return atob(cursor);
  } catch {
    return undefined;
  }
}

/** Longest sealed cursor issued or accepted, in characters (it is checked before any crypto). */
export const MAX_SEALED_CURSOR_LENGTH = 1_024;
/** How long a sealed cursor works: enough to page through a list, short enough that an old one is not replayed forever. */
const SEALED_CURSOR_TTL_MS = 3_600_000;
/** Its own purpose: a `requestState` is never accepted as a cursor, nor the other way round. */
const PURPOSE = "mcp.list-cursor";

/**
 * Seals a position in a caller's list with the `requestState` keys (HMAC-SHA256, key id, expiry), bound to the
 * principal: another caller cannot page on with it, and whatever it carries comes back unaltered.
 */
export async function sealCursor(config: Config, principal: string, position: unknown): Promise<string> {
  const cursor = await seal(await keyRing(config), { purpose: PURPOSE, bind: { principal }, ttlMs: SEALED_CURSOR_TTL_MS, body: position });
  // Why throw: a cursor we could not accept back would strand the client on this page; this is a server bug.
  if (cursor.length > MAX_SEALED_CURSOR_LENGTH) throw new Error(`A list cursor is longer than ${MAX_SEALED_CURSOR_LENGTH} characters`);
  return cursor;
}

/** The position a sealed cursor carries; -32602 for anything tampered, expired, issued to another caller, or not ours. */
export async function openCursor(config: Config, principal: string, cursor: unknown): Promise<unknown> {
  if (typeof cursor !== "string") throw invalidParams("Invalid cursor");
  const opened = await open(await keyRing(config), cursor, { purpose: PURPOSE, bind: { principal }, maxLength: MAX_SEALED_CURSOR_LENGTH });
  if (!opened.ok) throw invalidParams("Invalid cursor");
  return opened.body;
}
