/**
 * @module testing/issuer
 * A token issuer of the test's own, for testing tools as signed-in callers: an ES256 key pair made in the test, the
 * settings that turn the Worker's authorization on against it (its key set inline, so nothing is fetched), and
 * access tokens whose claims a test chooses. WebCrypto only, as the server verifies them.
 */

/**
 * What `testIssuer()` gives a test: the Worker's settings for it, and its tokens.
 *
 * @example
 * const expired = await issuer.token({ sub: "bob", exp: Math.floor(Date.now() / 1000) - 60 });
 */
export interface TestIssuer {
  /** The settings that turn authorization on against this issuer: merge them into the env the Worker is served with. */
  vars: { AUTH_ISSUER: string; AUTH_JWKS: string; AUTH_AUDIENCE: string };
  /**
   * A signed access token for `sub` (default "alice"), valid for five minutes. Other claims (such as `scope`) are
   * added as given; `iss`, `aud` and `exp` given here replace the issuer's own, to test how a wrong token is refused.
   */
  token(claims?: Record<string, unknown>): Promise<string>;
}

/** The issuer's name and the audience its tokens carry: the test client's default endpoint. */
const ISSUER = "https://issuer.test";
const AUDIENCE = "http://localhost:8787/mcp";

const base64url = (bytes: Uint8Array) => bytes.toBase64({ alphabet: "base64url", omitPadding: true });
const encodeJson = (value: unknown) => base64url(new TextEncoder().encode(JSON.stringify(value)));

/**
 * Makes a token issuer for one test file: serve the Worker with `{ ...env, ...issuer.vars }`, and connect each
 * signed-in caller with its token in the `authorization` header. `ctx.principal.id` is then the token's `sub`.
 *
 * @example
 * const issuer = await testIssuer();
 * const signedIn = (request: Request) => worker.fetch(request, { ...env, ...issuer.vars }, createExecutionContext());
 * const alice = await connect(signedIn, { headers: { authorization: `Bearer ${await issuer.token({ sub: "alice" })}` } });
 */
export async function testIssuer(): Promise<TestIssuer> {
  const pair = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const { kty, crv, x, y } = (await crypto.subtle.exportKey("jwk", pair.publicKey)) as JsonWebKey;
  const jwks = JSON.stringify({ keys: [{ kty, crv, x, y, kid: "test", alg: "ES256", use: "sig" }] });
  return {
    vars: { AUTH_ISSUER: ISSUER, AUTH_JWKS: jwks, AUTH_AUDIENCE: AUDIENCE },
    async token(claims = {}) {
      const now = Math.floor(Date.now() / 1000);
      const payload = { iss: ISSUER, aud: AUDIENCE, sub: "alice", iat: now, exp: now + 300, ...claims };
      const signingInput = `${encodeJson({ alg: "ES256", typ: "at+jwt", kid: "test" })}.${encodeJson(payload)}`;
      // WebCrypto's ECDSA signature is r || s, exactly the JWS form (RFC 7518, section 3.4).
      const signature = await crypto.subtle.sign(
        { name: "ECDSA", hash: "SHA-256" },
        pair.privateKey,
        new TextEncoder().encode(signingInput),
      );
      return `${signingInput}.${base64url(new Uint8Array(signature))}`;
    },
  };
}
