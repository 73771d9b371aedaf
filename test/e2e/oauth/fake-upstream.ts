/**
 * A small OpenID Connect provider for the end-to-end tests: discovery, authorize, token and JWKS, on 127.0.0.1.
 * Who signs in is chosen by the test (`signInAs`), as a person would by typing a password. It checks what a real
 * provider checks of this server: its client id and secret, the exact redirect URI, the PKCE verifier, single-use
 * codes; and it signs ID tokens carrying the nonce it was given.
 */
import { createHash, randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT } from "jose";

export const UPSTREAM_CLIENT = { id: "mcp-server-at-upstream", secret: "upstream-secret-for-tests" };

interface PendingCode {
  user: { sub: string; name: string };
  redirectUri: string;
  challenge: string;
  nonce?: string;
}

export interface FakeUpstream {
  issuer: string;
  signInAs(user: { sub: string; name: string }): void;
  /** The next ID tokens carry a nonce other than the one asked for (a replayed or injected token). */
  tamperNonce(on: boolean): void;
  close(): Promise<void>;
}

/** Starts the provider on 127.0.0.1 and a free port; its issuer URL names the port. */
export async function startFakeUpstream(): Promise<FakeUpstream> {
  // Known once the server listens, before any request can arrive.
  let issuer = "";
  const { privateKey, publicKey } = await generateKeyPair("RS256");
  const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "RS256", use: "sig" };
  const codes = new Map<string, PendingCode>();
  let user = { sub: "alice-0001", name: "Alice" };
  let wrongNonce = false;

  const server: Server = createServer(async (request, response) => {
    const url = new URL(request.url!, issuer);
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
      response.end(JSON.stringify(body));
    };
    if (url.pathname === "/.well-known/openid-configuration") {
      return json(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ["code"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["RS256"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["client_secret_post"],
      });
    }
    if (url.pathname === "/jwks") return json(200, { keys: [jwk] });
    if (url.pathname === "/authorize") {
      const query = url.searchParams;
      if (query.get("client_id") !== UPSTREAM_CLIENT.id || query.get("code_challenge_method") !== "S256") {
        return json(400, { error: "invalid_request" });
      }
      const code = randomUUID();
      codes.set(code, {
        user,
        redirectUri: query.get("redirect_uri")!,
        challenge: query.get("code_challenge")!,
        nonce: query.get("nonce") ?? undefined,
      });
      const back = new URL(query.get("redirect_uri")!);
      back.searchParams.set("code", code);
      back.searchParams.set("state", query.get("state")!);
      response.writeHead(302, { location: back.href });
      return response.end();
    }
    if (url.pathname === "/token" && request.method === "POST") {
      let raw = "";
      for await (const chunk of request) raw += chunk;
      const form = new URLSearchParams(raw);
      const pending = codes.get(form.get("code") ?? "");
      codes.delete(form.get("code") ?? "");
      const verifier = form.get("code_verifier") ?? "";
      const challenge = createHash("sha256").update(verifier).digest("base64url");
      if (form.get("client_id") !== UPSTREAM_CLIENT.id || form.get("client_secret") !== UPSTREAM_CLIENT.secret) {
        return json(401, { error: "invalid_client" });
      }
      if (!pending || pending.redirectUri !== form.get("redirect_uri") || pending.challenge !== challenge) {
        return json(400, { error: "invalid_grant" });
      }
      const nonce = wrongNonce ? "some-other-login" : pending.nonce;
      const idToken = await new SignJWT({ name: pending.user.name, ...(nonce && { nonce }) })
        .setProtectedHeader({ alg: "RS256", kid: "k1" })
        .setIssuer(issuer)
        .setSubject(pending.user.sub)
        .setAudience(UPSTREAM_CLIENT.id)
        .setIssuedAt()
        .setExpirationTime("5m")
        .sign(privateKey);
      return json(200, { access_token: `upstream-${randomUUID()}`, token_type: "Bearer", expires_in: 300, id_token: idToken });
    }
    json(404, { error: "not_found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    signInAs: (next) => {
      user = next;
    },
    tamperNonce: (on) => {
      wrongNonce = on;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
