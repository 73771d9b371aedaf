/**
 * A local OAuth issuer for authorization tests: an ES256 key pair made in the test, its JWKS handed to the Worker
 * inline (no network), and tokens whose every claim can be overridden to make them wrong.
 */
import { exportJWK, generateKeyPair, SignJWT } from "jose";

export const ISSUER = "https://issuer.example";
export const AUDIENCE = "http://localhost:8787/mcp";

export async function localIssuer() {
  const pair = await generateKeyPair("ES256", { extractable: true });
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256", use: "sig" }] });
  return {
    /** The settings that turn authorization on against this issuer. */
    vars: { AUTH_ISSUER: ISSUER, AUTH_JWKS: jwks, AUTH_AUDIENCE: AUDIENCE },
    /** A signed token; `sub: null` leaves the subject out, `key` signs with another key. */
    token(claims: Record<string, unknown> = {}, key: CryptoKey = pair.privateKey): Promise<string> {
      const { sub = "alice", iss = ISSUER, aud = AUDIENCE, exp = Math.floor(Date.now() / 1000) + 300, ...rest } = claims;
      let jwt = new SignJWT({ ...rest }).setProtectedHeader({ alg: "ES256", kid: "k1" }).setIssuedAt();
      if (sub !== null) jwt = jwt.setSubject(String(sub));
      return jwt
        .setIssuer(String(iss))
        .setAudience(aud as string)
        .setExpirationTime(exp as number)
        .sign(key);
    },
  };
}
