/**
 * What a read of an id nobody minted leaves behind in Durable Object storage. Two measures, because under
 * Miniflare waking an object at all creates its SQLite file (4,096 bytes, no table, an empty write-ahead log):
 *
 * - `wasWoken`: whether the object exists at all, as `listDurableObjectIds` sees it (it lists those files). The
 *   strongest answer, for ids the Worker can refuse before any object is addressed (signed task ids).
 * - `storedTables`: the tables of an object, read from inside it. A SQLite-backed object has stored something
 *   once it has any table: its own (`CREATE TABLE`), `_cf_KV` (the first `kv.put` or `kv.delete`) or
 *   `_cf_METADATA` (the first alarm). Reads (`kv.get`, `kv.list`, `getAlarm`, `SELECT`) create none. On
 *   Cloudflare such an object has no stored data. For objects that must be woken to know (a notebook handle).
 */
import { listDurableObjectIds, runInDurableObject } from "cloudflare:test";

/** Whether the object named `name` was ever woken in this namespace (it then has a storage file). */
export async function wasWoken(namespace: DurableObjectNamespace, name: string): Promise<boolean> {
  const id = namespace.idFromName(name).toString();
  return (await listDurableObjectIds(namespace)).some((existing) => existing.toString() === id);
}

/** The tables (with SQLite's own and the runtime's hidden ones) in the object's database: [] when it stored nothing. */
export function storedTables(stub: DurableObjectStub): Promise<string[]> {
  return runInDurableObject(stub, (_instance, state) =>
    state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master")
      .toArray()
      .map((row) => row.name),
  );
}

/** A well-formed id of the given shape nobody minted: 128 random bits, base64url. */
export const randomBase64url = (bytes = 16) =>
  crypto.getRandomValues(new Uint8Array(bytes)).toBase64({ alphabet: "base64url", omitPadding: true });
