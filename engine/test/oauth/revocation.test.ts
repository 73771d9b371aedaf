/**
 * Revocation at /token (RFC 7009) through the real Worker after a whole sign-in (test/helpers/sign-in.ts): once a
 * revocation of a refresh token has answered, nothing issued on its grant works, whatever token request raced it.
 * A revocation takes the grant's turn in its object (src/oauth/state.ts), as a code exchange and a refresh do
 * (src/oauth/token-endpoint.ts), so it comes wholly before or wholly after a refresh, never in the middle of one.
 * The race is run in one order every time (test/helpers/gated-state.ts), and then as it comes, many times.
 */

import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { gatedState } from "../helpers/gated-state";
import { laggingKv } from "../helpers/lagging-kv";
import { signInWorker } from "../helpers/sign-in";

const server = (state?: ReturnType<typeof gatedState>) =>
  signInWorker({ kv: laggingKv(0), stepPauseMs: 0, ...(state && { state: state.namespace }) });

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a revocation of a refresh token", () => {
  it("ends the grant: its access token and its refresh token stop working", async () => {
    const worker = server();
    const { clientId, tokens } = await worker.signIn();
    expect(await worker.revoke(clientId, tokens.refresh_token!)).toBe(200);
    expect(await worker.mcpStatus(tokens.access_token!)).toBe(401);
    expect(await worker.refresh(clientId, tokens.refresh_token!)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
  });

  it("sent while a refresh of the grant is being written, leaves neither the refresh's access token nor its refresh token working", async () => {
    const state = gatedState(env.OAUTH_STATE);
    const worker = server(state);
    const { clientId, tokens } = await worker.signIn();
    // The refresh is held as it writes its rotation (the grant record, then its new access token): it has read the
    // grant and minted the new tokens, and nothing of them is stored yet.
    const rotation = state.holdNextWrite("grant:");
    const refreshing = worker.refresh(clientId, tokens.refresh_token!);
    await rotation.caught;
    const revoking = worker.revoke(clientId, tokens.refresh_token!);
    // Let the refresh go on once the revocation has answered, or has asked the grant's object for the grant's turn:
    // whichever it does, the outcome below must be the same.
    await Promise.race([revoking, state.nextCall("beginTokenRequest")]);
    rotation.release();
    const [refreshed, revoked] = await Promise.all([refreshing, revoking]);
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(revoked).toBe(200);
    expect(await worker.mcpStatus(refreshed.body.access_token!)).toBe(401);
    expect(await worker.refresh(clientId, refreshed.body.refresh_token!)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect(await worker.mcpStatus(tokens.access_token!)).toBe(401);
  });

  it("sent at the same moment as a refresh of the grant, leaves nothing of the grant working, in every one of many rounds", async () => {
    const worker = server();
    for (let round = 0; round < 8; round++) {
      const { clientId, tokens } = await worker.signIn();
      // Both started before either is awaited: the order they reach the grant's object in is the runtime's.
      const refreshing = worker.refresh(clientId, tokens.refresh_token!);
      const revoking = worker.revoke(clientId, tokens.refresh_token!);
      const [refreshed, revoked] = await Promise.all([refreshing, revoking]);
      expect(revoked, `round ${round}`).toBe(200);
      if (refreshed.status === 200) {
        expect(await worker.mcpStatus(refreshed.body.access_token!), `round ${round}`).toBe(401);
        expect((await worker.refresh(clientId, refreshed.body.refresh_token!)).status, `round ${round}`).toBe(400);
      } else {
        // The revocation came first: the refresh found no grant.
        expect(refreshed.body.error, `round ${round}`).toBe("invalid_grant");
      }
      expect(await worker.mcpStatus(tokens.access_token!), `round ${round}`).toBe(401);
    }
  });
});
