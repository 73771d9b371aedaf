/**
 * @module oauth/token-client
 * Which clients a POST /token names. The provider looks up the client of every token request before anything else,
 * and for a client ID metadata document that lookup is a fetch of the client_id URL; so the URL is checked here
 * first (public-host.ts). A request names its client in one of three places (RFC 6749 §2.3, RFC 7523 §3): the
 * `client_id` field, the user of HTTP Basic authentication, or the `iss` of a `client_assertion`.
 */

/**
 * Every client id the request names, or `undefined` when it names one in a form this code cannot read. Why refuse
 * then: the provider might read it after all, and look up a client nobody checked.
 */
export function clientIdsOf(form: URLSearchParams, authorization: string | null): string[] | undefined {
  const ids = form.getAll("client_id").filter(Boolean);
  const basic = basicUser(authorization);
  if (basic === undefined) return undefined;
  if (basic !== null) ids.push(basic);
  for (const assertion of form.getAll("client_assertion").filter(Boolean)) {
    const issuer = assertionIssuer(assertion);
    // The provider takes the issuer as the client only when no client_id is given.
    if (issuer === undefined && ids.length === 0) return undefined;
    if (issuer !== undefined) ids.push(issuer);
  }
  return ids;
}

/** The client id of HTTP Basic credentials; `null` without Basic authentication, `undefined` if unreadable. */
function basicUser(authorization: string | null): string | null | undefined {
  const credentials = basicCredentials(authorization);
  return credentials === null ? null : credentials?.id;
}

/** HTTP Basic client credentials (RFC 6749 §2.3.1); `null` without Basic authentication, `undefined` if unreadable. */
export function basicCredentials(authorization: string | null): { id: string; secret: string } | null | undefined {
  const [scheme = "", ...rest] = (authorization ?? "").trim().split(/[ \t]+/);
  if (scheme.toLowerCase() !== "basic") return null;
  if (rest.length !== 1) return undefined;
  try {
    const credentials = atob(rest[0]!);
    const colon = credentials.indexOf(":");
    if (colon === -1) return undefined;
    // RFC 6749 §2.3.1: the id and the secret are each form-urlencoded before they are put in the header.
    const decode = (part: string) => decodeURIComponent(part.replace(/\+/g, " "));
    return { id: decode(credentials.slice(0, colon)), secret: decode(credentials.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

/**
 * The `iss` of a JWT client assertion, read without verifying it (the provider verifies it later). Strict base64url:
 * an assertion spelled any other way is unreadable here, and refused unless a client_id names the client.
 */
export function assertionIssuer(assertion: string): string | undefined {
  const payload = assertion.split(".")[1];
  if (!payload) return undefined;
  try {
    const claims = JSON.parse(new TextDecoder().decode(Uint8Array.fromBase64(payload, { alphabet: "base64url" })));
    return typeof claims?.iss === "string" && claims.iss ? claims.iss : undefined;
  } catch {
    return undefined;
  }
}
