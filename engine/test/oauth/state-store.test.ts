/**
 * The store the provider is given as OAUTH_KV (src/oauth/state-store.ts) and the objects behind it
 * (src/oauth/state.ts), called directly: the KV calls the provider makes, answered as KV answers them; where each
 * key lives; what is refused; expiry; and the turn a token request takes on its grant.
 */

import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { authorizationServer, createMcpWorker } from "../../src";
import { OAuthState, TOKEN_REQUEST_TURN_MS } from "../../src/oauth/state";
import { objectNameOf, stateStore } from "../../src/oauth/state-store";

const store = () => stateStore(env.OAUTH_STATE);
const object = (name: string) => env.OAUTH_STATE.get(env.OAUTH_STATE.idFromName(name));
/** The keys an object holds, read from inside it. */
const keysIn = (name: string) =>
  runInDurableObject(object(name), (_instance, state) =>
    state.storage.sql
      .exec<{ key: string }>("SELECT key FROM entries ORDER BY key")
      .toArray()
      .map((row) => row.key),
  );

describe("the provider's store", () => {
  it("answers get, put, delete and list as KV does: text and JSON, metadata and expiration listed, pages by cursor", async () => {
    const kv = store();
    const expiration = Math.floor(Date.now() / 1000) + 3_600;
    await kv.put("grant:alice:g1", JSON.stringify({ id: "g1" }), { expiration, metadata: { clientId: "c1" } });
    await kv.put("grant:alice:g2", JSON.stringify({ id: "g2" }), { expirationTtl: 600 });
    await kv.put("grant:alice:g3", JSON.stringify({ id: "g3" }));
    expect(await kv.get("grant:alice:g1", { type: "json" })).toEqual({ id: "g1" });
    expect(await kv.get("grant:alice:g1")).toBe('{"id":"g1"}');
    expect(await kv.get("grant:alice:none", { type: "json" })).toBeNull();
    const first = await kv.list({ prefix: "grant:alice:", limit: 2 });
    expect(first).toMatchObject({
      list_complete: false,
      keys: [{ name: "grant:alice:g1", expiration, metadata: { clientId: "c1" } }, { name: "grant:alice:g2" }],
    });
    expect(first.keys[1]!.expiration).toBeGreaterThan(Date.now() / 1000 + 590);
    const rest = await kv.list({ prefix: "grant:alice:", cursor: (first as { cursor: string }).cursor });
    expect(rest).toMatchObject({ list_complete: true, keys: [{ name: "grant:alice:g3" }] });
    expect(rest.keys[0]).not.toHaveProperty("expiration");
    await kv.delete("grant:alice:g2");
    expect((await kv.list({ prefix: "grant:alice:" })).keys.map((key) => key.name)).toEqual(["grant:alice:g1", "grant:alice:g3"]);
  });

  it("keeps a person's grants and tokens in their own object, and every other key in an object of its own", async () => {
    const kv = store();
    await kv.put("grant:bob:g1", "{}");
    await kv.put("token:bob:g1:t1", "{}");
    await kv.put("client:c-bob", "{}");
    await kv.put("transaction:abc", "sealed");
    expect(objectNameOf("token:bob:g1:t1")).toBe("user:bob");
    expect(await keysIn("user:bob")).toEqual(["grant:bob:g1", "token:bob:g1:t1"]);
    expect(await keysIn("key:client:c-bob")).toEqual(["client:c-bob"]);
    expect(await keysIn("key:transaction:abc")).toEqual(["transaction:abc"]);
    // A grant's tokens are listed from the person's object, as the provider's revokeGrant lists them.
    expect((await kv.list({ prefix: "token:bob:g1:" })).keys.map((key) => key.name)).toEqual(["token:bob:g1:t1"]);
  });

  it("refuses a list that spans people, a read as another type, and a value that is not text", async () => {
    const kv = store();
    for (const prefix of ["grant:", "token:", "client:", ""]) await expect(kv.list({ prefix })).rejects.toThrow("spans objects");
    await expect(kv.get("client:x", { type: "arrayBuffer" } as never)).rejects.toThrow("get as arrayBuffer is not supported");
    await expect(kv.put("client:x", new Uint8Array(1) as never)).rejects.toThrow("only string values");
  });

  it("answers a record past its expiry as absent, and its alarm deletes it", async () => {
    const kv = store();
    await kv.put("grant:carol:g1", "{}", { expiration: Math.floor(Date.now() / 1000) + 60 });
    await kv.put("grant:carol:g2", "{}");
    await runInDurableObject(object("user:carol"), (_instance, state) => {
      state.storage.sql.exec("UPDATE entries SET expires_at = ? WHERE key = 'grant:carol:g1'", Date.now() - 1);
    });
    expect(await kv.get("grant:carol:g1")).toBeNull();
    expect((await kv.list({ prefix: "grant:carol:" })).keys.map((key) => key.name)).toEqual(["grant:carol:g2"]);
    await runDurableObjectAlarm(object("user:carol"));
    expect(await keysIn("user:carol")).toEqual(["grant:carol:g2"]);
  });
});

describe("a token request's turn on its grant", () => {
  const request = { userId: "dave", grantId: "g1", recordMs: 60_000 };

  it("is the grant's until it ends: the next one waits for the end, then takes it", async () => {
    const person = object("user:dave");
    const first = await person.beginTokenRequest(request);
    expect(first.kind).toBe("proceed");
    let secondDone = false;
    const second = person.beginTokenRequest(request).then((turn) => {
      secondDone = true;
      return turn;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(secondDone).toBe(false);
    await person.endTokenRequest("g1", (first as { holder: string }).holder);
    expect((await second).kind).toBe("proceed");
  });

  it(`goes to the next request once a holder that never ends it runs out (${TOKEN_REQUEST_TURN_MS} ms)`, async () => {
    const person = object("user:erin");
    await person.beginTokenRequest({ ...request, userId: "erin" });
    // The holder's Worker failed: nobody ends the turn. Its end is moved near, as if 30 s had passed. (Measured from
    // before the move: however long the move itself takes, the next request cannot proceed before `started + 150`.)
    const started = Date.now();
    await runInDurableObject(person, (_instance, state) => {
      state.storage.sql.exec("UPDATE turns SET until = ?", started + 150);
    });
    expect((await person.beginTokenRequest({ ...request, userId: "erin" })).kind).toBe("proceed");
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });
});

describe("the OAuthState class createMcpWorker hands back", () => {
  it("is the authorization server's with the authorizationServer option, and one with none of its methods without it", () => {
    const withServer = createMcpWorker({ name: "with", version: "1.0.0", authorizationServer });
    expect(withServer.OAuthState).toBe(OAuthState);
    const without = createMcpWorker({ name: "without", version: "1.0.0" });
    expect(without.OAuthState).not.toBe(OAuthState);
    expect(Object.getOwnPropertyNames(without.OAuthState.prototype)).toEqual(["constructor"]);
  });
});
