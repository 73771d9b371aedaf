/**
 * @module oauth/public-host
 * Which URLs a client may make this server fetch. A client whose `client_id` is an https URL is a client ID metadata
 * document (CIMD): the provider fetches that URL, and fetches the `jwks_uri` it names for `private_key_jwt`. Both are
 * chosen by whoever calls /authorize or /token, so without a check they reach this machine or its network
 * (`https://127.0.0.1:8787/`, the router, a cloud metadata service) whenever the runtime allows it: under
 * `wrangler dev` it does. In production the `global_fetch_strictly_public` flag confines fetch to the public
 * internet too; this check does not depend on it.
 *
 * Workers cannot resolve names, so the host is judged as written, after the WHATWG URL parser has normalised it
 * (`0x7f000001`, `017700000001`, `2130706433` and `127.1` all become `127.0.0.1`; IPv6 is bracketed and compressed).
 * Refused: every IP literal (a document is published by a domain, and the consent page names that domain; no real
 * client names an address), names without a dot, and the names that only ever resolve locally. A public name whose
 * DNS points at a private address, or a document that redirects to one, is not caught here: the runtime flag and
 * Cloudflare's network stop those in production.
 */
import { MAX_URI_LENGTH, over } from "./client-limits";

/**
 * Loopback names (RFC 6761 `localhost`, and the `localdomain` of many hosts files) and private-network ones: mDNS
 * `local` (RFC 6762), `internal` (reserved for private use by ICANN), `home.arpa` (RFC 8375), and home routers' `lan`.
 */
const LOCAL_SUFFIXES = ["localhost", "localdomain", "local", "internal", "home.arpa", "lan"];

const IPV4_LITERAL = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** Why `url` must not be fetched, or `undefined` when its host is a public domain name. */
export function hostProblem(url: URL): string | undefined {
  // Trailing dots name the same host ("localhost." is localhost).
  const host = url.hostname.replace(/\.+$/, "");
  if (host.startsWith("[") || IPV4_LITERAL.test(host)) return "an IP address, not a domain";
  if (!host.includes(".")) return "a name without a domain, which resolves only on a local network";
  if (LOCAL_SUFFIXES.some((suffix) => host === suffix || host.endsWith(`.${suffix}`))) return "a local name";
  return undefined;
}

/** Whether the provider treats `clientId` as a client ID metadata document URL (and fetches it). */
export function isMetadataDocumentUrl(clientId: string): boolean {
  return URL.parse(clientId)?.protocol === "https:";
}

/**
 * Why a `client_id` is refused before the provider sees it, or `undefined`. Any id is bounded (the provider keeps it
 * in every grant); an https one must name a public domain, since the provider would fetch it.
 */
export function clientIdProblem(clientId: string): string | undefined {
  if (clientId.length > MAX_URI_LENGTH) return over("client_id", clientId.length, "characters (UTF-16 units)", MAX_URI_LENGTH);
  if (!isMetadataDocumentUrl(clientId)) return undefined;
  const problem = hostProblem(new URL(clientId));
  return problem && `client_id names ${problem}: a client ID metadata document must be published on a public domain`;
}

/** Why a metadata document's `jwks_uri` (fetched for `private_key_jwt`) is refused, or `undefined`. */
export function jwksUriProblem(jwksUri: string | undefined): string | undefined {
  const url = jwksUri === undefined ? null : URL.parse(jwksUri);
  const problem = url ? hostProblem(url) : undefined;
  return problem && `jwks_uri names ${problem}: a client's key set must be published on a public domain`;
}
