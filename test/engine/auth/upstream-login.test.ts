/**
 * GitHub login, the upstream side: GitHub has no discovery, so its endpoints, scope and user lookup are this
 * server's to get right. GitHub itself is replaced by a stub of its three URLs (the OpenID Connect side runs against
 * a real local provider in test/e2e/oauth-flow.test.ts).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { finishLogin, loginUrl, newSecrets } from "../../../src/mcp/auth/server/upstream";
import type { AuthServerSettings } from "../../../src/mcp/config/config";

const settings = (): AuthServerSettings => ({
  login: "github",
  clientId: "gh-client",
  clientSecret: "gh-secret",
  scopes: ["read:user"],
  consentSecret: "x".repeat(32),
});
const CALLBACK = "https://mcp.example/oauth/callback";

/** GitHub's token endpoint and /user, answering as GitHub does; records what this server sent. */
function stubGitHub() {
  const sent: { url: string; body: string; authorization: string | null }[] = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input as RequestInfo, init);
    sent.push({ url: request.url, body: await request.text(), authorization: request.headers.get("authorization") });
    if (request.url === "https://github.com/login/oauth/access_token") {
      return Response.json({ access_token: "gho_upstream", token_type: "bearer", scope: "read:user" });
    }
    if (request.url === "https://api.github.com/user") return Response.json({ id: 583231, login: "octocat", name: "The Octocat" });
    return new Response("unexpected", { status: 500 });
  });
  return sent;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("GitHub login", () => {
  it("sends the person to GitHub's authorize URL with PKCE S256, the state and read:user, without a nonce", async () => {
    const secrets = newSecrets(settings());
    expect(secrets.nonce).toBeUndefined();
    const url = new URL(await loginUrl(settings(), CALLBACK, "the-state", secrets));
    expect(url.origin + url.pathname).toBe("https://github.com/login/oauth/authorize");
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: "gh-client",
      redirect_uri: CALLBACK,
      response_type: "code",
      scope: "read:user",
      state: "the-state",
      code_challenge_method: "S256",
    });
  });

  it("exchanges the code with the secret and the PKCE verifier, and names the person by GitHub's numeric id", async () => {
    const sent = stubGitHub();
    const secrets = newSecrets(settings());
    const identity = await finishLogin(settings(), new URL(`${CALLBACK}?code=gh-code&state=s`), CALLBACK, secrets);
    expect(identity).toEqual({ id: "github-583231", name: "The Octocat", upstreamToken: "gho_upstream" });
    const exchange = new URLSearchParams(sent[0]!.body);
    expect(Object.fromEntries(exchange)).toMatchObject({
      grant_type: "authorization_code",
      code: "gh-code",
      code_verifier: secrets.verifier,
      client_secret: "gh-secret",
      redirect_uri: CALLBACK,
    });
    expect(sent[1]).toMatchObject({ url: "https://api.github.com/user", authorization: "Bearer gho_upstream" });
  });

  it("hands GitHub's token to the login, which keeps it for tools only with the upstreamToken option", async () => {
    stubGitHub();
    const identity = await finishLogin(settings(), new URL(`${CALLBACK}?code=gh-code&state=s`), CALLBACK, newSecrets(settings()));
    expect(identity.upstreamToken).toBe("gho_upstream");
  });

  it("refuses a callback that carries an error instead of a code", async () => {
    stubGitHub();
    await expect(
      finishLogin(settings(), new URL(`${CALLBACK}?error=access_denied&state=s`), CALLBACK, newSecrets(settings())),
    ).rejects.toThrow();
  });
});
