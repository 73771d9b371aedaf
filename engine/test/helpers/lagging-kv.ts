/**
 * A KV namespace that lags as Workers KV does between locations: a read sees every key as it was `lagMs` ago, so a
 * value written (or deleted) a moment ago is not there yet, and the one it replaced still is. Reads within a request
 * that wrote the key included, which is the worst case KV allows (a write is visible elsewhere after up to about a
 * minute; reference: "OAuth state on Workers KV"). Only what `@cloudflare/workers-oauth-provider` calls: `get` (text
 * or json), `put` (with `expiration`, `expirationTtl`, `metadata`), `delete`, and `list` (prefix, limit, cursor).
 */

interface Version {
  /** When it was written (Date.now()). */
  at: number;
  /** `null`: deleted. */
  value: string | null;
  metadata?: unknown;
  /** When it expires (ms), if it does. */
  expiresAt?: number;
}

type GetType = "text" | "json" | { type?: "text" | "json" } | undefined;

export function laggingKv(lagMs: number): KVNamespace {
  const history = new Map<string, Version[]>();
  /** The newest version written at least lagMs ago, or undefined: what another location still sees. */
  const visible = (key: string): Version | undefined => {
    const now = Date.now();
    const seen = (history.get(key) ?? []).filter((version) => version.at <= now - lagMs).at(-1);
    if (!seen || seen.value === null || (seen.expiresAt !== undefined && seen.expiresAt <= now)) return undefined;
    return seen;
  };
  const write = (key: string, version: Omit<Version, "at">) => {
    const versions = history.get(key) ?? [];
    versions.push({ at: Date.now(), ...version });
    history.set(key, versions);
  };
  const kv = {
    async get(key: string, type?: GetType) {
      const kind = typeof type === "string" ? type : (type?.type ?? "text");
      if (kind !== "text" && kind !== "json") throw new Error(`laggingKv: get type ${kind} is not supported`);
      const value = visible(key)?.value;
      if (value === undefined || value === null) return null;
      return kind === "json" ? JSON.parse(value) : value;
    },
    async put(key: string, value: string, options: { expiration?: number; expirationTtl?: number; metadata?: unknown } = {}) {
      if (typeof value !== "string") throw new Error("laggingKv: only string values are supported");
      const expiresAt =
        options.expiration !== undefined
          ? options.expiration * 1000
          : options.expirationTtl !== undefined
            ? Date.now() + options.expirationTtl * 1000
            : undefined;
      write(key, { value, metadata: options.metadata, expiresAt });
    },
    async delete(key: string) {
      write(key, { value: null });
    },
    async list(options: { prefix?: string; limit?: number; cursor?: string } = {}) {
      const names = [...history.keys()].filter((key) => key.startsWith(options.prefix ?? "") && visible(key)).sort();
      const start = options.cursor ? Number(options.cursor) : 0;
      const limit = options.limit ?? 1000;
      const page = names.slice(start, start + limit);
      const keys = page.map((name) => {
        const { metadata, expiresAt } = visible(name)!;
        return {
          name,
          ...(metadata !== undefined && { metadata }),
          ...(expiresAt !== undefined && { expiration: Math.floor(expiresAt / 1000) }),
        };
      });
      const complete = start + limit >= names.length;
      return complete
        ? { keys, list_complete: true, cacheStatus: null }
        : { keys, list_complete: false, cursor: String(start + limit), cacheStatus: null };
    },
  };
  return kv as unknown as KVNamespace;
}
