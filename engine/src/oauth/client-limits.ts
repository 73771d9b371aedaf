/**
 * @module oauth/client-limits
 * The size of what a client may tell this server about itself: in a dynamic registration (RFC 7591, stored in
 * OAUTH_STATE for `limits.oauth.clientMs`) and in a client ID metadata document (shown on the consent page). Without
 * bounds, one caller at the /register rate limit keeps gigabytes of storage alive with long names and thousands of
 * URIs.
 *
 * Lengths are UTF-16 units (JavaScript string length), counts are entries, the body is bytes as received. Members
 * not named here are not stored by the provider, so only the body cap bounds them.
 */
import type { ClientInfo } from "@cloudflare/workers-oauth-provider";

/** The whole registration body, in bytes as received: the largest real registrations are well under 2 KiB. */
export const MAX_REGISTRATION_BYTES = 16_384;

/** Every URI member: redirect URIs, the client's pages and its key set. */
export const MAX_URI_LENGTH = 2_048;

/** A language-tagged variant's tag (`client_name#<tag>`): RFC 5646 §4.4.1 asks implementations to handle 35. */
const MAX_LANGUAGE_TAG_LENGTH = 35;
/** Language-tagged variants in all (`client_name#de`, `tos_uri#fr`, ...). */
const MAX_LANGUAGE_VARIANTS = 10;

/** A member's bounds: its longest value (UTF-16 units) and, for an array of strings, its most entries. */
interface Limit {
  maxLength: number;
  maxEntries?: number;
}

/** The members the provider stores or acts on, and their bounds. */
export const CLIENT_METADATA_LIMITS: ReadonlyMap<string, Limit> = new Map([
  ["client_name", { maxLength: 200 }],
  ["redirect_uris", { maxLength: MAX_URI_LENGTH, maxEntries: 10 }],
  ["client_uri", { maxLength: MAX_URI_LENGTH }],
  ["logo_uri", { maxLength: MAX_URI_LENGTH }],
  ["policy_uri", { maxLength: MAX_URI_LENGTH }],
  ["tos_uri", { maxLength: MAX_URI_LENGTH }],
  ["jwks_uri", { maxLength: MAX_URI_LENGTH }],
  ["contacts", { maxLength: 320, maxEntries: 10 }],
  ["scope", { maxLength: 1_024 }],
  ["grant_types", { maxLength: 128, maxEntries: 10 }],
  ["response_types", { maxLength: 128, maxEntries: 10 }],
  ["token_endpoint_auth_method", { maxLength: 128 }],
  ["token_endpoint_auth_methods_supported", { maxLength: 128, maxEntries: 10 }],
  ["software_id", { maxLength: 256 }],
  ["software_version", { maxLength: 128 }],
]);

/** The members that may carry language-tagged variants (RFC 7591 §2.2). */
const TAGGABLE = new Set(["client_name", "client_uri", "logo_uri", "policy_uri", "tos_uri"]);

/** A refusal as RFC 7591 §3.2.2 spells it: the error code and a description naming the member and its limit. */
export interface MetadataRefusal {
  code: "invalid_client_metadata" | "invalid_redirect_uri";
  description: string;
}

/** How every limit is reported: what is over, its size in its unit, and the limit. */
export const over = (what: string, size: number, unit: string, max: number) => `${what}: ${size} ${unit}, at most ${max}`;

/**
 * The first member of `metadata` (RFC 7591 names) that is over its limit or of the wrong type; `undefined` if none.
 * Language-tagged variants (`client_name#de`) are stored by the provider too, so their number and tags count.
 */
export function checkClientMetadata(metadata: Record<string, unknown>): MetadataRefusal | undefined {
  let variants = 0;
  for (const [member, value] of Object.entries(metadata)) {
    const hash = member.indexOf("#");
    const base = hash > 0 ? member.slice(0, hash) : member;
    const limit = CLIENT_METADATA_LIMITS.get(base);
    if (!limit || value === undefined || (hash > 0 && !TAGGABLE.has(base))) continue;
    const problem = hash > 0 ? variantProblem(base, member.slice(hash + 1), value, limit, ++variants) : valueProblem(member, value, limit);
    if (problem) return { code: base === "redirect_uris" ? "invalid_redirect_uri" : "invalid_client_metadata", description: problem };
  }
  return undefined;
}

/** The registration body's own size, once every member is within its limit. */
export function checkRegistrationSize(bytes: number): MetadataRefusal | undefined {
  if (bytes <= MAX_REGISTRATION_BYTES) return undefined;
  return { code: "invalid_client_metadata", description: over("the registration", bytes, "bytes", MAX_REGISTRATION_BYTES) };
}

function variantProblem(base: string, tag: string, value: unknown, limit: Limit, count: number): string | undefined {
  if (count > MAX_LANGUAGE_VARIANTS) return `language-tagged members: more than ${MAX_LANGUAGE_VARIANTS}`;
  if (tag.length > MAX_LANGUAGE_TAG_LENGTH)
    return over(`the language tag of ${base}#...`, tag.length, "characters", MAX_LANGUAGE_TAG_LENGTH);
  return valueProblem(`${base}#${tag}`, value, limit);
}

function valueProblem(member: string, value: unknown, limit: Limit): string | undefined {
  // Why the type is checked here too: the provider ignores some members (scope, software_id), and a bound on a
  // length means nothing for a value that is not a string.
  if (limit.maxEntries === undefined) return textProblem(member, value, limit.maxLength);
  if (!Array.isArray(value)) return `${member} must be an array of strings`;
  if (value.length > limit.maxEntries) return over(member, value.length, "entries", limit.maxEntries);
  for (const entry of value) {
    const problem = textProblem(`an entry of ${member}`, entry, limit.maxLength);
    if (problem) return problem;
  }
  return undefined;
}

function textProblem(member: string, value: unknown, maxLength: number): string | undefined {
  if (typeof value !== "string") return `${member} must be a string`;
  return value.length > maxLength ? over(member, value.length, "characters (UTF-16 units)", maxLength) : undefined;
}

/**
 * A client as the provider resolved it (a client ID metadata document, which the provider caps at 5 KiB but not
 * member by member), under its RFC 7591 names, for `checkClientMetadata`.
 */
export function metadataOf(client: ClientInfo): Record<string, unknown> {
  return {
    client_name: client.clientName,
    redirect_uris: client.redirectUris,
    client_uri: client.clientUri,
    logo_uri: client.logoUri,
    policy_uri: client.policyUri,
    tos_uri: client.tosUri,
    jwks_uri: client.jwksUri,
    contacts: client.contacts,
    grant_types: client.grantTypes,
    response_types: client.responseTypes,
    ...client.i18n,
  };
}
