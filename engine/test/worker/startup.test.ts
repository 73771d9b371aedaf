/**
 * The line a developer sees when `wrangler dev` starts (src/worker/startup.ts): which authorization mode is in effect,
 * or what is wrong, in development; nothing at all in production. Printed through `npm run dev` in
 * the template's test/e2e/local-settings.test.ts.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { resolveOptions } from "../../src/config/options";
import { loadConfig } from "../../src/worker/load-config";
import { startupLine as startupLineOf } from "../../src/worker/startup";
import { withLogs } from "../helpers/wire";

const development = { ...env, MCP_ENV: "development" };

/** The line of a Worker built with the default options, with or without the `authorizationServer` option. */
const startupLine = (vars: object, hasAuthorizationServer = true) =>
  startupLineOf(vars, (given) => loadConfig(given, resolveOptions(), hasAuthorizationServer));

describe("the startup line", () => {
  it("says in development that authorization is off, and how to turn it on, when neither mode is set", () => {
    expect(startupLine(development)).toEqual({
      level: "warn",
      message:
        "development mode: authorization off, every caller is anonymous and may use every tool (AUTH_ISSUER or AUTH_LOGIN turns it on)",
    });
  });

  it("names the issuer and the audience in resource-server mode, and the upstream login in authorization-server mode", () => {
    expect(startupLine({ ...development, AUTH_ISSUER: "https://issuer.example" })?.message).toBe(
      "development mode: authorization on, bearer tokens from AUTH_ISSUER https://issuer.example for <this origin>/mcp",
    );
    expect(startupLine({ ...development, AUTH_ISSUER: "https://issuer.example", AUTH_AUDIENCE: "app-tag" })?.message).toBe(
      "development mode: authorization on, bearer tokens from AUTH_ISSUER https://issuer.example for app-tag",
    );
    const login = { AUTH_LOGIN: "github", AUTH_LOGIN_CLIENT_ID: "id", AUTH_LOGIN_CLIENT_SECRET: "secret" };
    expect(startupLine({ ...development, ...login })).toEqual({
      level: "info",
      message: "development mode: authorization on, the built-in authorization server with sign-in through GitHub",
    });
  });

  it("says in development, for AUTH_LOGIN without the authorizationServer option, that /mcp answers 503 and what to add to src/index.ts", () => {
    const login = { AUTH_LOGIN: "github", AUTH_LOGIN_CLIENT_ID: "id", AUTH_LOGIN_CLIENT_SECRET: "secret" };
    expect(startupLine({ ...development, ...login }, false)).toEqual({
      level: "error",
      message:
        'development mode: configuration invalid, /mcp answers 503 until fixed: AUTH_LOGIN is set but this Worker does not include the built-in authorization server: in the Worker entry module, add authorizationServer to the import from "mcp-workers-engine" and pass it to createMcpWorker({ ..., authorizationServer })',
    });
    // The option plays no part in the other modes.
    expect(startupLine(development, false)?.level).toBe("warn");
  });

  it("names every configuration problem in development, a half-applied auth setting included, by name and never by value", () => {
    const line = startupLine({ ...development, AUTH_AUDIENCE: "secret-looking-value-123", MAX_BODY_BYTES: "lots" });
    expect(line).toEqual({
      level: "error",
      message:
        "development mode: configuration invalid, /mcp answers 503 until fixed: AUTH_AUDIENCE is set but AUTH_ISSUER is not: it would be ignored; MAX_BODY_BYTES is no longer read: set the createMcpWorker option limits.request.maxBodyBytes instead",
    });
    expect(line?.message).not.toContain("secret-looking-value-123");
  });

  it("is nothing in production, valid or not, and with a malformed MCP_ENV (which means production)", () => {
    for (const vars of [
      { MCP_ENV: "production" },
      { MCP_ENV: "production", STATE_KEYS: "" },
      { MCP_ENV: "staging" },
      { MCP_ENV: undefined },
    ]) {
      expect(startupLine({ ...env, ...vars }), JSON.stringify(vars)).toBeUndefined();
    }
  });

  it("describes the server made last while the modules are evaluated, once: an entry's own, not one a module it imports made", async () => {
    // A fresh copy of the module, as a Worker's isolate starts with (this file's own imports announced already).
    vi.resetModules();
    const { announceStartup } = await import("../../src/worker/startup");
    const { entries } = await withLogs(async () => {
      // The app module's server, made first (without the authorization server AUTH_LOGIN needs)...
      announceStartup(() => ({ ok: false, problems: ["the imported module's server"] }));
      // ...then the entry's own, with it.
      announceStartup((vars) => loadConfig(vars, resolveOptions(), true));
      await Promise.resolve();
      // A server made once the Worker runs (a test's) prints nothing more.
      announceStartup(() => ({ ok: false, problems: ["a later server"] }));
      await Promise.resolve();
    });
    expect(entries).toEqual([
      expect.objectContaining({ level: "warn", message: expect.stringContaining("development mode: authorization off") }),
    ]);
  });
});
