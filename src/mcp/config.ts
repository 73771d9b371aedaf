/**
 * @module config
 * Turns the Worker's vars and secrets into one validated, immutable settings object.
 *
 * Every setting is optional and has a documented default (README "Configuration"). A setting that is present but
 * malformed makes the whole configuration invalid: `/mcp` then answers 503 and `/health` says so, rather than
 * silently running with a default the operator did not choose. So does a setting that would be ignored (one of an
 * authorization mode given without the setting that turns the mode on), and, in production, an authorization mode
 * whose token audience would otherwise follow the request's Host header.
 */

import { parseScopeHierarchy, type ScopeHierarchy } from "./auth/scopes";
import { parseKeySpec } from "./input/state-token";
import { memoize } from "./memo";
import { isObject } from "./protocol/envelope";

export interface Limits {
  maxBodyBytes: number;
  maxJsonDepth: number;
  maxJsonMembers: number;
  /** Longest accepted value of an MCP header (`Mcp-Name`, `Mcp-Param-*`, ...), in characters. */
  maxHeaderValueLength: number;
}

export interface Config {
  /** "development" allows the built-in development signing key and loopback Host/Origin; "production" does not. */
  mode: "development" | "production";
  /** Browser origins allowed to call the server (exact `scheme://host[:port]`), besides the server's own origin. */
  allowedOrigins: string[];
  /**
   * Extra Host header values accepted; loopback names are always accepted in development. In production, required
   * in authorization-server mode, and in resource-server mode unless AUTH_AUDIENCE is set.
   */
  allowedHosts: string[];
  limits: Limits;
  /** `ttlMs` advertised on list results; `cacheScope` is "public" unless results depend on the caller. */
  listTtlMs: number;
  /** Which requests get an access log line: every one, only failures (status >= 400), or none. */
  accessLog: "all" | "errors" | "off";
  state: StateSettings;
  listen: ListenSettings;
  legacy: LegacySettings;
  tasks: TaskConfig;
  rateLimit: RateLimitSettings;
  /** OAuth 2.1 resource server settings (an external issuer, AUTH_ISSUER); `undefined` otherwise. */
  auth?: AuthSettings;
  /**
   * The built-in OAuth authorization server with third-party login (AUTH_LOGIN); `undefined` otherwise. With
   * neither `auth` nor `authServer` authorization is off and every caller is anonymous.
   */
  authServer?: AuthServerSettings;
}

/** The built-in authorization server: who signs people in upstream, and the lifetimes of what it issues. */
export interface AuthServerSettings {
  /** The third-party login: a GitHub OAuth app, or any OpenID Connect issuer found by discovery. */
  login: "github" | "oidc";
  /** The OAuth client this server is at the upstream provider. */
  clientId: string;
  clientSecret: string;
  /** The OpenID Connect issuer (`oidc` only); its discovery document names every endpoint. */
  issuer?: string;
  /** Scopes asked of the upstream provider. */
  scopes: string[];
  /** Signs the cookie that remembers approved clients (32 characters or more). */
  consentSecret: string;
  /** Keep the upstream access token in `ctx.principal.upstreamToken`, for tools that call the provider's API. */
  keepUpstreamToken: boolean;
  accessTokenSeconds: number;
  /** A grant (its refresh tokens) ends this long after the code exchange, however often it is refreshed. */
  refreshTokenSeconds: number;
  /** A dynamically registered client that obtains no token for this long is deleted. */
  clientSeconds: number;
  scopeHierarchy: ScopeHierarchy;
}

export interface AuthSettings {
  /** The authorization server that issues tokens for this server (`iss`). Setting it turns authorization on. */
  issuer: string;
  /**
   * The audience tokens must name: this server's canonical URL (or an issuer's application tag). Default:
   * `<origin>/mcp`, for an origin whose Host passed `checkHost` (in production only with ALLOWED_HOSTS set).
   */
  audience?: string;
  /** Where the issuer publishes its signing keys. Default: `<issuer>/.well-known/jwks.json`. */
  jwksUrl: string;
  /** Signing keys given inline (a JWKS document), instead of fetching them. */
  jwks?: { keys: JsonWebKey[] };
  /** JWS algorithms accepted; asymmetric only. */
  algorithms: string[];
  /** Which granted scopes imply which others (AUTH_SCOPE_HIERARCHY; default: `notes` implies `notes:read`). */
  scopeHierarchy: ScopeHierarchy;
}

export interface RateLimitSettings {
  /**
   * The RATE_LIMITER binding's `simple.period` in wrangler.toml (the binding accepts only 10 or 60), sent as
   * Retry-After. A setting because the binding does not tell its own period.
   */
  periodSeconds: number;
}

export interface LegacySettings {
  /** Serve 2025-era clients (the initialize handshake) besides 2026-07-28 ones. */
  enabled: boolean;
  /** A legacy session that sees no request for this long ends (sessions stored at initialize). */
  sessionIdleMs: number;
  /** Every legacy session ends this long after initialize: its id is a signed token with this expiry. */
  sessionLifetimeMs: number;
  /** How long a tool in a legacy session waits for the client to answer a server-to-client request. */
  inputTimeoutMs: number;
  /** Most messages in one 2025-03-26 batch. */
  maxBatch: number;
}

/**
 * The settings of tasks that differ per deployment; the fixed limits, each from a platform limit, are in
 * tasks/settings.ts.
 */
export interface TaskConfig {
  /**
   * How long a task's question waits for its answer (from when it was asked, or from the last answer to one of
   * its questions). Then the task fails and stops counting against its caller's tasks in progress.
   */
  inputTimeoutMs: number;
}

export interface ListenSettings {
  /** Interval of SSE comment keep-alives on listen streams. */
  keepAliveMs: number;
  /** After this long a listen stream ends gracefully with its completion result; clients listen again. */
  maxLifetimeMs: number;
  /** Listeners one hub (a shard of a group, see `listen/groups.ts`) holds before its group opens another shard. */
  shardCapacity: number;
  /** Shards one group may open; it refuses listeners beyond shardCapacity × maxShards. */
  maxShards: number;
  /** Listeners one caller may hold at once: an authenticated principal, or one client address when anonymous. */
  maxPerCaller: number;
}

export interface StateSettings {
  /** Raw signing keys, current first (from the STATE_KEYS secret). */
  keys: { kid: string; bytes: Uint8Array }[];
  /** True when no STATE_KEYS is set and development mode supplied the built-in, publicly known key. */
  developmentKey: boolean;
  ttlMs: number;
  maxLength: number;
}

/**
 * The development-only signing key. It is public (it is in this file), so it is refused in production mode:
 * there, a missing STATE_KEYS makes the configuration invalid and /mcp answers 503.
 */
const DEVELOPMENT_STATE_KEYS = "dev:ZGV2ZWxvcG1lbnQtb25seSBrZXksIG5ldmVyIHVzZSBpbiBwcm9kdWN0aW9uIQ";

/** The development-only consent-cookie key: public, so refused in production like the state key. */
const DEVELOPMENT_CONSENT_SECRET = "development-only consent secret, never use in production";

export type ConfigResult = { ok: true; config: Config } | { ok: false; problems: string[] };

/** Parses the environment once per isolate (the env object is stable), so requests pay nothing for it. */
export const loadConfig = memoize((env: object): ConfigResult => parseConfig(env as Record<string, unknown>));

export function parseConfig(vars: Record<string, unknown>): ConfigResult {
  const problems: string[] = [];
  const read = new VarReader(vars, problems);
  const mode = read.oneOf("MCP_ENV", ["development", "production"], "production");
  const config: Config = {
    mode,
    allowedOrigins: read.list("ALLOWED_ORIGINS").map((origin) => origin.replace(/\/+$/, "")),
    allowedHosts: read.list("ALLOWED_HOSTS").map((host) => host.toLowerCase()),
    limits: {
      maxBodyBytes: read.integer("MAX_BODY_BYTES", 1_048_576, 1_024, 104_857_600),
      maxJsonDepth: read.integer("MAX_JSON_DEPTH", 64, 8, 1_000),
      maxJsonMembers: read.integer("MAX_JSON_MEMBERS", 10_000, 100, 1_000_000),
      maxHeaderValueLength: read.integer("MAX_HEADER_VALUE_LENGTH", 1_024, 64, 8_192),
    },
    listTtlMs: read.integer("LIST_TTL_MS", 60_000, 0, 86_400_000),
    accessLog: read.oneOf("ACCESS_LOG", ["all", "errors", "off"], "errors"),
    state: readStateSettings(read, mode),
    listen: {
      keepAliveMs: read.integer("LISTEN_KEEPALIVE_MS", 20_000, 50, 60_000),
      maxLifetimeMs: read.integer("LISTEN_MAX_LIFETIME_MS", 1_800_000, 100, 86_400_000),
      shardCapacity: read.integer("LISTEN_SHARD_CAPACITY", 1_000, 1, 32_768),
      maxShards: read.integer("LISTEN_MAX_SHARDS", 32, 1, 1_000),
      maxPerCaller: read.integer("LISTEN_MAX_PER_CALLER", 50, 1, 10_000),
    },
    legacy: {
      enabled: read.oneOf("LEGACY_CLIENTS", ["on", "off"], "on") === "on",
      sessionIdleMs: read.integer("SESSION_IDLE_SECONDS", 1_800, 10, 86_400) * 1000,
      sessionLifetimeMs: read.integer("SESSION_LIFETIME_SECONDS", 86_400, 60, 2_592_000) * 1000,
      inputTimeoutMs: read.integer("SESSION_INPUT_TIMEOUT_SECONDS", 300, 1, 3_600) * 1000,
      maxBatch: read.integer("MAX_BATCH_MESSAGES", 50, 1, 1_000),
    },
    // At most the task lifetime (1 hour): a longer wait would never end before the task itself does.
    tasks: { inputTimeoutMs: read.integer("TASK_INPUT_TIMEOUT_SECONDS", 300, 1, 3_600) * 1000 },
    rateLimit: { periodSeconds: Number(read.oneOf("RATE_LIMIT_PERIOD_SECONDS", ["10", "60"], "60")) },
    auth: readAuthSettings(read),
    authServer: readAuthServerSettings(read, mode),
  };
  // Why: two sources of truth for who may call would leave one of them silently ignored.
  if (config.auth && config.authServer) problems.push("AUTH_ISSUER and AUTH_LOGIN cannot both be set");
  refuseIgnoredAuthSettings(read);
  if (mode === "production") refuseHostDerivedAudience(config, problems);
  return problems.length ? { ok: false, problems } : { ok: true, config };
}

/** Settings of resource-server mode: they mean something only with AUTH_ISSUER. */
const RESOURCE_SERVER_SETTINGS = ["AUTH_AUDIENCE", "AUTH_JWKS", "AUTH_JWKS_URL", "AUTH_ALGORITHMS"];

/** Settings of authorization-server mode: they mean something only with AUTH_LOGIN. */
const AUTHORIZATION_SERVER_SETTINGS = [
  "AUTH_LOGIN_CLIENT_ID",
  "AUTH_LOGIN_CLIENT_SECRET",
  "AUTH_LOGIN_ISSUER",
  "AUTH_LOGIN_SCOPES",
  "AUTH_CONSENT_SECRET",
  "AUTH_UPSTREAM_TOKEN",
  "AUTH_ACCESS_TOKEN_SECONDS",
  "AUTH_REFRESH_TOKEN_SECONDS",
  "AUTH_CLIENT_TTL_SECONDS",
];

/**
 * Why: a setting of an authorization mode given without the setting that turns that mode on would be ignored, and
 * the server would run with authorization off (AUTH_AUDIENCE alone, say, from a half-copied recipe). That
 * half-applied configuration is a named problem instead, so it fails closed.
 */
function refuseIgnoredAuthSettings(read: VarReader): void {
  const issuer = read.isSet("AUTH_ISSUER");
  const login = read.isSet("AUTH_LOGIN");
  for (const name of RESOURCE_SERVER_SETTINGS) {
    if (!issuer && read.isSet(name)) read.problems.push(`${name} is set but AUTH_ISSUER is not: it would be ignored`);
  }
  for (const name of AUTHORIZATION_SERVER_SETTINGS) {
    if (!login && read.isSet(name)) read.problems.push(`${name} is set but AUTH_LOGIN is not: it would be ignored`);
  }
  if (!issuer && !login && read.isSet("AUTH_SCOPE_HIERARCHY")) {
    read.problems.push("AUTH_SCOPE_HIERARCHY is set but neither AUTH_ISSUER nor AUTH_LOGIN is: it would be ignored");
  }
}

/**
 * Why: the server names itself (the audience tokens must carry, the resource in its metadata, the URLs in its
 * challenges) by the origin of the request unless told otherwise, and the request's Host header is the caller's
 * choice. In production, where no loopback rule narrows the Host, the audience must be pinned by configuration:
 * otherwise a token the same issuer minted for another service is accepted once the request names that service's
 * Host. Development accepts loopback hosts only (`checkHost`), so it needs neither setting.
 */
function refuseHostDerivedAudience(config: Config, problems: string[]): void {
  const hostsPinned = config.allowedHosts.length > 0;
  if (config.auth && config.auth.audience === undefined && !hostsPinned) {
    problems.push("AUTH_ISSUER needs AUTH_AUDIENCE or ALLOWED_HOSTS in production, so the token audience does not follow the Host header");
  }
  if (config.authServer && !hostsPinned) {
    problems.push("AUTH_LOGIN needs ALLOWED_HOSTS in production, so the token audience and OAuth metadata do not follow the Host header");
  }
}

function readStateSettings(read: VarReader, mode: Config["mode"]): StateSettings {
  const secret = read.string("STATE_KEYS");
  // Why: production must never run on the published development key; it fails closed instead.
  if (secret === undefined && mode === "production") read.problems.push("STATE_KEYS is not set");
  const { keys, problems } = parseKeySpec(secret ?? DEVELOPMENT_STATE_KEYS);
  read.problems.push(...problems);
  return {
    keys,
    developmentKey: secret === undefined,
    ttlMs: read.integer("STATE_TTL_SECONDS", 600, 10, 86_400) * 1000,
    maxLength: read.integer("STATE_MAX_BYTES", 16_384, 1_024, 262_144),
  };
}

const ASYMMETRIC = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];

function readAuthSettings(read: VarReader): AuthSettings | undefined {
  const issuer = read.string("AUTH_ISSUER");
  if (issuer === undefined) return undefined;
  const url = (name: string, value: string | undefined) => httpsUrl(read, name, value);
  url("AUTH_ISSUER", issuer);
  const algorithms = read.list("AUTH_ALGORITHMS");
  if (algorithms.some((algorithm) => !ASYMMETRIC.includes(algorithm))) {
    read.problems.push(`AUTH_ALGORITHMS may only list ${ASYMMETRIC.join(", ")}`);
  }
  let jwks: AuthSettings["jwks"];
  const inline = read.string("AUTH_JWKS");
  if (inline !== undefined) {
    try {
      jwks = JSON.parse(inline) as AuthSettings["jwks"];
      // The same shape the key set needs (auth/jwks.ts): a malformed set is a configuration error, named at startup.
      if (!isObject(jwks) || !Array.isArray(jwks.keys) || !jwks.keys.every(isObject)) throw new Error();
    } catch {
      read.problems.push('AUTH_JWKS must be a JSON Web Key Set ({"keys": [...]})');
    }
  }
  return {
    issuer,
    // Usually this server's URL; some issuers (Cloudflare Access) name an application tag instead.
    audience: read.string("AUTH_AUDIENCE"),
    jwksUrl: url("AUTH_JWKS_URL", read.string("AUTH_JWKS_URL")) ?? `${issuer.replace(/\/+$/, "")}/.well-known/jwks.json`,
    ...(jwks && { jwks }),
    algorithms: algorithms.length ? algorithms : ["RS256", "ES256"],
    scopeHierarchy: readScopeHierarchy(read),
  };
}

/** An https URL (loopback excepted), else a problem naming the setting. */
function httpsUrl(read: VarReader, name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  // Why https only (loopback excepted): keys or tokens fetched over plain HTTP could be swapped by anyone on the path.
  const parsed = URL.canParse(value) ? new URL(value) : undefined;
  if (!parsed || (parsed.protocol !== "https:" && !["localhost", "127.0.0.1"].includes(parsed.hostname))) {
    read.problems.push(`${name} must be an https URL`);
  }
  return value;
}

function readScopeHierarchy(read: VarReader): ScopeHierarchy {
  const hierarchyRules = read.list("AUTH_SCOPE_HIERARCHY");
  const { hierarchy, problem } = parseScopeHierarchy(hierarchyRules.length ? hierarchyRules : ["prefix"]);
  if (problem) read.problems.push(problem);
  return hierarchy;
}

/** Upstream scopes asked by default: enough to identify the person, nothing more. */
const DEFAULT_LOGIN_SCOPES = { github: ["read:user"], oidc: ["openid", "profile", "email"] };

function readAuthServerSettings(read: VarReader, mode: Config["mode"]): AuthServerSettings | undefined {
  const login = read.string("AUTH_LOGIN");
  if (login === undefined) return undefined;
  if (login !== "github" && login !== "oidc") {
    read.problems.push("AUTH_LOGIN must be one of github, oidc");
    return undefined;
  }
  // Why each read is spelled out: the README check finds every setting by its `read.<kind>("NAME")` call.
  const required = (name: string, value: string | undefined) => {
    if (value === undefined) read.problems.push(`${name} is not set`);
    return value ?? "";
  };
  const issuer =
    login === "oidc" ? httpsUrl(read, "AUTH_LOGIN_ISSUER", required("AUTH_LOGIN_ISSUER", read.string("AUTH_LOGIN_ISSUER"))) : undefined;
  // Why a problem rather than a 500 at the first login: the provider keeps every client and grant in this namespace.
  if (!read.hasBinding("OAUTH_KV")) read.problems.push("OAUTH_KV (a KV namespace binding) is missing");
  const consentSecret = read.string("AUTH_CONSENT_SECRET");
  // Why: the remembered-approval cookie is only as strong as its key; a published or short one is forgeable.
  if (consentSecret === undefined && mode === "production") read.problems.push("AUTH_CONSENT_SECRET is not set");
  if (consentSecret !== undefined && consentSecret.length < 32) read.problems.push("AUTH_CONSENT_SECRET must be 32 characters or more");
  const scopes = read.list("AUTH_LOGIN_SCOPES");
  return {
    login,
    clientId: required("AUTH_LOGIN_CLIENT_ID", read.string("AUTH_LOGIN_CLIENT_ID")),
    clientSecret: required("AUTH_LOGIN_CLIENT_SECRET", read.string("AUTH_LOGIN_CLIENT_SECRET")),
    ...(issuer !== undefined && { issuer }),
    scopes: scopes.length ? scopes : DEFAULT_LOGIN_SCOPES[login],
    consentSecret: consentSecret ?? DEVELOPMENT_CONSENT_SECRET,
    keepUpstreamToken: read.oneOf("AUTH_UPSTREAM_TOKEN", ["on", "off"], "off") === "on",
    accessTokenSeconds: read.integer("AUTH_ACCESS_TOKEN_SECONDS", 3_600, 60, 86_400),
    refreshTokenSeconds: read.integer("AUTH_REFRESH_TOKEN_SECONDS", 2_592_000, 3_600, 31_536_000),
    clientSeconds: read.integer("AUTH_CLIENT_TTL_SECONDS", 2_592_000, 3_600, 31_536_000),
    scopeHierarchy: readScopeHierarchy(read),
  };
}

/** Reads string vars with defaults, recording a problem (by name, never by value) for each malformed one. */
export class VarReader {
  constructor(
    private readonly vars: Record<string, unknown>,
    readonly problems: string[],
  ) {}

  /** Whether a setting is given (a non-empty value of any type): presence only, never its value. */
  isSet(name: string): boolean {
    const value = this.vars[name];
    return value !== undefined && value !== null && value !== "";
  }

  /** Whether a binding (not a setting) is present: presence only, never its value. */
  hasBinding(name: string): boolean {
    return this.vars[name] !== undefined && this.vars[name] !== null;
  }

  string(name: string): string | undefined {
    const value = this.vars[name];
    if (value === undefined || value === null || value === "") return undefined;
    if (typeof value !== "string") {
      this.problems.push(`${name} must be a string`);
      return undefined;
    }
    return value.trim();
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max}`);
      return fallback;
    }
    return value;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      this.problems.push(`${name} must be one of ${allowed.join(", ")}`);
      return fallback;
    }
    return raw as T;
  }

  list(name: string): string[] {
    return (this.string(name) ?? "")
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean);
  }
}
