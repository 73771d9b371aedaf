/**
 * @module worker/load-config
 * The configuration a Worker serves with: its settings and options (config/config.ts), and the one problem only
 * the Worker can see, authorization-server mode asked for (AUTH_LOGIN) by a Worker built without the
 * `authorizationServer` option, whose code it therefore does not carry.
 */
import { type ConfigResult, parseConfig } from "../config/config";
import type { ResolvedOptions } from "../config/options";
import { isSettingGiven } from "../config/settings";

/** The problem named when AUTH_LOGIN is set without the option: what to add to the entry module, word for word. */
export const MISSING_AUTHORIZATION_SERVER =
  'AUTH_LOGIN is set but this Worker does not include the built-in authorization server: in the Worker entry module, add authorizationServer to the import from "mcp-workers-engine" and pass it to createMcpWorker({ ..., authorizationServer })';

/**
 * Parses the settings with the options, and adds the problem above when AUTH_LOGIN is set (even malformed: it
 * still says which mode was meant) and `hasAuthorizationServer` is false.
 */
export function loadConfig(vars: Record<string, unknown>, options: ResolvedOptions, hasAuthorizationServer: boolean): ConfigResult {
  const loaded = parseConfig(vars, options);
  // Why invalid rather than served: without the provider no OAuth endpoint exists and no grant can be verified, so
  // every client would fail to sign in with no word why (and no other mode may stand in: that would run open).
  // Invalid, /mcp and /health answer 503, and the page at / and the startup line name the fix.
  if (hasAuthorizationServer || !isSettingGiven(vars, "AUTH_LOGIN")) return loaded;
  return { ok: false, problems: [...(loaded.ok ? [] : loaded.problems), MISSING_AUTHORIZATION_SERVER] };
}
