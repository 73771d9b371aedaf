/**
 * The OAuth endpoints' rate limit (OAUTH_RATE_LIMITER) counts a caller by network, as /mcp does
 * (src/http/client-address.ts): an IPv6 client's other addresses are the same caller.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { authorizationServer, createMcpWorker } from "../../src";
import { FIXTURE } from "../helpers/fixture";
import { countingLimiter } from "../helpers/limiter";

const LOGIN = {
  AUTH_LOGIN: "oidc",
  AUTH_LOGIN_ISSUER: "https://login.example",
  AUTH_LOGIN_CLIENT_ID: "upstream-client",
  AUTH_LOGIN_CLIENT_SECRET: "upstream-secret",
};
/** A limiter that allows 3 requests per key, of this file's own (helpers/limiter.ts: no window that ends mid-test). */
const limited = { ...env, ...LOGIN, OAUTH_RATE_LIMITER: countingLimiter(3) } as unknown as Env;
const worker = createMcpWorker({ ...FIXTURE, authorizationServer });

function register(address: string) {
  return worker.fetch(
    new Request("http://localhost:8787/register", {
      method: "POST",
      headers: { "content-type": "application/json", "cf-connecting-ip": address },
      body: JSON.stringify({ client_name: "Flood", redirect_uris: ["http://127.0.0.1:9/cb"], token_endpoint_auth_method: "none" }),
    }),
    limited,
    createExecutionContext(),
  );
}

describe("the OAuth endpoints' rate limit", () => {
  it("counts an IPv6 client by its /64: once three addresses of one network registered, a fourth is refused with 429", async () => {
    const statuses = [];
    for (const address of ["2001:db8:16:1::1", "2001:db8:16:1::2", "2001:db8:16:1::3", "2001:db8:16:1:ffff::4"]) {
      statuses.push((await register(address)).status);
    }
    expect(statuses).toEqual([201, 201, 201, 429]);
    // Another /64 is another caller.
    expect((await register("2001:db8:16:2::1")).status).toBe(201);
  });

  it("counts an IPv4-mapped IPv6 address as the IPv4 address it maps", async () => {
    for (let attempt = 0; attempt < 3; attempt++) expect((await register("203.0.113.61")).status).toBe(201);
    expect((await register("::ffff:203.0.113.61")).status).toBe(429);
  });
});
