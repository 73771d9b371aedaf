/**
 * @module config/options
 * The engine's limits and tuning, as code: options of `createMcpWorker`, typed, each with a documented default.
 * Environment variables keep only secrets and what differs per deployment (settings.ts). One unit per kind: every
 * duration is in milliseconds, every size in bytes (as stored or as received, as each one says), every count a
 * plain number. A value out of its range is a programming error: `createMcpWorker` throws at startup, naming it.
 */
import { parseScopeHierarchy, type ScopeHierarchy } from "./scopes";

/** Whether `ms` is a period a rate-limiting binding can count in: its `simple.period` is 10 or 60 seconds, nothing else. */
export const isBindingPeriod = (ms: number): boolean => ms === 10_000 || ms === 60_000;

/**
 * The default of `limits.request.streamAfterMs`. Why a second: most answers are sent by then and stay plain JSON,
 * exactly as before (conformance checks their form); a method still running is one a client may give up on, and only
 * a write tells a Worker under `wrangler dev` that it did.
 */
export const STREAM_AFTER_MS = 1_000;

/** A limit's default and the range it may be set to. */
type Range = readonly [fallback: number, min: number, max: number];

/**
 * Every limit, with its default and its range. Why each range: the bounds keep a deployment inside what the
 * platform allows (a Durable Object value holds 2 MB, an alarm has 30 s of CPU, a socket attachment 16 KiB) and
 * what one caller may cost the others.
 */
const LIMITS = {
  request: {
    /** Largest request body accepted, in bytes as received (413 above it, checked while reading). */
    maxBodyBytes: [1_048_576, 1_024, 104_857_600],
    /** Deepest JSON nesting accepted (-32700 above it). */
    maxJsonDepth: [64, 8, 1_000],
    /** Most object members in one message (-32700 above it). */
    maxJsonMembers: [10_000, 100, 1_000_000],
    /** Most array elements in one message, all arrays together (-32700 above it): bounds what a body costs parsed. */
    maxJsonElements: [100_000, 100, 10_000_000],
    /** Longest MCP header value (`Mcp-Name`, `Mcp-Param-*`, ...), in UTF-16 units. */
    maxHeaderValueLength: [1_024, 64, 8_192],
    /** Most messages in one 2025-03-26 batch. */
    maxBatchMessages: [50, 1, 1_000],
    /**
     * How long a method may run before its answer turns into an SSE stream with keep-alive comments (http/reply.ts):
     * at most 60 s, well within the ~100 s of silence after which Cloudflare's edge cuts a stream.
     */
    streamAfterMs: [STREAM_AFTER_MS, 100, 60_000],
  },
  lists: {
    /** `ttlMs` on `server/discover` and list results. */
    ttlMs: [60_000, 0, 86_400_000],
  },
  state: {
    /** Lifetime of a `requestState` (and of the signed list cursors). */
    ttlMs: [600_000, 10_000, 86_400_000],
    /** Largest `requestState` accepted or minted, in bytes of its base64url token. */
    maxBytes: [16_384, 1_024, 262_144],
  },
  listen: {
    /** Interval of SSE comment keep-alives on listen streams. */
    keepAliveMs: [20_000, 50, 60_000],
    /** A listen stream ends with its completion result after this long; clients listen again. */
    maxLifetimeMs: [1_800_000, 100, 86_400_000],
    /** Listeners one hub shard holds before its group opens another. */
    shardCapacity: [1_000, 1, 32_768],
    /** Shards one hub group may open; the server holds at most shardCapacity x maxShards listeners. */
    maxShards: [32, 1, 1_000],
    /** Listen streams one caller may hold at once: an authenticated principal, or one client network (an IPv4 address or IPv6 /64) when anonymous. */
    maxPerCaller: [50, 1, 10_000],
  },
  sessions: {
    /** A 2025 session stored at initialize ends after this long without a request. */
    idleMs: [1_800_000, 10_000, 86_400_000],
    /** Every 2025 session ends this long after initialize (its id is a signed token with this expiry). */
    lifetimeMs: [86_400_000, 60_000, 2_592_000_000],
    /** How long a tool in a 2025 session waits for the client's answer to a server-to-client request. */
    inputTimeoutMs: [300_000, 1_000, 3_600_000],
    /** Calls one 2025 session may have waiting for the client's answers at once (a call counts once, whatever it asks). */
    maxWaitingPerSession: [10, 1, 1_000],
    /** Calls one caller (principal, or client network when anonymous) may have waiting for the client's answers at once, across its 2025 sessions. */
    maxWaitingPerCaller: [50, 1, 10_000],
  },
  tasks: {
    /** How long a task and its result are kept after creation (the wire's `ttlMs`), and the longest it may work. */
    ttlMs: [3_600_000, 60_000, 86_400_000],
    /** Tasks one caller (principal, or client network when anonymous: an IPv4 address or IPv6 /64) may have in progress at once. */
    maxActivePerCaller: [10, 1, 1_000],
    /** Suggested polling interval for `tasks/get`. */
    pollIntervalMs: [1_000, 100, 60_000],
    /** Wall time one run may use before `ctx.checkpoint()` ends it; at most 25 s (an alarm has 30 s of CPU). */
    sliceMs: [20_000, 1_000, 25_000],
    /** A run that stops without a word is run again from its last checkpoint after this long (more than a slice). */
    leaseMs: [60_000, 30_000, 900_000],
    /** Largest result kept, in bytes of UTF-8 JSON as stored (a Durable Object value holds 2 MB). */
    maxResultBytes: [1_000_000, 1_024, 2_000_000],
    /** Largest `ctx.state` kept between runs, in bytes of UTF-8 JSON as stored. */
    maxStateBytes: [131_072, 1_024, 1_000_000],
    /** Largest `notifications/tasks` sent with its payload, in bytes of UTF-8 JSON; a larger one goes without it. */
    maxNotificationBytes: [16_384, 1_024, 16_384],
    /** Largest `tasks/update` answers taken at once, in bytes of UTF-8 JSON. */
    maxAnswerBytes: [262_144, 1_024, 1_048_576],
    /** How long a task's question waits for its answer; then the task fails and frees its caller's slot. */
    inputTimeoutMs: [300_000, 1_000, 3_600_000],
  },
  skills: {
    /** Most entries in one page of `skills/list` (skills) or `resources/directory/read` (a directory's children). */
    pageSize: [100, 1, 1_000],
  },
  rateLimit: {
    /** The RATE_LIMITER binding's `simple.period` in wrangler.toml: how long a refused caller waits at most. 10 or 60 s. */
    periodMs: [60_000, 10_000, 60_000],
    /** The RATE_LIMITER binding's `simple.limit` in wrangler.toml, sent as `RateLimit-Limit`. */
    requests: [600, 1, 1_000_000],
  },
  oauth: {
    /** Access token lifetime (authorization-server mode). */
    accessTokenMs: [3_600_000, 60_000, 86_400_000],
    /** A grant (its refresh tokens) ends this long after the code exchange, however often it is refreshed. */
    refreshTokenMs: [2_592_000_000, 3_600_000, 31_536_000_000],
    /** A dynamically registered client that obtains no token for this long is deleted. */
    clientMs: [2_592_000_000, 3_600_000, 31_536_000_000],
    /** A refresh token used again this soon, by the same request, gets the same answer; after it, a reuse revokes the grant. */
    refreshRetryMs: [60_000, 1_000, 300_000],
    /** Most grants one person holds (one per client they signed in to); a sign-in past it revokes their least recently used. */
    grantsPerPerson: [20, 1, 1_000],
  },
} as const satisfies Record<string, Record<string, Range>>;

/**
 * Every limit, resolved: `limits.<group>.<name>` as the engine applies it, each a number in its stated unit
 * (milliseconds, bytes, or a count). `LimitOptions`, the public shape, is the same with every field optional.
 */
export type Limits = { [G in keyof typeof LIMITS]: { [K in keyof (typeof LIMITS)[G]]: number } };

/**
 * The limits a Worker sets (`createMcpWorker({ limits })`); any it leaves out keep their defaults. Groups:
 * `request`, `lists`, `state`, `listen`, `sessions`, `tasks`, `skills`, `rateLimit`, `oauth`. Durations are in
 * milliseconds, sizes in bytes; a value outside its range (or a name that is not a limit) stops the Worker at
 * startup with an error naming it.
 *
 * @example
 * ```ts
 * export const limits: LimitOptions = { state: { ttlMs: 300_000 }, listen: { maxPerCaller: 10 } };
 * ```
 * @see docs/configuration.md
 */
export type LimitOptions = { [G in keyof Limits]?: Partial<Limits[G]> };

/**
 * What `createMcpWorker` takes besides the server's identity and declarations: limits, whether to serve 2025
 * clients, how scopes imply each other, and whether to keep the upstream token. Every field is optional; each is
 * checked at startup. (Secrets and what differs per deployment stay in the environment.)
 *
 * @example
 * ```ts
 * export const options: EngineOptions = {
 *   legacyClients: true,
 *   scopeHierarchy: ["prefix", "admin>reports"],
 *   limits: { tasks: { maxActivePerCaller: 3 } },
 * };
 * ```
 * @see docs/configuration.md
 */
export interface EngineOptions {
  /** Limits and tuning; every field is optional (defaults: docs/configuration.md, "Limits and options"). */
  limits?: LimitOptions;
  /** Serve 2025-era clients (the `initialize` handshake) besides 2026-07-28 ones. Default `true`. */
  legacyClients?: boolean;
  /**
   * Which granted scopes imply which others, when authorization is on: `"prefix"` (a scope implies every scope
   * that extends it after a colon: `notes` implies `notes:read`), `"broader>narrower"` rules, or `["none"]` for exact
   * scopes only. Default `["prefix"]`.
   */
  scopeHierarchy?: readonly string[];
  /**
   * Authorization-server mode: keep the upstream provider's access token in `ctx.principal.upstreamToken`, for
   * tools that call that provider's API as the user. Default `false`.
   */
  upstreamToken?: boolean;
  /**
   * Serve an MCP Server Card (SEP-2127, a draft extension) at `/mcp/server-card` and
   * `/.well-known/mcp/server-card.json`: the server's name, version, title, description, website and icons, its
   * endpoint and the protocol versions it serves, read before connecting. `true`, or an object naming the source
   * repository (the one field of the card the server does not declare otherwise). It needs a reverse-DNS `name`
   * (`io.github.you/weather`) and a `description` of at most 100 characters; without them the Worker does not start.
   * For example `serverCard: { repository: { url: "https://github.com/you/weather", source: "github" } }`.
   * Default `false` (both paths answer 404).
   */
  serverCard?: boolean | { repository?: ServerCardRepository };
  /**
   * The JSON-RPC error a request over the rate limit gets, with its HTTP 429: `"invalid-request"` (-32600, what every
   * client reads today) or `"sep-3304"`: -32023 with `data.retryAfterMs`, `data.limit` and `data.remaining`, as the
   * draft SEP-3304 (August 2026) defines it. Default `"invalid-request"` while the draft stands.
   */
  rateLimitError?: RateLimitError;
}

/** The JSON-RPC error of a request over the rate limit (`rateLimitError`). */
export type RateLimitError = "invalid-request" | "sep-3304";

/**
 * The card's `repository`: where the server's source code is, for people and scanners to inspect it. `url` is an
 * http or https URL, `source` the hosting service (`"github"`), `subfolder` the server's folder in a monorepo.
 */
export interface ServerCardRepository {
  url: string;
  source: string;
  subfolder?: string;
  id?: string;
}

/** The options once checked, every default filled in. */
export interface ResolvedOptions {
  limits: Limits;
  legacyClients: boolean;
  scopeHierarchy: ScopeHierarchy;
  upstreamToken: boolean;
  rateLimitError: RateLimitError;
}

/** Fills in the defaults and checks every value; throws an Error naming the first option out of its range. */
export function resolveOptions(options: EngineOptions = {}): ResolvedOptions {
  const limits = {} as Record<string, Record<string, number>>;
  for (const [group, fields] of Object.entries(LIMITS) as [string, Record<string, Range>][]) {
    const given = (options.limits as Record<string, Record<string, unknown> | undefined> | undefined)?.[group] ?? {};
    for (const name of Object.keys(given)) {
      if (!(name in fields)) throw new Error(`createMcpWorker: limits.${group}.${name} is not a limit`);
    }
    limits[group] = {};
    for (const [name, [fallback, min, max]] of Object.entries(fields)) {
      const value = given[name] ?? fallback;
      if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
        throw new Error(`createMcpWorker: limits.${group}.${name} must be an integer from ${min} to ${max}`);
      }
      limits[group]![name] = value;
    }
  }
  for (const group of Object.keys(options.limits ?? {})) {
    if (!(group in LIMITS)) throw new Error(`createMcpWorker: limits.${group} is not a group of limits`);
  }
  const resolved = limits as Limits;
  if (!isBindingPeriod(resolved.rateLimit.periodMs)) {
    throw new Error("createMcpWorker: limits.rateLimit.periodMs must be 10000 or 60000 (the binding's period)");
  }
  // A question cannot wait longer than its task lives; a lost run is retried only after a slice could have ended.
  if (resolved.tasks.inputTimeoutMs > resolved.tasks.ttlMs)
    throw new Error("createMcpWorker: limits.tasks.inputTimeoutMs must not exceed limits.tasks.ttlMs");
  if (resolved.tasks.leaseMs <= resolved.tasks.sliceMs)
    throw new Error("createMcpWorker: limits.tasks.leaseMs must exceed limits.tasks.sliceMs");
  const { hierarchy, problem } = parseScopeHierarchy(options.scopeHierarchy ?? ["prefix"]);
  if (problem) throw new Error(`createMcpWorker: scopeHierarchy ${problem}`);
  const rateLimitError = options.rateLimitError ?? "invalid-request";
  if (rateLimitError !== "invalid-request" && rateLimitError !== "sep-3304") {
    throw new Error('createMcpWorker: rateLimitError must be "invalid-request" or "sep-3304"');
  }
  return {
    limits: resolved,
    legacyClients: options.legacyClients ?? true,
    scopeHierarchy: hierarchy,
    upstreamToken: options.upstreamToken ?? false,
    rateLimitError,
  };
}

/** Every limit's default and range, by `group.name`: the documentation and its test read them here. */
export function limitTable(): { name: string; fallback: number; min: number; max: number }[] {
  return Object.entries(LIMITS).flatMap(([group, fields]) =>
    Object.entries(fields as Record<string, Range>).map(([name, [fallback, min, max]]) => ({
      name: `${group}.${name}`,
      fallback,
      min,
      max,
    })),
  );
}
