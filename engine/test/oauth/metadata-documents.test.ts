/**
 * Client ID metadata documents (CIMD) in authorization-server mode, through the real Worker: the provider fetches a
 * client's https `client_id` (and, for `private_key_jwt`, the `jwks_uri` it names), so this server refuses, before
 * any fetch, a URL on this machine or its network in every spelling the URL parser accepts, at /authorize and at
 * /token; and it holds a document to the bounds of a registration. fetch is stubbed: a test sees every URL the
 * Worker tried to fetch.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { MAX_TOKEN_REQUEST_BYTES } from "../../src/oauth/token-endpoint";
import { authorizePath, authServer, formPost, REDIRECT_URI, stubFetch } from "../helpers/auth-server";
import { withLogs } from "../helpers/wire";

const call = authServer();
const DOCUMENT_URL = "https://client.example.com/oauth/client.json";
const document = (extra: Record<string, unknown> = {}) => ({
  client_id: DOCUMENT_URL,
  client_name: "Document Client",
  redirect_uris: [REDIRECT_URI],
  token_endpoint_auth_method: "none",
  ...extra,
});
/** A JWT-shaped client assertion, with a signature nobody checks: these requests are refused before that. */
const assertion = (claims: Record<string, unknown>) =>
  ['{"alg":"RS256"}', JSON.stringify(claims), "sig"]
    .map((part) => new TextEncoder().encode(part).toBase64({ alphabet: "base64url", omitPadding: true }))
    .join(".");
const basic = (user: string) => `Basic ${btoa(`${encodeURIComponent(user)}:secret`)}`;

afterEach(() => {
  vi.restoreAllMocks();
});

/** Loopback, private, link-local and local names, as written by a caller; the parser normalises most of them. */
const LOCAL_CLIENT_IDS = [
  "https://127.0.0.1:8787/client.json",
  "https://localhost/client.json",
  "https://LOCALHOST./client.json",
  "https://app.localhost/client.json",
  "https://0x7f000001/client.json",
  "https://2130706433/client.json",
  "https://017700000001/client.json",
  "https://127.1/client.json",
  "https://127.0.0.1./client.json",
  "https://%31%32%37.0.0.1/client.json",
  "https://\uff11\uff12\uff17.0.0.1/client.json",
  "https://0/client.json",
  "https://[::1]/client.json",
  "https://[::ffff:127.0.0.1]/client.json",
  "https://[0:0:0:0:0:0:0:1]/client.json",
  "https://10.0.0.8/client.json",
  "https://172.16.0.1/client.json",
  "https://192.168.1.1/client.json",
  "https://169.254.169.254/latest/meta-data",
  "https://[fc00::1]/client.json",
  "https://[fd12:3456::1]/client.json",
  "https://[fe80::1]/client.json",
  "https://router/client.json",
  "https://printer.local/client.json",
  "https://metadata.google.internal/computeMetadata",
  "https://nas.home.arpa/client.json",
  "https://host.localdomain/client.json",
];

describe("client metadata documents on this machine or its network", () => {
  for (const clientId of LOCAL_CLIENT_IDS) {
    it(`refuses ${clientId} at /authorize on the page, without fetching anything`, async () => {
      const fetched = stubFetch();
      const response = await call(authorizePath(clientId), { redirect: "manual" });
      expect(response.status).toBe(400);
      expect(response.headers.get("location")).toBeNull();
      const page = await response.text();
      expect(page).toContain("invalid_client");
      expect(page).toContain("a client ID metadata document must be published on a public domain");
      expect(fetched).toEqual([]);
    });
  }

  it("refuses them at /token too, wherever the request names its client: client_id, HTTP Basic or a client assertion", async () => {
    const fetched = stubFetch();
    const grant = { grant_type: "authorization_code", code: "a:b:c", code_verifier: "v".repeat(43), redirect_uri: REDIRECT_URI };
    for (const clientId of LOCAL_CLIENT_IDS) {
      const answers = [
        await call("/token", formPost({ ...grant, client_id: clientId })),
        await call("/token", formPost(grant, { authorization: basic(clientId) })),
        await call(
          "/token",
          formPost({
            ...grant,
            client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            client_assertion: assertion({ iss: clientId, sub: clientId }),
          }),
        ),
      ];
      for (const answer of answers) {
        expect(answer.status, clientId).toBe(401);
        expect(await answer.json()).toMatchObject({ error: "invalid_client", error_description: expect.stringContaining("public domain") });
      }
      // RFC 6749 §5.2: a client that tried HTTP Basic is told the scheme.
      expect(answers[1]!.headers.get("www-authenticate")).toMatch(/^Basic /);
    }
    expect(fetched).toEqual([]);
  });

  it("refuses a token request whose client it cannot read (Basic credentials or an assertion it cannot decode)", async () => {
    const fetched = stubFetch();
    const grant = { grant_type: "refresh_token", refresh_token: "a:b:c" };
    const garbledBasic = await call("/token", formPost(grant, { authorization: "Basic %%%" }));
    const garbledAssertion = await call("/token", formPost({ ...grant, client_assertion: "x.%%%.y", client_assertion_type: "jwt" }));
    for (const answer of [garbledBasic, garbledAssertion]) {
      expect(answer.status).toBe(401);
      expect(await answer.json()).toMatchObject({ error: "invalid_client", error_description: "the client could not be identified" });
    }
    expect(fetched).toEqual([]);
  });

  it("refuses a public document whose jwks_uri is local, at /token, before the provider fetches that key set", async () => {
    const keysUrl = "https://10.1.2.3/jwks.json";
    const fetched = stubFetch({ [DOCUMENT_URL]: document({ token_endpoint_auth_method: "private_key_jwt", jwks_uri: keysUrl }) });
    const response = await call(
      "/token",
      formPost({
        grant_type: "authorization_code",
        code: "a:b:c",
        code_verifier: "v".repeat(43),
        redirect_uri: REDIRECT_URI,
        client_id: DOCUMENT_URL,
        client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
        // Valid in every claim the provider checks before it fetches the key set to check the signature.
        client_assertion: assertion({
          iss: DOCUMENT_URL,
          sub: DOCUMENT_URL,
          aud: "http://localhost:8787/token",
          exp: Math.floor(Date.now() / 1000) + 300,
          jti: "jti-1",
        }),
      }),
    );
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({
      error: "invalid_client",
      error_description: expect.stringContaining("jwks_uri names an IP address"),
    });
    expect(fetched).not.toContain(keysUrl);
  });

  it("refuses a client_id longer than 2,048 characters at /authorize and /token, without fetching it", async () => {
    const fetched = stubFetch();
    const long = `https://client.example.com/${"p".repeat(2_048)}`;
    const page = await call(authorizePath(long));
    expect(page.status).toBe(400);
    expect(await page.text()).toContain(`client_id: ${long.length} characters (UTF-16 units), at most 2048`);
    const token = await call("/token", formPost({ grant_type: "refresh_token", refresh_token: "a:b:c", client_id: long }));
    expect(token.status).toBe(401);
    expect(fetched).toEqual([]);
  });

  it("still fetches a document on a public domain and shows its consent page", async () => {
    const fetched = stubFetch({ [DOCUMENT_URL]: document() });
    const response = await call(authorizePath(DOCUMENT_URL));
    expect(response.status).toBe(200);
    expect(await response.text()).toContain("Document Client");
    expect(fetched).toContain(DOCUMENT_URL);
  });
});

describe("client metadata documents are held to the bounds of a registration", () => {
  it("refuses a document whose client_name is over 200 characters, on the page, naming the member and the limit", async () => {
    stubFetch({ [DOCUMENT_URL]: document({ client_name: "n".repeat(201) }) });
    const response = await call(authorizePath(DOCUMENT_URL));
    expect(response.status).toBe(400);
    const page = await response.text();
    expect(page).toContain("invalid_client_metadata");
    expect(page).toContain("client_name: 201 characters (UTF-16 units), at most 200");
  });

  it("refuses a document with more than 10 redirect URIs (invalid_redirect_uri)", async () => {
    const uris = Array.from({ length: 11 }, (_, index) => `${REDIRECT_URI}/${index}`);
    stubFetch({ [DOCUMENT_URL]: document({ redirect_uris: [REDIRECT_URI, ...uris] }) });
    const page = await (await call(authorizePath(DOCUMENT_URL))).text();
    expect(page).toContain("invalid_redirect_uri");
    expect(page).toContain("redirect_uris: 12 entries, at most 10");
  });

  it("refuses, at /authorize, a document whose jwks_uri is local", async () => {
    stubFetch({ [DOCUMENT_URL]: document({ jwks_uri: "https://[fd00::5]/jwks.json" }) });
    const page = await (await call(authorizePath(DOCUMENT_URL))).text();
    expect(page).toContain("jwks_uri names an IP address, not a domain: a client&#39;s key set must be published on a public domain");
  });
});

describe("the token request's size", () => {
  it(`refuses a token request over ${MAX_TOKEN_REQUEST_BYTES} bytes with 413 invalid_request`, async () => {
    const response = await call("/token", formPost({ grant_type: "refresh_token", refresh_token: "r".repeat(MAX_TOKEN_REQUEST_BYTES) }));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      error: "invalid_request",
      error_description: `the token request is larger than ${MAX_TOKEN_REQUEST_BYTES} bytes`,
    });
  });

  it(`hands a request of ${MAX_TOKEN_REQUEST_BYTES} bytes to the provider, which answers it`, async () => {
    const fields = { grant_type: "refresh_token", client_id: "unknown-client", refresh_token: "" };
    const size = new URLSearchParams(fields).toString().length;
    const { value: response, entries } = await withLogs(() =>
      call("/token", formPost({ ...fields, refresh_token: "r".repeat(MAX_TOKEN_REQUEST_BYTES - size) })),
    );
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: "invalid_client", error_description: "Client not found" });
    // The provider logs the errors it answers: the code and why, never the request.
    expect(entries).toEqual([{ level: "warn", message: "oauth error", code: "invalid_client", status: 401, reason: "client_not_found" }]);
  });
});

describe("how a metadata document's client authenticates at /token (SEP-3149)", () => {
  const KEYS = { jwks_uri: "https://client.example.com/oauth/jwks.json" };
  const redeem = () =>
    call(
      "/token",
      formPost({
        grant_type: "authorization_code",
        code: "u:g:s",
        code_verifier: "v".repeat(43),
        redirect_uri: REDIRECT_URI,
        client_id: DOCUMENT_URL,
      }),
    );
  /**
   * What a token request without a client assertion (`none`) gets for a document: our refusal, or the provider's
   * answer. The provider's is always invalid_grant (the code is made up), and it logs it; our refusals log nothing.
   */
  const tokenAnswerFor = async (extra: Record<string, unknown>) => {
    stubFetch({ [DOCUMENT_URL]: document(extra) });
    const { value: response, entries } = await withLogs(redeem);
    const answer = { status: response.status, body: (await response.json()) as { error: string; error_description?: string } };
    const logged = { level: "warn", message: "oauth error", code: "invalid_grant", status: 400, reason: "grant_not_found" };
    expect(entries).toEqual(answer.body.error === "invalid_grant" ? [logged] : []);
    return answer;
  };

  it("refuses none when the document shares an authenticated method with this server (private_key_jwt with a key set)", async () => {
    for (const extra of [
      { token_endpoint_auth_methods_supported: ["none", "private_key_jwt"], ...KEYS },
      { token_endpoint_auth_methods_supported: ["private_key_jwt"], token_endpoint_auth_method: "private_key_jwt", ...KEYS },
    ]) {
      expect(await tokenAnswerFor(extra)).toEqual({
        status: 401,
        body: {
          error: "invalid_client",
          error_description: "this client must authenticate with private_key_jwt: its metadata document offers it",
        },
      });
    }
  });

  it("lets none through to the provider when none is all the two share: listed alone, or private_key_jwt without a key set", async () => {
    for (const extra of [
      { token_endpoint_auth_methods_supported: ["none"] },
      { token_endpoint_auth_methods_supported: ["private_key_jwt", "none"] },
    ]) {
      // The provider's own answer to a made-up code: the request passed this server's check.
      expect((await tokenAnswerFor(extra)).body.error).toBe("invalid_grant");
    }
  });

  it("reads a document without the member as none during the phase-in, unless its single method names private_key_jwt", async () => {
    expect((await tokenAnswerFor({ token_endpoint_auth_method: "none" })).body.error).toBe("invalid_grant");
    expect((await tokenAnswerFor({ token_endpoint_auth_method: undefined })).body.error).toBe("invalid_grant");
    expect(await tokenAnswerFor({ token_endpoint_auth_method: "private_key_jwt", ...KEYS })).toMatchObject({
      status: 401,
      body: { error_description: "this client must authenticate with private_key_jwt: its metadata document offers it" },
    });
  });

  it("refuses a document that shares no method with this server (client_secret_* cannot be a document's), at /authorize and /token", async () => {
    const problem =
      "no token endpoint authentication method in common: this server takes private_key_jwt or none (with a jwks_uri or jwks for private_key_jwt) from a metadata document's client";
    const extra = { token_endpoint_auth_methods_supported: ["client_secret_basic"], token_endpoint_auth_method: "client_secret_basic" };
    stubFetch({ [DOCUMENT_URL]: document(extra) });
    const page = await call(authorizePath(DOCUMENT_URL));
    expect(page.status).toBe(400);
    const html = await page.text();
    expect(html).toContain("invalid_client");
    expect(html).toContain(problem.replaceAll("'", "&#39;"));
    expect(await tokenAnswerFor(extra)).toEqual({ status: 401, body: { error: "invalid_client", error_description: problem } });
  });

  it("refuses a list that is not 1 to 10 method names, naming the member, at /authorize and /token", async () => {
    const problem = "token_endpoint_auth_methods_supported must be an array of 1 to 10 method names (strings)";
    for (const listed of ["none", [], [1], ["none", null], { 0: "none" }, Array(11).fill("none")]) {
      stubFetch({ [DOCUMENT_URL]: document({ token_endpoint_auth_methods_supported: listed }) });
      const page = await call(authorizePath(DOCUMENT_URL));
      expect(page.status, JSON.stringify(listed)).toBe(400);
      expect(await page.text()).toContain(problem);
      expect(await tokenAnswerFor({ token_endpoint_auth_methods_supported: listed })).toEqual({
        status: 401,
        body: { error: "invalid_client", error_description: problem },
      });
    }
  });

  it("shows the consent page of a document whose methods it can use", async () => {
    stubFetch({ [DOCUMENT_URL]: document({ token_endpoint_auth_methods_supported: ["none"] }) });
    expect((await call(authorizePath(DOCUMENT_URL))).status).toBe(200);
  });
});
