/**
 * @module auth/machine-claims
 * Whether an external issuer's access token (AUTH_ISSUER) was minted for a machine, through the client credentials
 * grant, rather than for a person: then `ctx.principal` is a client principal (`client-<client id>`), as a machine
 * client of the built-in authorization server is. Issuers say it each in their own claims; only what the token
 * itself says counts, after its signature, issuer, audience and expiry have been verified (jwt.ts):
 *
 * - Cloudflare Access service tokens: the client in `common_name`, an empty `sub` and no `email` (a person's Access
 *   token has the same `type`, "app", but a `sub` and an `email`, and no `common_name`);
 * - Auth0 machine-to-machine tokens: `gty` "client-credentials", the client in `azp` (`sub` is `<client>@clients`);
 * - Microsoft Entra app-only tokens: `idtyp` "app" (an optional claim to turn on), the client in `azp` (v2) or
 *   `appid` (v1), and the application permissions granted in `roles` (they carry no `scp`);
 * - any issuer that follows RFC 9068 §2.2 (Okta, WorkOS, ...): `sub` equal to the `client_id` claim.
 *
 * A token that says none of these is a person's, as before.
 */
import type { JsonObject } from "../wire/types";

/** The client a machine's token names, and the scopes it grants when the issuer puts them elsewhere than `scope`. */
export interface MachineClaims {
  clientId: string;
  scopes?: string[];
}

const text = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);
const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === "string" && entry !== "") : [];

/** The machine client a verified token names, or `undefined` when it is a person's. */
export function machineClaimsOf(claims: JsonObject): MachineClaims | undefined {
  // Cloudflare Access: a service token's JWT names no user (`sub` is empty).
  if (isAccessServiceToken(claims)) return { clientId: text(claims.common_name)! };
  if (claims.gty === "client-credentials" && text(claims.azp)) return { clientId: text(claims.azp)! };
  const entraClient = text(claims.azp) ?? text(claims.appid);
  if (claims.idtyp === "app" && entraClient) return { clientId: entraClient, scopes: strings(claims.roles) };
  if (text(claims.client_id) && claims.sub === claims.client_id) return { clientId: text(claims.client_id)! };
  return undefined;
}

/**
 * Whether a token may have an empty `sub` (jwt.ts refuses one otherwise): a Cloudflare Access service token, which
 * names its client in `common_name` instead.
 */
export const namesClientWithoutSubject = (claims: JsonObject): boolean => isAccessServiceToken(claims);

/**
 * Why all four: a person's Access token has a `sub` and an `email`; a service token has neither, and its client id in
 * `common_name`. Access also puts a client certificate's common name in `common_name` when an mTLS rule let the
 * request in, and nothing in the token tells that apart from a service token's: see docs/security.md.
 */
function isAccessServiceToken(claims: JsonObject): boolean {
  return (
    claims.type === "app" &&
    text(claims.common_name) !== undefined &&
    (claims.sub === undefined || claims.sub === "") &&
    claims.email === undefined
  );
}
