/**
 * The authorization server's state when KV lags (OAUTH_KV bound to test/helpers/lagging-kv.ts, which answers every
 * read as the namespace was a moment ago, as KV does between locations): a first call right after the token answer,
 * a retried refresh, racing refreshes, racing code exchanges, and a reuse after the retry window, each through the
 * real Worker after a whole sign-in. The person takes longer than the lag between the steps of signing in; the
 * client takes no time between the token answer and its next request.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { laggingKv } from "../helpers/lagging-kv";
import { signInWorker } from "../helpers/sign-in";
import { withLogs } from "../helpers/wire";

/** How far behind the namespace's reads are, and how long the person takes between the steps of signing in. */
const LAG_MS = 300;
const STEP_MS = LAG_MS + 50;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the authorization server's state, with a KV namespace that lags", () => {
  it("serves the first /mcp call made right after the token answer, and right after a refresh", async () => {
    const server = signInWorker({ kv: laggingKv(LAG_MS), stepPauseMs: STEP_MS });
    const { clientId, tokens } = await server.signIn();
    expect(await server.mcpStatus(tokens.access_token!)).toBe(200);
    const refreshed = await server.refresh(clientId, tokens.refresh_token!);
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(await server.mcpStatus(refreshed.body.access_token!)).toBe(200);
  });

  it("answers a retried refresh within the retry window with the same tokens, and signs no one out", async () => {
    const server = signInWorker({ kv: laggingKv(LAG_MS), stepPauseMs: STEP_MS });
    const { clientId, tokens } = await server.signIn();
    // An hour later, as it were: the sign-in's own writes have reached every location by now.
    await pause(STEP_MS);
    const first = await server.refresh(clientId, tokens.refresh_token!);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    // The client never saw `first` (its answer was lost) and sends the same request again.
    const retried = await server.refresh(clientId, tokens.refresh_token!);
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.body.access_token).toBe(first.body.access_token);
    expect(retried.body.refresh_token).toBe(first.body.refresh_token);
    expect(retried.body.expires_in).toBeLessThanOrEqual(first.body.expires_in!);
    expect(await server.mcpStatus(retried.body.access_token!)).toBe(200);
    const next = await server.refresh(clientId, retried.body.refresh_token!);
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(await server.mcpStatus(next.body.access_token!)).toBe(200);
  });

  for (const racers of [2, 10]) {
    it(`rotates exactly once for ${racers} racing uses of one refresh token: every answer is that rotation's, and the person stays signed in`, async () => {
      const server = signInWorker({ kv: laggingKv(LAG_MS), stepPauseMs: STEP_MS });
      const { clientId, tokens } = await server.signIn();
      await pause(STEP_MS);
      const answers = await Promise.all(Array.from({ length: racers }, () => server.refresh(clientId, tokens.refresh_token!)));
      expect(answers.map((answer) => answer.status)).toEqual(Array(racers).fill(200));
      expect(new Set(answers.map((answer) => answer.body.refresh_token)).size, "distinct refresh tokens").toBe(1);
      expect(new Set(answers.map((answer) => answer.body.access_token)).size, "distinct access tokens").toBe(1);
      expect(await server.mcpStatus(answers[0]!.body.access_token!)).toBe(200);
      const next = await server.refresh(clientId, answers.at(-1)!.body.refresh_token!);
      expect(next.status, JSON.stringify(next.body)).toBe(200);
      expect(await server.mcpStatus(next.body.access_token!)).toBe(200);
    });
  }

  it("of two racing exchanges of one code, gives the tokens to one, and refuses the other and revokes the grant (RFC 6749 §4.1.2)", async () => {
    const server = signInWorker({ kv: laggingKv(LAG_MS), stepPauseMs: STEP_MS });
    const clientId = await server.register();
    const { code } = await server.codeFor(clientId);
    await pause(STEP_MS);
    const { value: answers, entries } = await withLogs(async () => {
      const both = await Promise.all([server.exchange(clientId, code), server.exchange(clientId, code)]);
      const issued = both.find((answer) => answer.status === 200);
      return { both, revoked: issued && (await server.mcpStatus(issued.body.access_token!)) };
    });
    expect(answers.both.map((answer) => answer.status).sort()).toEqual([200, 400]);
    expect(answers.revoked).toBe(401);
    // The provider logs each error it answers, with why: the replayed code, then the revoked grant's token.
    expect(entries).toEqual([
      { level: "warn", message: "oauth error", code: "invalid_grant", status: 400, reason: "code_replayed" },
      { level: "warn", message: "oauth error", code: "invalid_token", status: 401, reason: "token_not_found" },
    ]);
  });

  it("revokes the grant when a refresh token is used again after the retry window: its successor and access token stop too", async () => {
    // A one-second window, with reads lagging longer than that: the reuse comes while KV still shows the token unused.
    const lag = 1_500;
    const server = signInWorker({ kv: laggingKv(lag), stepPauseMs: lag + 50, limits: { oauth: { refreshRetryMs: 1_000 } } });
    const { clientId, tokens } = await server.signIn();
    await pause(lag + 50);
    const first = await server.refresh(clientId, tokens.refresh_token!);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    await pause(1_100);
    const { value: reused, entries } = await withLogs(async () => {
      const refused = await server.refresh(clientId, tokens.refresh_token!);
      expect(await server.refresh(clientId, first.body.refresh_token!)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
      expect(await server.mcpStatus(first.body.access_token!)).toBe(401);
      return refused;
    });
    expect(reused).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect(reused.body.error_description).toContain("already used");
    // The reuse is this server's refusal; the revoked grant's successor and token, the provider's (logged).
    expect(entries).toEqual([
      { level: "warn", message: "oauth error", code: "invalid_grant", status: 400, reason: "grant_not_found" },
      { level: "warn", message: "oauth error", code: "invalid_token", status: 401, reason: "token_not_found" },
    ]);
  });
});
