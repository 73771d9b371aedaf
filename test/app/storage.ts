/**
 * What a notebook's Durable Object has stored. Why tables, not whether the object exists: under Miniflare waking an
 * object at all creates its SQLite file (4,096 bytes, no table), while on Cloudflare an object that stored nothing
 * has no data. A SQLite-backed object has stored something once it has any table: its own (`CREATE TABLE`),
 * `_cf_KV` (the first `kv.put`) or `_cf_METADATA` (the first alarm); reads create none.
 */
import { runInDurableObject } from "cloudflare:test";

/** The tables in the object's database (with SQLite's own and the runtime's hidden ones): [] when it stored nothing. */
export function storedTables(stub: DurableObjectStub): Promise<string[]> {
  return runInDurableObject(stub, (_instance, state) =>
    state.storage.sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master")
      .toArray()
      .map((row) => row.name),
  );
}
