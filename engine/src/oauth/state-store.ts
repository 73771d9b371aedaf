/**
 * @module oauth/state-store
 * The store the provider is given as `env.OAUTH_KV`: the KV calls `@cloudflare/workers-oauth-provider` 1.2 makes,
 * answered by OAuthState objects (state.ts), where a read follows every write before it. The calls, read from its
 * source: `get(key)` and `get(key, { type: "json" })`; `put(key, string, { expirationTtl | expiration, metadata })`;
 * `delete(key)`; `list({ prefix, limit, cursor })`, whose keys carry `metadata` and `expiration`. Its keys:
 *
 *   grant:<userId>:<grantId>          a grant, with its authorization code and refresh token hashes
 *   token:<userId>:<grantId>:<id>     an access token
 *   client:<clientId>                 a registered client
 *   transaction:<hash>                a consent or upstream sign-in in progress (single use, ten minutes)
 *   client-assertion-jti:<hash>       a client assertion already used (enterprise-jti:, the same for EMA)
 *
 * Where a key lives: a person's grants and tokens in the object named by their user id (`user:<userId>`), so the
 * lists the provider makes (a person's grants; a grant's tokens, when it revokes it) and a grant's token requests are
 * one object's; every other key in an object of its own (`key:<key>`). The provider's user ids never hold a `:`
 * (user-id.ts), and neither do its tokens' other parts. A list over every person (`grant:` alone: the provider's
 * purgeExpiredData, deleteClient, listClients) is refused: the engine makes none (each object expires its own
 * records).
 */
import type { OAuthState } from "./state";

export type OAuthStateNamespace = DurableObjectNamespace<OAuthState>;

const PERSON_SCOPED = /^(?:grant|token):([^:]+):/;

/** The name of the object that holds `key`. */
export function objectNameOf(key: string): string {
  const userId = PERSON_SCOPED.exec(key)?.[1];
  return userId === undefined ? `key:${key}` : personObjectName(userId);
}

/** The name of the object that holds one person's grants and tokens. */
export const personObjectName = (userId: string) => `user:${userId}`;

export const objectNamed = (namespace: OAuthStateNamespace, name: string) => namespace.get(namespace.idFromName(name));

type GetOptions = "text" | "json" | { type?: string } | undefined;
interface PutOptions {
  expiration?: number;
  expirationTtl?: number;
  metadata?: unknown;
}
interface ListOptions {
  prefix?: string | null;
  limit?: number;
  cursor?: string | null;
}

/** KV's most keys per list page, and its default. */
const MAX_LIST_LIMIT = 1000;

/** The provider's `OAUTH_KV`: its calls, each sent to the object that holds the key. */
export function stateStore(namespace: OAuthStateNamespace): KVNamespace {
  const objectOf = (key: string) => objectNamed(namespace, objectNameOf(key));
  const store = {
    async get(key: string, options?: GetOptions): Promise<unknown> {
      const type = typeof options === "string" ? options : (options?.type ?? "text");
      // Why refuse the rest: the provider reads text and JSON only; another type would be a misread, not a miss.
      if (type !== "text" && type !== "json") throw new TypeError(`OAuth state: get as ${type} is not supported`);
      const stored = await objectOf(key).get(key);
      if (stored === null) return null;
      return type === "json" ? JSON.parse(stored.value) : stored.value;
    },
    async put(key: string, value: unknown, options: PutOptions = {}): Promise<void> {
      if (typeof value !== "string") throw new TypeError("OAuth state: only string values are stored");
      // KV's two forms: an absolute time in seconds, or seconds from now.
      const expiresAt =
        options.expiration !== undefined
          ? options.expiration * 1000
          : options.expirationTtl !== undefined
            ? Date.now() + options.expirationTtl * 1000
            : null;
      const metadata = options.metadata === undefined || options.metadata === null ? null : JSON.stringify(options.metadata);
      await objectOf(key).put(key, value, expiresAt, metadata);
    },
    async delete(key: string): Promise<void> {
      await objectOf(key).delete(key);
    },
    async list(options: ListOptions = {}) {
      const prefix = options.prefix ?? "";
      // Only a list inside one person's object: a prefix that spans people would need every object.
      if (!PERSON_SCOPED.test(prefix)) throw new Error(`OAuth state: a list of "${prefix}" spans objects and is not supported`);
      const limit = Math.min(Math.max(1, options.limit ?? MAX_LIST_LIMIT), MAX_LIST_LIMIT);
      const page = await objectOf(prefix).list(prefix, limit, options.cursor ?? undefined);
      const keys = page.keys.map(({ metadata, ...key }) => ({ ...key, ...(metadata !== undefined && { metadata: JSON.parse(metadata) }) }));
      return { ...page, keys, cacheStatus: null };
    },
  };
  return store as unknown as KVNamespace;
}
