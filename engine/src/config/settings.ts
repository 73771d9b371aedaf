/**
 * @module config/settings
 * The deployment's settings: the Worker's vars and secrets, for what differs from one deployment to the next
 * (its mode, its hosts and origins, how much it logs, its signing keys and its authorization). Limits and tuning
 * are code (options.ts).
 *
 * Every setting is optional and has a documented default. A setting that is present but malformed, half of an
 * authorization mode, or one that is no longer read makes the configuration invalid: `/mcp` then answers 503 and
 * `/health` says so, rather than silently running with something the operator did not choose.
 */
import { isObject } from "../wire/envelope";
import { truncate } from "../wire/errors";
import { parseKeySpec } from "./keys";
import { type MachineClient, parseMachineClients } from "./machine-clients";
import { isOriginPattern, KNOWN_HOST_ORIGINS, NO_HOST_ORIGINS, originOf } from "./origins";

export interface Settings {
  /** "development" allows the built-in development signing key and loopback Host/Origin; "production" does not. */
  mode: "development" | "production";
  /**
   * Browser origins allowed to call the server (exact `scheme://host[:port]`), besides the server's own origin: the
   * known MCP hosts' (config/origins.ts, or HOST_ORIGINS) and ALLOWED_ORIGINS.
   */
  allowedOrigins: string[];
  /** Host header values accepted; loopback names are always accepted in development. */
  allowedHosts: string[];
  /** Which requests get an access log line: every one, only failures (status >= 400), or none. */
  accessLog: "all" | "errors" | "off";
  /** Raw signing keys, current first (from the STATE_KEYS secret). */
  keys: { kid: string; bytes: Uint8Array }[];
  /** True when no STATE_KEYS is set and development mode supplied the built-in, publicly known key. */
  developmentKey: boolean;
  /** OAuth 2.1 resource server settings (an external issuer, AUTH_ISSUER); `undefined` otherwise. */
  auth?: AuthSettings;
  /**
   * The built-in OAuth authorization server with third-party login (AUTH_LOGIN); `undefined` otherwise. With
   * neither `auth` nor `authServer` authorization is off and every caller is anonymous.
   */
  authServer?: AuthServerSettings;
}

export interface AuthSettings {
  /** The authorization server that issues tokens for this server (`iss`). Setting it turns authorization on. */
  issuer: string;
  /** The audience tokens must name: this server's canonical URL (or an issuer's application tag). Default: `<origin>/mcp`. */
  audience?: string;
  /** Where the issuer publishes its signing keys. Default: `<issuer>/.well-known/jwks.json`. */
  jwksUrl: string;
  /** Signing keys given inline (a JWKS document), instead of fetching them. */
  jwks?: { keys: JsonWebKey[] };
  /** JWS algorithms accepted; asymmetric only. */
  algorithms: string[];
}

/** The built-in authorization server: who signs people in upstream, and the secret its cookies are keyed with. */
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
  /** Signs the cookie that remembers approved clients, and keys the opaque user ids (32 characters or more). */
  consentSecret: string;
  /** The machine clients (AUTH_MACHINE_CLIENTS) that may use the client credentials grant; none by default. */
  machineClients: MachineClient[];
}

/**
 * The development-only signing key. It is public (it is in this file), so it is refused in production mode:
 * there, a missing STATE_KEYS makes the configuration invalid and /mcp answers 503.
 */
const DEVELOPMENT_STATE_KEYS = "dev:ZGV2ZWxvcG1lbnQtb25seSBrZXksIG5ldmVyIHVzZSBpbiBwcm9kdWN0aW9uIQ";

/** The development-only consent-cookie key: public, so refused in production like the state key. */
const DEVELOPMENT_CONSENT_SECRET = "development-only consent secret, never use in production";

export type SettingsResult = { ok: true; settings: Settings } | { ok: false; problems: string[] };

export function parseSettings(vars: Record<string, unknown>): SettingsResult {
  const problems: string[] = [];
  const read = new VarReader(vars, problems);
  const mode = read.oneOf("MCP_ENV", ["development", "production"], "production");
  const settings: Settings = {
    mode,
    allowedOrigins: readAllowedOrigins(read),
    allowedHosts: read.list("ALLOWED_HOSTS").map((host) => host.toLowerCase()),
    accessLog: read.oneOf("ACCESS_LOG", ["all", "errors", "off"], "errors"),
    ...readKeys(read, mode),
    auth: readAuthSettings(read, mode),
    authServer: readAuthServerSettings(read, mode),
  };
  // Why: two sources of truth for who may call would leave one of them silently ignored.
  if (settings.auth && settings.authServer) problems.push("AUTH_ISSUER and AUTH_LOGIN cannot both be set");
  refuseMachineClientsOnDevelopmentKey(settings, problems);
  refuseIgnoredAuthSettings(read);
  if (mode === "production") refuseHostDerivedAudience(settings, problems);
  refuseRetired(read);
  return problems.length ? { ok: false, problems } : { ok: true, settings };
}

/**
 * The browser origins allowed besides the server's own: the known MCP hosts' (HOST_ORIGINS replaces the built-in
 * list, `none` empties it) and the app's own (ALLOWED_ORIGINS). An entry that is not exactly an origin is a problem,
 * named by its setting and position (a path or userinfo would never match a browser's `Origin`).
 */
function readAllowedOrigins(read: VarReader): string[] {
  return [...new Set([...hostOrigins(read), ...originsIn(read, "ALLOWED_ORIGINS", read.list("ALLOWED_ORIGINS"))])];
}

function hostOrigins(read: VarReader): readonly string[] {
  if (!read.isSet("HOST_ORIGINS")) return KNOWN_HOST_ORIGINS;
  if (read.string("HOST_ORIGINS") === NO_HOST_ORIGINS) return [];
  return originsIn(read, "HOST_ORIGINS", read.list("HOST_ORIGINS"));
}

/**
 * The origins `entries` (setting `name`'s) name; each entry that is not one is a problem, by position. A pattern is
 * named by its text as well (quoted, cut to 100 characters; an origin is no secret), so the operator sees which one
 * to write out.
 */
function originsIn(read: VarReader, name: string, entries: string[]): string[] {
  return entries.flatMap((entry, index) => {
    if (isOriginPattern(entry)) {
      const quoted = JSON.stringify(truncate(entry, MAX_NAMED_ENTRY));
      read.problems.push(
        `${name} entry ${index + 1} ${quoted} is a pattern, and origins are compared exactly: list each origin, scheme://host[:port]`,
      );
      return [];
    }
    const origin = originOf(entry);
    if (origin === undefined) read.problems.push(`${name} entry ${index + 1} is not an origin: write scheme://host[:port], nothing more`);
    return origin === undefined ? [] : [origin];
  });
}

/** The longest text of a setting's entry a problem quotes. */
const MAX_NAMED_ENTRY = 100;

/**
 * Settings earlier releases read, and the `createMcpWorker` option that took each one's place. Why a problem, not
 * silence: a deployment that still sets one would otherwise run with a limit it did not choose.
 */
const RETIRED: Record<string, string> = {
  MAX_BODY_BYTES: "limits.request.maxBodyBytes",
  MAX_JSON_DEPTH: "limits.request.maxJsonDepth",
  MAX_JSON_MEMBERS: "limits.request.maxJsonMembers",
  MAX_HEADER_VALUE_LENGTH: "limits.request.maxHeaderValueLength",
  MAX_BATCH_MESSAGES: "limits.request.maxBatchMessages",
  LIST_TTL_MS: "limits.lists.ttlMs",
  STATE_TTL_SECONDS: "limits.state.ttlMs",
  STATE_MAX_BYTES: "limits.state.maxBytes",
  LISTEN_KEEPALIVE_MS: "limits.listen.keepAliveMs",
  LISTEN_MAX_LIFETIME_MS: "limits.listen.maxLifetimeMs",
  LISTEN_SHARD_CAPACITY: "limits.listen.shardCapacity",
  LISTEN_MAX_SHARDS: "limits.listen.maxShards",
  LISTEN_MAX_PER_CALLER: "limits.listen.maxPerCaller",
  LISTEN_MAX_PER_PRINCIPAL: "limits.listen.maxPerCaller",
  LISTEN_MAX_PER_HUB: "limits.listen.shardCapacity",
  SESSION_IDLE_SECONDS: "limits.sessions.idleMs",
  SESSION_LIFETIME_SECONDS: "limits.sessions.lifetimeMs",
  SESSION_INPUT_TIMEOUT_SECONDS: "limits.sessions.inputTimeoutMs",
  TASK_INPUT_TIMEOUT_SECONDS: "limits.tasks.inputTimeoutMs",
  RATE_LIMIT_PERIOD_SECONDS: "limits.rateLimit.periodMs",
  AUTH_ACCESS_TOKEN_SECONDS: "limits.oauth.accessTokenMs",
  AUTH_REFRESH_TOKEN_SECONDS: "limits.oauth.refreshTokenMs",
  AUTH_CLIENT_TTL_SECONDS: "limits.oauth.clientMs",
  LEGACY_CLIENTS: "legacyClients",
  AUTH_SCOPE_HIERARCHY: "scopeHierarchy",
  AUTH_UPSTREAM_TOKEN: "upstreamToken",
};

function refuseRetired(read: VarReader): void {
  for (const [name, option] of Object.entries(RETIRED)) {
    if (read.isSet(name)) read.problems.push(`${name} is no longer read: set the createMcpWorker option ${option} instead`);
  }
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
  "AUTH_MACHINE_CLIENTS",
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
}

/**
 * Why: the server names itself (the audience tokens must carry, the resource in its metadata, the URLs in its
 * challenges) by the origin of the request unless told otherwise, and the request's Host header is the caller's
 * choice. In production, where no loopback rule narrows the Host, the audience must be pinned by configuration:
 * otherwise a token the same issuer minted for another service is accepted once the request names that service's
 * Host. Development accepts loopback hosts only (`checkHost`), so it needs neither setting.
 */
function refuseHostDerivedAudience(settings: Settings, problems: string[]): void {
  const hostsPinned = settings.allowedHosts.length > 0;
  if (settings.auth && settings.auth.audience === undefined && !hostsPinned) {
    problems.push("AUTH_ISSUER needs AUTH_AUDIENCE or ALLOWED_HOSTS in production, so the token audience does not follow the Host header");
  }
  if (settings.authServer && !hostsPinned) {
    problems.push("AUTH_LOGIN needs ALLOWED_HOSTS in production, so the token audience and OAuth metadata do not follow the Host header");
  }
}

/**
 * Why: a machine client's access token is signed with STATE_KEYS (oauth/machine-token.ts). The development key is
 * published in this file, so with it anyone could sign a token for any declared machine client, with its scopes; a
 * session's or a cursor's forgery in development harms no one, a machine token reaches the tools.
 */
function refuseMachineClientsOnDevelopmentKey(settings: Settings, problems: string[]): void {
  if (settings.developmentKey && (settings.authServer?.machineClients.length ?? 0) > 0) {
    problems.push("AUTH_MACHINE_CLIENTS needs STATE_KEYS: machine tokens signed with the public development key could be forged by anyone");
  }
}

function readKeys(read: VarReader, mode: Settings["mode"]): Pick<Settings, "keys" | "developmentKey"> {
  const secret = read.string("STATE_KEYS");
  // Why: production must never run on the published development key; it fails closed instead.
  if (secret === undefined && mode === "production") read.problems.push("STATE_KEYS is not set");
  const { keys, problems } = parseKeySpec(secret ?? DEVELOPMENT_STATE_KEYS);
  read.problems.push(...problems);
  return { keys, developmentKey: secret === undefined };
}

const ASYMMETRIC = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];

function readAuthSettings(read: VarReader, mode: Settings["mode"]): AuthSettings | undefined {
  const issuer = read.string("AUTH_ISSUER");
  if (issuer === undefined) return undefined;
  const url = (name: string, value: string | undefined) => httpsUrl(read, name, value, mode);
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
  };
}

/** An https URL (http on loopback in development, for local testing), else a problem naming the setting. */
function httpsUrl(read: VarReader, name: string, value: string | undefined, mode: Settings["mode"]): string | undefined {
  if (value === undefined) return undefined;
  // Why https only: keys, tokens and discovery documents fetched over plain HTTP could be swapped by anyone on the
  // path. Why loopback http in development only: it is for an issuer run on this machine while testing; a production
  // Worker cannot reach one, so there it is a mistake (a local value copied into a deployment), named as such.
  const parsed = URL.canParse(value) ? new URL(value) : undefined;
  const loopbackHttp = parsed?.protocol === "http:" && ["localhost", "127.0.0.1"].includes(parsed.hostname);
  if (!parsed || (parsed.protocol !== "https:" && !(loopbackHttp && mode === "development"))) {
    const hint = loopbackHttp ? " (http on localhost or 127.0.0.1 only with MCP_ENV=development)" : "";
    read.problems.push(`${name} must be an https URL${hint}`);
  }
  return value;
}

/** Upstream scopes asked by default: enough to identify the person, nothing more. */
const DEFAULT_LOGIN_SCOPES = { github: ["read:user"], oidc: ["openid", "profile", "email"] };

function readAuthServerSettings(read: VarReader, mode: Settings["mode"]): AuthServerSettings | undefined {
  const login = read.string("AUTH_LOGIN");
  if (login === undefined) return undefined;
  if (login !== "github" && login !== "oidc") {
    read.problems.push("AUTH_LOGIN must be one of github, oidc");
    return undefined;
  }
  // Why each read is spelled out: the documentation check finds every setting by its `read.<kind>("NAME")` call.
  const required = (name: string, value: string | undefined) => {
    if (value === undefined) read.problems.push(`${name} is not set`);
    return value ?? "";
  };
  const issuer =
    login === "oidc"
      ? httpsUrl(read, "AUTH_LOGIN_ISSUER", required("AUTH_LOGIN_ISSUER", read.string("AUTH_LOGIN_ISSUER")), mode)
      : undefined;
  // Why a problem rather than a 500 at the first login, or a fallback to KV: the provider keeps every client and
  // grant in these objects, and KV could not keep a code single use or a refresh rotation whole (oauth/state.ts).
  if (!read.hasBinding("OAUTH_STATE")) read.problems.push("OAUTH_STATE (a Durable Object binding, class OAuthState) is missing");
  const consentSecret = read.string("AUTH_CONSENT_SECRET");
  // Why: the remembered-approval cookie is only as strong as its key; a published or short one is forgeable.
  if (consentSecret === undefined && mode === "production") read.problems.push("AUTH_CONSENT_SECRET is not set");
  if (consentSecret !== undefined && consentSecret.length < 32) read.problems.push("AUTH_CONSENT_SECRET must be 32 characters or more");
  const scopes = read.list("AUTH_LOGIN_SCOPES");
  const machineClients = read.isSet("AUTH_MACHINE_CLIENTS")
    ? parseMachineClients(read.raw("AUTH_MACHINE_CLIENTS"), read.problems, (name, url) => httpsUrl(read, name, url, mode))
    : [];
  return {
    login,
    clientId: required("AUTH_LOGIN_CLIENT_ID", read.string("AUTH_LOGIN_CLIENT_ID")),
    clientSecret: required("AUTH_LOGIN_CLIENT_SECRET", read.string("AUTH_LOGIN_CLIENT_SECRET")),
    ...(issuer !== undefined && { issuer }),
    scopes: scopes.length ? scopes : DEFAULT_LOGIN_SCOPES[login],
    consentSecret: consentSecret ?? DEVELOPMENT_CONSENT_SECRET,
    machineClients,
  };
}

/** Whether a setting is given: any value but undefined, null and the empty string (presence only, never its value). */
export function isSettingGiven(vars: Record<string, unknown>, name: string): boolean {
  const value = vars[name];
  return value !== undefined && value !== null && value !== "";
}

/** Reads string vars with defaults, recording a problem (by name, never by value) for each malformed one. */
class VarReader {
  constructor(
    private readonly vars: Record<string, unknown>,
    readonly problems: string[],
  ) {}

  /**
   * Whether a setting is given (a non-empty value of any type): presence only, never its value. A setting present
   * but blank is not given, and is a problem (`isBlank`).
   */
  isSet(name: string): boolean {
    return !this.isBlank(name) && isSettingGiven(this.vars, name);
  }

  /**
   * Whether a setting is present with an empty (or all-space) value, which records a problem naming it, once.
   * Why: `AUTH_ISSUER = ""` read as unset ran the server open; a blank setting is most likely a secret or a var
   * that was meant to be filled in, so it fails closed instead of meaning the default.
   */
  private isBlank(name: string): boolean {
    const value = this.vars[name];
    if (typeof value !== "string" || value.trim() !== "") return false;
    const problem = `${name} is set but empty: give it a value, or remove it to leave it unset`;
    if (!this.problems.includes(problem)) this.problems.push(problem);
    return true;
  }

  /** Whether a binding (not a setting) is present: presence only, never its value. */
  hasBinding(name: string): boolean {
    return this.vars[name] !== undefined && this.vars[name] !== null;
  }

  string(name: string): string | undefined {
    const value = this.vars[name];
    if (value === undefined || value === null || this.isBlank(name)) return undefined;
    if (typeof value !== "string") {
      this.problems.push(`${name} must be a string`);
      return undefined;
    }
    return value.trim();
  }

  /** The value as given, of any type: for a JSON setting that wrangler.toml may give as a string or as JSON itself. */
  raw(name: string): unknown {
    return this.isSet(name) ? this.vars[name] : undefined;
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
