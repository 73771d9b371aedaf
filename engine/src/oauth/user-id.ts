/**
 * @module oauth/user-id
 * The user id this server gives the provider. The provider writes it, readable, into every authorization code,
 * access token and refresh token (`<userId>:<grantId>:<secret>`), and those travel in redirect URLs, browser
 * histories and proxy logs. So it is opaque: HMAC-SHA256 of the upstream id (`github-<id>`, `oidc-<tag>-<sub>`) under
 * AUTH_CONSENT_SECRET, base64url (43 characters, never a `:`).
 *
 * Why an HMAC and not a plain hash: GitHub ids are small integers, so a hash of `github-583231` is undone by trying
 * every id. Why it must be stable: the provider finds a person's earlier grants for a client by it (a new login
 * replaces them), so it is the same at every login for as long as AUTH_CONSENT_SECRET is. The readable id stays in
 * the grant's encrypted props, as `ctx.principal.id`, for the tools and the notebook keys.
 */
import { base64url } from "../util/encoding";
import { memoize } from "../util/memo";

/** Keeps this HMAC's inputs apart from anything else the same secret signs (the approvals cookie). */
const PURPOSE = "mcp-user-id\n";

/** The HMAC key, imported once per secret. Marked pure so a Worker without the authorization server drops it (upstream.ts). */
const hmacKey = /* @__PURE__ */ memoize(async (secret: { consentSecret: string }) =>
  crypto.subtle.importKey("raw", new TextEncoder().encode(secret.consentSecret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]),
);

/** The opaque, stable id of the person `upstreamId` names, for the provider's `userId`. */
export async function opaqueUserId(upstreamId: string, settings: { consentSecret: string }): Promise<string> {
  return base64url(await crypto.subtle.sign("HMAC", await hmacKey(settings), new TextEncoder().encode(PURPOSE + upstreamId)));
}
