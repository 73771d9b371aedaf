/**
 * The token requests on one grant, through the real Worker after a whole sign-in (test/helpers/sign-in.ts): what a
 * second use of a refresh token gets (src/oauth/refresh-reuse.ts), and what the grant's object keeps meanwhile (src/oauth/state.ts): sealed answers only, dropped when the window ends, and
 * nothing at all for a token nobody issued.
 */

import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { laggingKv } from "../helpers/lagging-kv";
import { signInWorker } from "../helpers/sign-in";
import { storedTables } from "../helpers/storage";
import { withLogs } from "../helpers/wire";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** No lag here: these are the rules of the grant's object, whatever KV does. */
const server = (limits?: { oauth: { refreshRetryMs: number } }) =>
  signInWorker({ kv: laggingKv(0), stepPauseMs: 0, ...(limits && { limits }) });
const personObject = (token: string) => env.OAUTH_STATE.get(env.OAUTH_STATE.idFromName(`user:${token.split(":")[0]}`));

/** The warning the provider logs for each error it answers: its code and why, never the request or a token. */
const oauthError = (code: string, status: number, reason: string) => ({ level: "warn", message: "oauth error", code, status, reason });

/** Every text the person's object holds, in any table. */
function storedTexts(token: string): Promise<string[]> {
  return runInDurableObject(personObject(token), (_instance, state) => {
    const sql = state.storage.sql;
    const tables = sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\'");
    return [...tables].flatMap(({ name }) =>
      [...sql.exec(`SELECT * FROM ${name}`)].flatMap((row) => Object.values(row).filter((value) => typeof value === "string")),
    ) as string[];
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a second use of a refresh token", () => {
  it("revokes the grant when the token is used again after its successor was, even within the window", async () => {
    const worker = server();
    const { clientId, tokens } = await worker.signIn();
    const second = await worker.refresh(clientId, tokens.refresh_token!);
    const third = await worker.refresh(clientId, second.body.refresh_token!);
    expect(third.status).toBe(200);
    const { value: reused, entries } = await withLogs(async () => {
      const refused = await worker.refresh(clientId, tokens.refresh_token!);
      expect(await worker.refresh(clientId, third.body.refresh_token!)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
      expect(await worker.mcpStatus(third.body.access_token!)).toBe(401);
      return refused;
    });
    expect(reused).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect(reused.body.error_description).toContain("already used");
    // The reuse is this server's refusal; the revoked grant's token and refresh token, the provider's.
    expect(entries).toEqual([oauthError("invalid_grant", 400, "grant_not_found"), oauthError("invalid_token", 401, "token_not_found")]);
  });

  it("revokes the grant when another request (another client's) presents a token just used, within the window", async () => {
    const worker = server();
    const { clientId, tokens } = await worker.signIn();
    const { clientId: otherClient } = await worker.signIn();
    const first = await worker.refresh(clientId, tokens.refresh_token!);
    expect(first.status).toBe(200);
    const stolen = await worker.refresh(otherClient, tokens.refresh_token!);
    expect(stolen).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect(stolen.body).not.toHaveProperty("access_token");
    const { value: status, entries } = await withLogs(() => worker.mcpStatus(first.body.access_token!));
    expect(status).toBe(401);
    expect(entries).toEqual([oauthError("invalid_token", 401, "token_not_found")]);
  });

  it("redeems nothing when the provider refuses the use (another client's, before any rotation): the client's own then rotates", async () => {
    const worker = server();
    const { clientId, tokens } = await worker.signIn();
    const { clientId: otherClient } = await worker.signIn();
    const { value: refused, entries } = await withLogs(() => worker.refresh(otherClient, tokens.refresh_token!));
    expect(refused).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect(refused.body.error_description).not.toContain("already used");
    expect(entries).toEqual([oauthError("invalid_grant", 400, "client_mismatch")]);
    const own = await worker.refresh(clientId, tokens.refresh_token!);
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(await worker.mcpStatus(own.body.access_token!)).toBe(200);
  });

  it("keeps the answer for a retry sealed: the grant's object holds none of the tokens it answered", async () => {
    const worker = server();
    const { clientId, tokens } = await worker.signIn();
    const first = await worker.refresh(clientId, tokens.refresh_token!);
    const texts = (await storedTexts(tokens.refresh_token!)).join("\n");
    for (const token of [tokens.refresh_token!, first.body.refresh_token!, first.body.access_token!]) {
      const secret = token.split(":")[2]!;
      expect(texts).not.toContain(secret);
    }
    // The sealed answer is there, and opens to the very answer for the token it answered (the retry).
    const retried = await worker.refresh(clientId, tokens.refresh_token!);
    expect(retried.body.refresh_token).toBe(first.body.refresh_token);
  });

  it("keeps the answer for 60 s by default (limits.oauth.refreshRetryMs), and for the window a Worker sets", async () => {
    const window = async (worker: ReturnType<typeof server>) => {
      const { clientId, tokens } = await worker.signIn();
      await worker.refresh(clientId, tokens.refresh_token!);
      return runInDurableObject(
        personObject(tokens.refresh_token!),
        (_instance, state) =>
          state.storage.sql.exec<{ ms: number }>("SELECT replay_until - answered_at AS ms FROM refresh_uses WHERE sealed IS NOT NULL").one()
            .ms,
      );
    };
    expect(await window(server())).toBe(60_000);
    expect(await window(server({ oauth: { refreshRetryMs: 5_000 } }))).toBe(5_000);
  });

  it("drops the kept answer when the retry window ends, so a retry after it is a reuse", async () => {
    const worker = server({ oauth: { refreshRetryMs: 1_000 } });
    const { clientId, tokens } = await worker.signIn();
    await worker.refresh(clientId, tokens.refresh_token!);
    const kept = () =>
      runInDurableObject(
        personObject(tokens.refresh_token!),
        (_instance, state) =>
          state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM refresh_uses WHERE sealed IS NOT NULL").one().n,
      );
    expect(await kept()).toBe(1);
    await pause(1_100);
    await runDurableObjectAlarm(personObject(tokens.refresh_token!));
    expect(await kept()).toBe(0);
    expect(await worker.refresh(clientId, tokens.refresh_token!)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
  });
});

describe("the grant's object", () => {
  it("stores nothing for a bearer token nobody issued", async () => {
    const worker = server();
    const forged = `${crypto.randomUUID()}:AAAAAAAAAAAAAAAA:${"x".repeat(32)}`;
    const { value: status, entries } = await withLogs(() => worker.mcpStatus(forged));
    expect(status).toBe(401);
    expect(entries).toEqual([oauthError("invalid_token", 401, "token_not_found")]);
    expect(await storedTables(personObject(forged))).toEqual([]);
  });
});
