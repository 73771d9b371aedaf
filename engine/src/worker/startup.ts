/**
 * @module worker/startup
 * What a developer sees first. In development mode the Worker prints one line when its module is evaluated, which
 * `wrangler dev` shows before "Ready on": the authorization mode in effect, or the configuration's problems. Why:
 * an auth setting that never reached the Worker (or reached it without the setting it belongs to) must be visible
 * at once, not discovered when every tool turns out to be open to anyone. Production prints nothing here and parses
 * nothing at startup: its problems are logged per request, and `/health` reports them.
 */
import { env } from "cloudflare:workers";
import type { ConfigResult } from "../config/config";
import { log } from "../util/log";

/** How the Worker loads its configuration from the vars: the same function its requests are served with. */
export type ConfigLoader = (vars: Record<string, unknown>) => ConfigResult;

/** The loader of the server made last while the Worker's modules are evaluated: the one the entry module serves. */
let latest: ConfigLoader | undefined;

/**
 * Prints the startup line once per isolate (a test builds many servers in one), from the Worker's own `load`, once
 * its modules are evaluated. Why then, with the server made last: an entry module may build its own server from an
 * app module that built one too (`import { definition } from "./index"`, then `createMcpWorker({ ...definition,
 * authorizationServer })`). Imports are evaluated first, so the entry's own server is made last, and it is the one
 * whose configuration the line must describe (the first one, without the authorization server, would call AUTH_LOGIN
 * a problem). A microtask runs once the whole module graph is evaluated, before the Worker serves anything.
 */
export function announceStartup(load: ConfigLoader): void {
  // The first server schedules the line; a server made after it has run (a test's) changes nothing printed.
  if (latest === undefined) {
    queueMicrotask(() => {
      const line = startupLine(env, latest!);
      if (line) log(undefined, line.level, line.message);
    });
  }
  latest = load;
}

/**
 * The startup line for these settings: in development, their problems or the authorization mode in effect; in
 * production (or with MCP_ENV malformed, which means production) nothing, and nothing is parsed. `load` is the
 * Worker's loader, so the line names every problem its requests would meet (AUTH_LOGIN without the
 * `authorizationServer` option among them).
 */
export function startupLine(vars: object, load: ConfigLoader): { level: "info" | "warn" | "error"; message: string } | undefined {
  if ((vars as Record<string, unknown>).MCP_ENV !== "development") return undefined;
  const loaded = load(vars as Record<string, unknown>);
  if (!loaded.ok) {
    return {
      level: "error",
      message: `development mode: configuration invalid, /mcp answers 503 until fixed: ${loaded.problems.join("; ")}`,
    };
  }
  const { auth, authServer } = loaded.config;
  if (auth) {
    const audience = auth.audience ?? "<this origin>/mcp";
    return { level: "info", message: `development mode: authorization on, bearer tokens from AUTH_ISSUER ${auth.issuer} for ${audience}` };
  }
  if (authServer) {
    const upstream = authServer.login === "github" ? "GitHub" : `OpenID Connect (${authServer.issuer})`;
    return {
      level: "info",
      message: `development mode: authorization on, the built-in authorization server with sign-in through ${upstream}`,
    };
  }
  return {
    level: "warn",
    message:
      "development mode: authorization off, every caller is anonymous and may use every tool (AUTH_ISSUER or AUTH_LOGIN turns it on)",
  };
}
