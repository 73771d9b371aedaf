/**
 * How many grants one person holds (limits.oauth.grantsPerPerson, 20 by default), through the real Worker after
 * whole sign-ins (test/helpers/sign-in.ts): each client a person signs in to is a grant in their object
 * (src/oauth/state.ts), and a sign-in past the limit revokes the grant whose tokens were issued least recently, with
 * every token it issued, so the object stops growing however many clients the person ever used.
 */

import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { gatedState } from "../helpers/gated-state";
import { laggingKv } from "../helpers/lagging-kv";
import { newPerson, signInWorker, type TokenAnswer } from "../helpers/sign-in";

const server = (grantsPerPerson?: number, state?: ReturnType<typeof gatedState>) =>
  signInWorker({
    kv: laggingKv(0),
    stepPauseMs: 0,
    ...(grantsPerPerson !== undefined && { limits: { oauth: { grantsPerPerson } } }),
    ...(state && { state: state.namespace }),
  });

const personObject = (token: string) => env.OAUTH_STATE.get(env.OAUTH_STATE.idFromName(`user:${token.split(":")[0]}`));

/** How many grants the person's object holds. */
const storedGrants = (token: string) =>
  runInDurableObject(
    personObject(token),
    (_instance, state) => state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM entries WHERE key LIKE 'grant:%'").one().n,
  );

type Worker = ReturnType<typeof server>;

/** Whether a client's tokens still work: its access token on /mcp, and its refresh token (which it then rotates). */
async function works(worker: Worker, client: { clientId: string; tokens: TokenAnswer }): Promise<boolean> {
  const access = await worker.mcpStatus(client.tokens.access_token!);
  const refreshed = await worker.refresh(client.clientId, client.tokens.refresh_token!);
  expect(access === 200, "the access token and the refresh token agree").toBe(refreshed.status === 200);
  if (refreshed.status === 200) client.tokens = refreshed.body;
  return access === 200;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a person's grants", () => {
  it("are at most 20 by default: the 21st client's sign-in revokes the first client's grant, and the others keep working", async () => {
    const worker = server();
    const person = newPerson();
    const clients = [];
    for (let client = 0; client < 21; client++) clients.push(await worker.signIn(person));
    expect(await storedGrants(clients[0]!.tokens.access_token!)).toBe(20);
    expect(await works(worker, clients[0]!)).toBe(false);
    expect(await works(worker, clients[1]!)).toBe(true);
    expect(await works(worker, clients[20]!)).toBe(true);
  });

  it("are at most limits.oauth.grantsPerPerson: past it, each sign-in revokes the grant of the person's earliest other sign-in", async () => {
    const worker = server(3);
    const person = newPerson();
    const [first, second, third, fourth] = [
      await worker.signIn(person),
      await worker.signIn(person),
      await worker.signIn(person),
      await worker.signIn(person),
    ];
    expect(await storedGrants(first!.tokens.access_token!)).toBe(3);
    expect(await works(worker, first!)).toBe(false);
    for (const kept of [second!, third!, fourth!]) expect(await works(worker, kept)).toBe(true);
    const fifth = await worker.signIn(person);
    expect(await works(worker, fifth)).toBe(true);
    expect(await storedGrants(first!.tokens.access_token!)).toBe(3);
  });

  it("lose the grant whose tokens were issued least recently: a grant refreshed since is kept, however early its sign-in", async () => {
    const worker = server(3);
    const person = newPerson();
    const [first, second, third] = [await worker.signIn(person), await worker.signIn(person), await worker.signIn(person)];
    // The first client refreshes: its grant is the one most recently used.
    expect(await works(worker, first!)).toBe(true);
    const fourth = await worker.signIn(person);
    expect(await works(worker, second!)).toBe(false);
    for (const kept of [first!, third!, fourth]) expect(await works(worker, kept)).toBe(true);
  });

  it("are counted per person: another person's sign-ins revoke none of them", async () => {
    const worker = server(2);
    const person = newPerson();
    const [first, second] = [await worker.signIn(person), await worker.signIn(person)];
    await worker.signIn();
    await worker.signIn();
    await worker.signIn();
    expect(await works(worker, first!)).toBe(true);
    expect(await works(worker, second!)).toBe(true);
  });

  it("never lose a grant in the middle of its refresh: the revocation waits for the refresh, then revokes what it issued too", async () => {
    const state = gatedState(env.OAUTH_STATE);
    const worker = server(1, state);
    const person = newPerson();
    const first = await worker.signIn(person);
    // The first client's refresh is held as it writes its rotation (the grant record, then its new access token).
    const rotation = state.holdNextWrite("grant:");
    const refreshing = worker.refresh(first.clientId, first.tokens.refresh_token!);
    await rotation.caught;
    const signingIn = worker.signIn(person);
    // Let the refresh go on once the sign-in has answered, or asks the person's object to revoke the grant beyond the
    // limit: either way the first grant must end up revoked, with the tokens of its refresh.
    await Promise.race([signingIn, state.nextCall("revokeGrantsBeyond")]);
    rotation.release();
    const [refreshed, second] = await Promise.all([refreshing, signingIn]);
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(await works(worker, { clientId: first.clientId, tokens: refreshed.body })).toBe(false);
    expect(await works(worker, second)).toBe(true);
    expect(await storedGrants(first.tokens.access_token!)).toBe(1);
  });

  it("refuse a limit out of its range (1 to 1,000) when the Worker starts, naming it", () => {
    for (const grantsPerPerson of [0, 1_001, 2.5]) {
      expect(() => server(grantsPerPerson), String(grantsPerPerson)).toThrow(
        "limits.oauth.grantsPerPerson must be an integer from 1 to 1000",
      );
    }
  });
});
