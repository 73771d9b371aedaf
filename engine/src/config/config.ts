/**
 * @module config/config
 * The one configuration a request is served with: the deployment's settings (settings.ts, from the Worker's vars
 * and secrets) with the server's options (options.ts, from `createMcpWorker`). Built once per isolate for each
 * Worker and passed down with the request, never looked up again on the way.
 */
import type { Limits, RateLimitError, ResolvedOptions } from "./options";
import { resolveOptions } from "./options";
import type { ScopeHierarchy } from "./scopes";
import { parseSettings, type Settings } from "./settings";

export type { AuthServerSettings, AuthSettings } from "./settings";

export interface Config extends Settings {
  limits: Limits;
  /** Serve 2025-era clients (the initialize handshake) besides 2026-07-28 ones. */
  legacyClients: boolean;
  /** Which granted scopes imply which others (with authorization on). */
  scopeHierarchy: ScopeHierarchy;
  /** Authorization-server mode: keep the upstream access token in `ctx.principal.upstreamToken`. */
  upstreamToken: boolean;
  /** The JSON-RPC error of a request over the rate limit. */
  rateLimitError: RateLimitError;
}

export type ConfigResult = { ok: true; config: Config } | { ok: false; problems: string[] };

/** The configuration for these vars and options (the defaults when none are given). Pure: tests call it directly. */
export function parseConfig(vars: Record<string, unknown>, options: ResolvedOptions = resolveOptions()): ConfigResult {
  const parsed = parseSettings(vars);
  if (!parsed.ok) return parsed;
  return { ok: true, config: { ...parsed.settings, ...options } };
}
