/**
 * Resource-server mode (AUTH_ISSUER) with tokens an issuer minted through the client credentials grant: each of the
 * shapes real issuers use (Auth0 machine-to-machine, Entra app-only, Cloudflare Access service tokens, RFC 9068's
 * `sub` = `client_id`) reaches tools as a client principal, on the same rules as a person's token (signature,
 * issuer, audience, expiry, per-tool scopes), and a person's token of the same issuer stays a person's.
 */
import { beforeAll, describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { defineTool, text } from "../../src";
import { adminOnly, FIXTURE } from "../helpers/fixture";
import { localIssuer } from "../helpers/issuer";
import { readMessage, testServer } from "../helpers/rpc";

/** Tells who called. */
const whoami = defineTool({
  name: "whoami",
  description: "Says who is calling.",
  input: z.strictObject({}),
  handler: (_args, ctx) => ({ content: [text(JSON.stringify(ctx.principal))] }),
});

let issuer: Awaited<ReturnType<typeof localIssuer>>;
let server: ReturnType<typeof testServer>;

beforeAll(async () => {
  issuer = await localIssuer();
  server = testServer({ ...FIXTURE, tools: [...FIXTURE.tools, adminOnly, whoami] }, issuer.vars);
});

const as = (jwt: string) => ({ headers: { authorization: `Bearer ${jwt}` } });
async function principalOf(claims: Record<string, unknown>) {
  const response = await server.send("tools/call", { name: "whoami", arguments: {} }, as(await issuer.token(claims)));
  expect(response.status).toBe(200);
  return JSON.parse(((await readMessage(response)).result as any).content[0].text);
}
const client = (id: string, scopes: string[]) => ({ id: `client-${id}`, scopes, authenticated: true, name: id, client: { id, name: id } });

describe("an external issuer's client credentials tokens", () => {
  it("reach tools as a client principal: Auth0 machine-to-machine (gty client-credentials, the client in azp)", async () => {
    const claims = { sub: "nightly-job@clients", azp: "nightly-job", gty: "client-credentials", scope: "notes:admin" };
    expect(await principalOf(claims)).toEqual(client("nightly-job", ["notes:admin"]));
  });

  it("reach tools as a client principal: Entra app-only (idtyp app), the application permissions in roles", async () => {
    const claims = {
      sub: "0d1b7a3e-service-principal",
      oid: "0d1b7a3e-service-principal",
      azp: "11111111-app",
      idtyp: "app",
      roles: ["notes:admin"],
    };
    expect(await principalOf(claims)).toEqual(client("11111111-app", ["notes:admin"]));
    const v1 = { sub: "0d1b7a3e-service-principal", appid: "22222222-app", idtyp: "app", roles: [] };
    expect(await principalOf(v1)).toEqual(client("22222222-app", []));
  });

  it("reach tools as a client principal: Cloudflare Access service tokens (an empty sub, the client in common_name)", async () => {
    const claims = { sub: "", type: "app", common_name: "a1b2c3.access" };
    expect(await principalOf(claims)).toEqual(client("a1b2c3.access", []));
  });

  it("reach tools as a client principal: RFC 9068 (sub is the client_id)", async () => {
    expect(await principalOf({ sub: "0oa-ci", client_id: "0oa-ci", scope: "notes:read" })).toEqual(client("0oa-ci", ["notes:read"]));
  });

  it("are held to per-tool scopes as people's are: a client without the scope is refused the tool (403)", async () => {
    const jwt = await issuer.token({ sub: "reader@clients", azp: "reader", gty: "client-credentials", scope: "notes:read" });
    const refused = await server.send("tools/call", { name: "admin_report", arguments: {} }, as(jwt));
    expect(refused.status).toBe(403);
    expect(refused.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
  });

  it("are held to the issuer, audience and expiry as people's are (401)", async () => {
    const machine = { sub: "job@clients", azp: "job", gty: "client-credentials" };
    for (const wrong of [
      { aud: "https://other.example/mcp" },
      { iss: "https://other-issuer.example" },
      { exp: Math.floor(Date.now() / 1000) - 120 },
    ]) {
      const response = await server.send("tools/call", { name: "whoami", arguments: {} }, as(await issuer.token({ ...machine, ...wrong })));
      expect(response.status, JSON.stringify(wrong)).toBe(401);
    }
  });

  it("leave a person's token a person's: an Access user token (type app, a sub), an Auth0 user token", async () => {
    expect(await principalOf({ sub: "7335d417-user", type: "app", email: "alice@example.com" })).toEqual({
      id: "7335d417-user",
      scopes: [],
      authenticated: true,
    });
    expect((await principalOf({ sub: "auth0|alice", azp: "spa-client" })).client).toBeUndefined();
    // A client_id claim that is not the subject: a person using that client.
    expect((await principalOf({ sub: "alice", client_id: "spa-client" })).client).toBeUndefined();
  });

  it("refuse a person's token whose sub starts with client- (401 invalid_token, saying why): it would be a machine client's principal", async () => {
    const response = await server.send("tools/call", { name: "whoami", arguments: {} }, as(await issuer.token({ sub: "client-ci" })));
    expect(response.status).toBe(401);
    const challenge = response.headers.get("www-authenticate") ?? "";
    expect(challenge).toContain('error="invalid_token"');
    expect(challenge).toContain("that prefix names machine clients here");
    // The machine itself still reaches tools as client-ci.
    expect((await principalOf({ sub: "ci@clients", azp: "ci", gty: "client-credentials" })).id).toBe("client-ci");
  });

  it("take an Access token with an email as a person's, never as a service token's, even with a common_name", async () => {
    // A person's token (an email) with no sub is refused as any token without a subject is, not taken as a service token.
    const claims = { sub: "", type: "app", common_name: "a1b2c3.access", email: "alice@example.com" };
    const response = await server.send("tools/call", { name: "whoami", arguments: {} }, as(await issuer.token(claims)));
    expect(response.status).toBe(401);
  });

  it("still need a subject unless they name their client instead: an empty sub alone is refused (401)", async () => {
    for (const claims of [{ sub: "" }, { sub: "", type: "app" }, { sub: "", type: "app", common_name: "" }]) {
      const response = await server.send("tools/call", { name: "whoami", arguments: {} }, as(await issuer.token(claims)));
      expect(response.status, JSON.stringify(claims)).toBe(401);
    }
  });
});
