/**
 * Dynamic client registration (RFC 7591) in authorization-server mode, through the real Worker: every member the
 * provider stores is bounded (src/oauth/client-limits.ts), each limit is accepted at its value and refused one past it with
 * the RFC 7591 error naming the member and the limit, and a refused registration stores no client.
 */
import { describe, expect, it } from "vitest";
import { MAX_REGISTRATION_BYTES, MAX_URI_LENGTH } from "../../src/oauth/client-limits";
import { authServer, jsonPost, REDIRECT_URI, storedClients } from "../helpers/auth-server";
import { withLogs } from "../helpers/wire";

const call = authServer();
const BASE = { client_name: "Client", redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: "none" };

/** Registers `metadata`. A refusal logs one warning, with its error code and never the metadata: checked here. */
async function register(metadata: unknown): Promise<Response> {
  const { value: response, entries } = await withLogs(() => call("/register", jsonPost(metadata)));
  const code = response.status === 400 ? ((await response.clone().json()) as { error: string }).error : undefined;
  expect(entries).toEqual(code ? [{ level: "warn", message: "oauth error", code, status: 400, reason: "callback_denied" }] : []);
  return response;
}

/** A string of exactly `length` UTF-16 units starting with `prefix`. */
const ofLength = (prefix: string, length: number) => prefix + "a".repeat(length - prefix.length);
const uri = (length: number) => ofLength("https://app.example/", length);
const redirect = (length: number) => ofLength(`${REDIRECT_URI}/`, length);
const many = (count: number, make: (index: number) => string) => Array.from({ length: count }, (_, index) => make(index));

/** [member, the largest accepted value, the smallest refused one, the error code, what the description says]. */
const LIMITS: [string, unknown, unknown, string, string][] = [
  ["client_name", "n".repeat(200), "n".repeat(201), "invalid_client_metadata", "client_name: 201 characters (UTF-16 units), at most 200"],
  [
    "redirect_uris",
    many(10, (i) => `${REDIRECT_URI}/${i}`),
    many(11, (i) => `${REDIRECT_URI}/${i}`),
    "invalid_redirect_uri",
    "redirect_uris: 11 entries, at most 10",
  ],
  [
    "redirect_uris",
    [redirect(MAX_URI_LENGTH)],
    [redirect(MAX_URI_LENGTH + 1)],
    "invalid_redirect_uri",
    "an entry of redirect_uris: 2049 characters (UTF-16 units), at most 2048",
  ],
  [
    "client_uri",
    uri(MAX_URI_LENGTH),
    uri(MAX_URI_LENGTH + 1),
    "invalid_client_metadata",
    "client_uri: 2049 characters (UTF-16 units), at most 2048",
  ],
  ["logo_uri", uri(MAX_URI_LENGTH), uri(MAX_URI_LENGTH + 1), "invalid_client_metadata", "logo_uri: 2049 characters"],
  ["policy_uri", uri(MAX_URI_LENGTH), uri(MAX_URI_LENGTH + 1), "invalid_client_metadata", "policy_uri: 2049 characters"],
  ["tos_uri", uri(MAX_URI_LENGTH), uri(MAX_URI_LENGTH + 1), "invalid_client_metadata", "tos_uri: 2049 characters"],
  ["jwks_uri", uri(MAX_URI_LENGTH), uri(MAX_URI_LENGTH + 1), "invalid_client_metadata", "jwks_uri: 2049 characters"],
  [
    "contacts",
    many(10, (i) => `dev${i}@app.example`),
    many(11, (i) => `dev${i}@app.example`),
    "invalid_client_metadata",
    "contacts: 11 entries, at most 10",
  ],
  [
    "contacts",
    [ofLength("dev@", 320)],
    [ofLength("dev@", 321)],
    "invalid_client_metadata",
    "an entry of contacts: 321 characters (UTF-16 units), at most 320",
  ],
  ["scope", "s".repeat(1_024), "s".repeat(1_025), "invalid_client_metadata", "scope: 1025 characters (UTF-16 units), at most 1024"],
  [
    "grant_types",
    many(10, () => "authorization_code"),
    many(11, () => "authorization_code"),
    "invalid_client_metadata",
    "grant_types: 11 entries, at most 10",
  ],
  ["response_types", many(10, () => "code"), many(11, () => "code"), "invalid_client_metadata", "response_types: 11 entries, at most 10"],
  [
    "token_endpoint_auth_methods_supported",
    many(10, () => "none"),
    many(11, () => "none"),
    "invalid_client_metadata",
    "token_endpoint_auth_methods_supported: 11 entries, at most 10",
  ],
  ["software_id", "i".repeat(256), "i".repeat(257), "invalid_client_metadata", "software_id: 257 characters (UTF-16 units), at most 256"],
  [
    "software_version",
    "v".repeat(128),
    "v".repeat(129),
    "invalid_client_metadata",
    "software_version: 129 characters (UTF-16 units), at most 128",
  ],
];

describe("dynamic client registration limits", () => {
  for (const [member, largest, refused, code, description] of LIMITS) {
    it(`accepts ${member} at its limit and refuses it one past with ${code}: "${description}"`, async () => {
      expect((await register({ ...BASE, [member]: largest })).status).toBe(201);
      const before = await storedClients();
      const response = await register({ ...BASE, [member]: refused });
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: string; error_description: string };
      expect(body.error).toBe(code);
      expect(body.error_description).toContain(description);
      expect(await storedClients()).toBe(before);
    });
  }

  it("refuses the 100,000-character client_name and the 2,000 redirect URIs the review registered, storing nothing", async () => {
    const before = await storedClients();
    const name = await register({ ...BASE, client_name: "x".repeat(100_000) });
    const uris = await register({ ...BASE, redirect_uris: many(2_000, (i) => `${REDIRECT_URI}/${i}`) });
    expect([name.status, uris.status]).toEqual([400, 400]);
    expect(await name.json()).toMatchObject({
      error: "invalid_client_metadata",
      error_description: expect.stringContaining("client_name"),
    });
    expect(await uris.json()).toMatchObject({ error: "invalid_redirect_uri", error_description: expect.stringContaining("at most 10") });
    expect(await storedClients()).toBe(before);
  });

  it(`accepts a registration body of ${MAX_REGISTRATION_BYTES} bytes and refuses one byte more, naming the limit`, async () => {
    // Members the provider does not store count toward the body only.
    const padded = (bytes: number) => {
      const json = JSON.stringify({ ...BASE, padding: "" });
      return JSON.stringify({ ...BASE, padding: "p".repeat(bytes - json.length) });
    };
    expect(padded(MAX_REGISTRATION_BYTES).length).toBe(MAX_REGISTRATION_BYTES);
    expect((await register(padded(MAX_REGISTRATION_BYTES))).status).toBe(201);
    const before = await storedClients();
    const response = await register(padded(MAX_REGISTRATION_BYTES + 1));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: "invalid_client_metadata",
      error_description: `the registration: ${MAX_REGISTRATION_BYTES + 1} bytes, at most ${MAX_REGISTRATION_BYTES}`,
    });
    expect(await storedClients()).toBe(before);
  });

  it("counts the body in bytes as received: 6,000 three-byte characters are over the cap although 6,000 characters are not", async () => {
    const response = await register({ ...BASE, padding: "€".repeat(6_000) });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error_description: expect.stringMatching(/^the registration: \d+ bytes, at most 16384$/),
    });
  });

  it("bounds language-tagged members: at most 10, tags of at most 35 characters, values like their member", async () => {
    const variants = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`client_name#x-${i}`, "Name"]));
    expect((await register({ ...BASE, ...variants(10) })).status).toBe(201);
    const before = await storedClients();
    const tooMany = await register({ ...BASE, ...variants(11) });
    expect(await tooMany.json()).toMatchObject({
      error: "invalid_client_metadata",
      error_description: "language-tagged members: more than 10",
    });
    expect((await register({ ...BASE, [`client_name#${"t".repeat(35)}`]: "Name" })).status).toBe(201);
    const longTag = await register({ ...BASE, [`tos_uri#${"t".repeat(36)}`]: "https://app.example/tos" });
    expect(await longTag.json()).toMatchObject({
      error_description: "the language tag of tos_uri#...: 36 characters, at most 35",
    });
    const longName = await register({ ...BASE, "client_name#de": "n".repeat(201) });
    expect(await longName.json()).toMatchObject({ error_description: "client_name#de: 201 characters (UTF-16 units), at most 200" });
    expect([tooMany.status, longTag.status, longName.status]).toEqual([400, 400, 400]);
    expect(await storedClients()).toBe(before + 1);
  });

  it("refuses members of the wrong type that the provider would not look at (scope, software_id, software_version)", async () => {
    const before = await storedClients();
    for (const [member, value] of [
      ["scope", 5],
      ["software_id", { id: "x" }],
      ["software_version", ["1"]],
      ["scope", null],
    ] as const) {
      const response = await register({ ...BASE, [member]: value });
      expect(response.status, member).toBe(400);
      expect(await response.json()).toEqual({ error: "invalid_client_metadata", error_description: `${member} must be a string` });
    }
    expect(await storedClients()).toBe(before);
  });
});
