/**
 * The built-in authorization server is an option the entry module imports (`authorizationServer`), so a Worker
 * without it uploads none of its code (test/repo/bundle.test.ts). A Worker that sets AUTH_LOGIN without it never
 * runs open nor half-served: its configuration is invalid, as a missing OAUTH_STATE would make it, and every answer
 * names the fix. The same Worker with the option serves the mode (authorization-server.test.ts and the rest of
 * this folder).
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { authorizationServer, createMcpWorker } from "../../src";
import { resolveOptions } from "../../src/config/options";
import { loadConfig, MISSING_AUTHORIZATION_SERVER } from "../../src/worker/load-config";
import { jsonPost, LOGIN, ORIGIN, REDIRECT_URI, storedClients } from "../helpers/auth-server";
import { counted, FIXTURE, runs } from "../helpers/fixture";
import { rpc } from "../helpers/rpc";
import { withLogs } from "../helpers/wire";

const loginEnv = { ...env, ...LOGIN, OAUTH_RATE_LIMITER: undefined } as unknown as Env;
/** The fixture with a tool that counts its runs: a refused request must leave the count unchanged. */
const withoutOption = createMcpWorker({ ...FIXTURE, tools: [...FIXTURE.tools, counted] });
const serve = (request: Request) => withoutOption.fetch(request, loginEnv, createExecutionContext());
const { send, fetch } = rpc(serve);

describe("AUTH_LOGIN in a Worker built without the authorizationServer option", () => {
  it("answers 503 on /mcp and runs no tool, rather than serving it open or without a way to sign in", async () => {
    const before = runs.counted;
    const { value: response, entries } = await withLogs(() => send("tools/call", { name: "counted", arguments: {} }));
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ error: { message: "Service unavailable: server configuration is invalid" } });
    expect(runs.counted).toBe(before);
    // The log line of every refused request names the fix, as it names any other configuration problem.
    expect(entries).toContainEqual(expect.objectContaining({ message: "configuration invalid", problems: [MISSING_AUTHORIZATION_SERVER] }));
  });

  it("says on /health that the configuration is invalid, and on the page at / what to add to src/index.ts", async () => {
    const health = await fetch(`${ORIGIN}/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ status: "error", config: "invalid" });
    const page = await fetch(`${ORIGIN}/`);
    expect(page.status).toBe(503);
    const html = await page.text();
    expect(html).toContain("AUTH_LOGIN is set but this Worker does not include the built-in authorization server");
    expect(html).toContain("in the Worker entry module, add authorizationServer to the import from &quot;mcp-workers-engine&quot;");
  });

  it("serves none of the OAuth endpoints and stores no client", async () => {
    const before = await storedClients();
    const registration = { client_name: "Client", redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: "none" };
    expect((await fetch(`${ORIGIN}/register`, jsonPost(registration))).status).toBe(404);
    expect(await storedClients()).toBe(before);
    for (const path of ["/.well-known/oauth-authorization-server", "/authorize", "/token", "/oauth/callback"]) {
      expect((await fetch(`${ORIGIN}${path}`)).status, path).toBe(404);
    }
    // The protected resource metadata would name an authorization server that is not there: refused like /mcp, and
    // logged like it.
    const { value: metadata, entries } = await withLogs(() => fetch(`${ORIGIN}/.well-known/oauth-protected-resource/mcp`));
    expect(metadata.status).toBe(503);
    expect(entries).toEqual([{ level: "error", message: "configuration invalid", problems: [MISSING_AUTHORIZATION_SERVER] }]);
  });

  it("purges nothing on the scheduled run and does not throw", async () => {
    await env.OAUTH_KV.put("grant:oidc-e:expired", JSON.stringify({ id: "expired", userId: "oidc-e", clientId: "x", expiresAt: 1 }));
    await expect(withoutOption.scheduled({} as ScheduledController, loginEnv)).resolves.toBeUndefined();
    expect(await env.OAUTH_KV.get("grant:oidc-e:expired")).not.toBeNull();
    await env.OAUTH_KV.delete("grant:oidc-e:expired");
  });

  it("names the missing option beside the other problems, even with AUTH_LOGIN malformed, and not without AUTH_LOGIN", () => {
    const problems = (vars: Record<string, unknown>, hasAuthorizationServer: boolean) => {
      const loaded = loadConfig({ ...env, ...vars }, resolveOptions(), hasAuthorizationServer);
      return loaded.ok ? [] : loaded.problems;
    };
    expect(problems(LOGIN, false)).toEqual([MISSING_AUTHORIZATION_SERVER]);
    expect(problems({ AUTH_LOGIN: "facebook" }, false)).toEqual(["AUTH_LOGIN must be one of github, oidc", MISSING_AUTHORIZATION_SERVER]);
    expect(problems({ AUTH_LOGIN: "facebook" }, true)).toEqual(["AUTH_LOGIN must be one of github, oidc"]);
    expect(problems(LOGIN, true)).toEqual([]);
    // An empty AUTH_LOGIN is a problem of its own (src/config/settings.ts): the server fails closed without the option mattering.
    expect(problems({ AUTH_LOGIN: "" }, false)).toEqual(["AUTH_LOGIN is set but empty: give it a value, or remove it to leave it unset"]);
  });
});

describe("the authorizationServer option outside authorization-server mode", () => {
  it("changes nothing: the default mode serves /mcp and no OAuth endpoint", async () => {
    const worker = createMcpWorker({ ...FIXTURE, authorizationServer });
    const target = rpc((request) => worker.fetch(request, env as unknown as Env, createExecutionContext()));
    expect((await target.send("tools/list")).status).toBe(200);
    expect((await target.fetch(`${ORIGIN}/.well-known/oauth-authorization-server`)).status).toBe(404);
  });
});
