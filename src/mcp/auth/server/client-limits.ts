/**
 * @module client-limits
 * The size of what a client may tell this server about itself: in a dynamic registration (RFC 7591, stored in
 * OAUTH_KV for AUTH_CLIENT_TTL_SECONDS) and in a client ID metadata document (shown on the consent page). Without
 * bounds, one caller at the /register rate limit keeps gigabytes of KV alive with long names and thousands of URIs.
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

interface TextLimit {
  kind: "text";
  maxLength: number;
}
interface ListLimit {
  kind: "list";
  maxCount: number;
  maxLength: number;
}
type Limit = TextLimit | ListLimit;

const text = (maxLength: number): TextLimit => ({ kind: "text", maxLength });
const list = (maxCount: number, maxLength: number): ListLimit => ({ kind: "list", maxCount, maxLength });

/** The members the provider stores or acts on, and their bounds. */
export const CLIENT_METADATA_LIMITS: Readonly<Record<string, Limit>> = {
  client_name: text(200),
  redirect_uris: list(10, MAX_URI_LENGTH),
  client_uri: text(MAX_URI_LENGTH),
  logo_uri: text(MAX_URI_LENGTH),
  policy_uri: text(MAX_URI_LENGTH),
  tos_uri: text(MAX_URI_LENGTH),
  jwks_uri: text(MAX_URI_LENGTH),
  contacts: list(10, 320),
  scope: text(1_024),
  grant_types: list(10, 128),
  response_types: list(10, 128),
  token_endpoint_auth_method: text(128),
  token_endpoint_auth_methods_supported: list(10, 128),
  software_id: text(256),
  software_version: text(128),
};

/** The members that may carry language-tagged variants (RFC 7591 §2.2). */
const TAGGABLE = new Set(["client_name", "client_uri", "logo_uri", "policy_uri", "tos_uri"]);

/** A refusal as RFC 7591 §3.2.2 spells it: the error code and a description naming the member and its limit. */
export interface MetadataRefusal {
  code: "invalid_client_metadata" | "invalid_redirect_uri";
  description: string;
}

const refuse = (member: string, description: string): MetadataRefusal => ({
  code: member === "redirect_uris" ? "invalid_redirect_uri" : "invalid_client_metadata",
  description,
});

/** The first member of `metadata` (RFC 7591 names) that is over its limit or of the wrong type; `undefined` if none. */
export function checkClientMetadata(metadata: Record<string, unknown>): MetadataRefusal | undefined {
  for (const [member, limit] of Object.entries(CLIENT_METADATA_LIMITS)) {
    if (!Object.hasOwn(metadata, member) || metadata[member] === undefined) continue;
    const refusal = checkMember(member, metadata[member], limit);
    if (refusal) return refusal;
  }
  return checkLanguageVariants(metadata);
}

/** The registration body's own size, before any member is looked at. */
export function checkRegistrationSize(bytes: number): MetadataRefusal | undefined {
  if (bytes <= MAX_REGISTRATION_BYTES) return undefined;
  return refuse("body", `the registration is ${bytes} bytes; at most ${MAX_REGISTRATION_BYTES} bytes are accepted`);
}

function checkMember(member: string, value: unknown, limit: Limit): MetadataRefusal | undefined {
  if (limit.kind === "text") return checkText(member, value, limit.maxLength);
  // Why the type is checked here too: the provider ignores some members (scope, software_id), and a bound on a
  // length means nothing for a value that is not a string.
  if (!Array.isArray(value)) return refuse(member, `${member} must be an array of strings`);
  if (value.length > limit.maxCount) {
    return refuse(member, `${member} has ${value.length} entries; at most ${limit.maxCount} are accepted`);
  }
  for (const entry of value) {
    const refusal = checkText(`an entry of ${member}`, entry, limit.maxLength);
    if (refusal) return refuse(member, refusal.description);
  }
  return undefined;
}

function checkText(member: string, value: unknown, maxLength: number): MetadataRefusal | undefined {
  if (typeof value !== "string") return refuse(member, `${member} must be a string`);
  if (value.length <= maxLength) return undefined;
  return refuse(member, `${member} is ${value.length} characters (UTF-16 units); at most ${maxLength} are accepted`);
}

/** `client_name#de` and the like: the provider stores every one, so their number and their tags are bounded too. */
function checkLanguageVariants(metadata: Record<string, unknown>): MetadataRefusal | undefined {
  let variants = 0;
  for (const member of Object.keys(metadata)) {
    const hash = member.indexOf("#");
    if (hash <= 0 || !TAGGABLE.has(member.slice(0, hash))) continue;
    const base = member.slice(0, hash);
    if (++variants > MAX_LANGUAGE_VARIANTS) {
      return refuse(
        member,
        `more than ${MAX_LANGUAGE_VARIANTS} language-tagged members (such as ${base}#en); at most ${MAX_LANGUAGE_VARIANTS} are accepted`,
      );
    }
    const tag = member.slice(hash + 1);
    if (tag.length > MAX_LANGUAGE_TAG_LENGTH) {
      return refuse(member, `the language tag of ${base}#... is ${tag.length} characters; at most ${MAX_LANGUAGE_TAG_LENGTH} are accepted`);
    }
    const refusal = checkMember(`${base}#${tag}`, metadata[member], CLIENT_METADATA_LIMITS[base]!);
    if (refusal) return refusal;
  }
  return undefined;
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
