/**
 * The access-token verifier of the resource-server mode (src/auth/jwt.ts, src/auth/jwks.ts), in workerd's WebCrypto. Well-formed
 * tokens are minted with jose (a dev tool here: the engine does not use it), so acceptance is checked against an
 * independent implementation; malformed ones are hand-made and signed with WebCrypto, so each is refused by the
 * check it names and not by an earlier one. Outbound fetches of the key set are stubbed and counted.
 */
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { JWKS_MAX_BYTES, type Jwk, localKeySet, pickKey, remoteKeySet } from "../../src/auth/jwks";
import { type JwtRules, verifyAccessToken } from "../../src/auth/jwt";
import { base64url } from "../../src/util/encoding";
import { FIXTURE } from "../helpers/fixture";
import { readMessage, testServer } from "../helpers/rpc";

const ISSUER = "https://issuer.example";
const AUDIENCE = "https://mcp.example/mcp";
const ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];
const RULES: JwtRules = { issuer: ISSUER, audience: AUDIENCE, algorithms: ALGORITHMS };
const JWKS_URL = "https://issuer.example/.well-known/jwks.json";

type Pair = { privateKey: CryptoKey; publicKey: CryptoKey; jwk: Jwk };
const pairs: Record<string, Pair> = {};
const pair = (kid: string) => pairs[kid]!;
/** The public keys, each under its kid (no `alg`, so an RSA key serves RS* and PS*). */
const jwk = (kid: string, extra: Jwk = {}): Jwk => ({ ...pair(kid).jwk, kid, ...extra });
let keys: ReturnType<typeof localKeySet>;

beforeAll(async () => {
  const make = async (kid: string, alg: string, options: Record<string, unknown> = {}) => {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, ...options });
    pairs[kid] = { privateKey, publicKey, jwk: (await exportJWK(publicKey)) as Jwk };
  };
  await Promise.all([
    make("rs256", "RS256"),
    make("ps256", "PS256"),
    make("es256", "ES256"),
    make("es256-b", "ES256"),
    make("es384", "ES384"),
    make("es512", "ES512"),
    make("ed25519", "EdDSA", { crv: "Ed25519" }),
  ]);
  // jose refuses to make an RSA key under 2048 bits, so this one comes from WebCrypto directly.
  const short = (await crypto.subtle.generateKey(
    { name: "RSASSA-PKCS1-v1_5", modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    true,
    ["sign", "verify"],
  )) as CryptoKeyPair;
  pairs.rs1024 = {
    ...short,
    jwk: (await crypto.subtle.exportKey("jwk", short.publicKey)) as unknown as Jwk,
  };
  keys = localKeySet({ keys: ["rs256", "ps256", "es256", "es384", "es512", "ed25519", "rs1024"].map((kid) => jwk(kid)) });
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

const now = () => Math.floor(Date.now() / 1000);
const claims = (overrides: Record<string, unknown> = {}) => ({
  iss: ISSUER,
  aud: AUDIENCE,
  sub: "alice",
  iat: now(),
  exp: now() + 300,
  ...overrides,
});

/** A token minted by jose. */
function mint(alg: string, kid: string | undefined, payload: Record<string, unknown> = claims(), key = pair(kid ?? "es256")) {
  return new SignJWT(payload).setProtectedHeader({ alg, ...(kid && { kid }), typ: "JWT" }).sign(key.privateKey);
}

const utf8 = (text: string) => new TextEncoder().encode(text);
const segment = (value: unknown) => base64url(utf8(typeof value === "string" ? value : JSON.stringify(value)));
const SIGNERS: Record<string, SubtleCryptoSignAlgorithm> = {
  ES256: { name: "ECDSA", hash: "SHA-256" },
  RS256: { name: "RSASSA-PKCS1-v1_5" },
};

/**
 * A hand-made token: any header and payload (a string is taken as JSON text as is), signed with WebCrypto as
 * `signAs` (ES256 by default, with the es256 key), so that only the part under test is wrong.
 */
async function handMade(header: Record<string, unknown>, payload: unknown = claims(), kid = "es256", signAs = "ES256") {
  const signed = `${segment({ alg: signAs, kid, ...header })}.${segment(payload)}`;
  const signature = await crypto.subtle.sign(SIGNERS[signAs]!, pair(kid).privateKey, utf8(signed));
  return `${signed}.${base64url(signature)}`;
}

const verify = (token: string, rules: Partial<JwtRules> = {}, keySet = keys) => verifyAccessToken(token, keySet, { ...RULES, ...rules });

describe("JWT verification: what is accepted", () => {
  const signedBy: [string, string][] = [
    ["RS256", "rs256"],
    ["PS256", "ps256"],
    ["ES256", "es256"],
    ["ES384", "es384"],
    ["ES512", "es512"],
    ["EdDSA", "ed25519"],
  ];
  for (const [alg, kid] of signedBy) {
    it(`accepts a ${alg} token signed by the key its kid names, and returns its claims`, async () => {
      const verified = await verify(await mint(alg, kid, claims({ scope: "notes" })));
      expect(verified).toMatchObject({ sub: "alice", iss: ISSUER, scope: "notes" });
    });
  }

  it("accepts an audience list that contains this server's audience", async () => {
    await expect(verify(await handMade({}, claims({ aud: ["https://other.example", AUDIENCE] })))).resolves.toMatchObject({ sub: "alice" });
  });

  it("accepts the access-token types JWT, at+jwt and application/at+jwt in any case, and no typ", async () => {
    for (const typ of ["JWT", "jwt", "at+jwt", "application/at+JWT", "application/jwt", undefined]) {
      await expect(verify(await handMade({ typ })), String(typ)).resolves.toMatchObject({ sub: "alice" });
    }
  });

  it("accepts a token expired by less than the 30 s clock tolerance, and one valid from, or issued, less than 30 s from now", async () => {
    await expect(verify(await handMade({}, claims({ exp: now() - 25 })))).resolves.toBeDefined();
    await expect(verify(await handMade({}, claims({ nbf: now() + 25 })))).resolves.toBeDefined();
    await expect(verify(await handMade({}, claims({ iat: now() + 25 })))).resolves.toBeDefined();
  });
});

describe("JWT verification: the header and the signature", () => {
  it("refuses alg none, even when the allow-list names it", async () => {
    const unsigned = `${segment({ alg: "none", kid: "es256" })}.${segment(claims())}.`;
    await expect(verify(unsigned)).rejects.toThrow("algorithm not allowed");
    await expect(verify(unsigned, { algorithms: [...ALGORITHMS, "none"] })).rejects.toThrow("algorithm not allowed");
  });

  it("refuses HS256, even with a matching oct key in the set and HS256 in the allow-list", async () => {
    const secret = crypto.getRandomValues(new Uint8Array(32));
    const hmac = await crypto.subtle.importKey("raw", secret, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const signed = `${segment({ alg: "HS256", kid: "oct" })}.${segment(claims())}`;
    const token = `${signed}.${base64url(await crypto.subtle.sign("HMAC", hmac, utf8(signed)))}`;
    const withOct = localKeySet({ keys: [{ kty: "oct", k: base64url(secret), kid: "oct" }] });
    await expect(verify(token, { algorithms: [...ALGORITHMS, "HS256"] }, withOct)).rejects.toThrow("algorithm not allowed");
  });

  it("refuses an algorithm outside the allow-list (ES384 when only RS256 and ES256 are allowed)", async () => {
    const token = await mint("ES384", "es384");
    await expect(verify(token, { algorithms: ["RS256", "ES256"] })).rejects.toThrow("algorithm not allowed");
  });

  it("refuses a key of the wrong type or curve for the algorithm", async () => {
    // An ES256 signature checked against the RSA key its kid names, and an ES384 one against a P-256 key.
    await expect(verify(await handMade({ kid: "rs256" }))).rejects.toThrow("no key fits");
    const es384 = await mint("ES384", "es384");
    const onP256 = localKeySet({ keys: [{ ...jwk("es256"), kid: "es384" }] });
    await expect(verify(es384, {}, onP256)).rejects.toThrow("no key fits");
    // An Ed25519 key for ES256 and a P-256 key for EdDSA.
    expect(pickKey([jwk("ed25519")], "ES256", undefined)).toBeUndefined();
    expect(pickKey([jwk("es256")], "EdDSA", undefined)).toBeUndefined();
  });

  it("refuses an RSA key shorter than 2048 bits", async () => {
    await expect(verify(await handMade({}, claims(), "rs1024", "RS256"))).rejects.toThrow("2048");
  });

  it("refuses a key published for encryption, for other operations, for another algorithm, or as a private key", async () => {
    const token = await handMade({});
    const cases: Jwk[] = [{ use: "enc" }, { key_ops: ["encrypt"] }, { key_ops: "verify" }, { alg: "ES384" }, { d: "AAAA" }];
    for (const extra of cases) {
      const set = localKeySet({ keys: [jwk("es256", extra)] });
      await expect(verify(token, {}, set), JSON.stringify(extra)).rejects.toThrow("no key fits");
    }
    // The same key with use "sig", key_ops ["verify"] and its own alg is accepted.
    const fine = localKeySet({ keys: [jwk("es256", { use: "sig", key_ops: ["verify"], alg: "ES256" })] });
    await expect(verify(token, {}, fine)).resolves.toBeDefined();
  });

  it("refuses a header with crit, whatever it lists", async () => {
    for (const crit of [["exp"], ["b64"], []]) {
      await expect(verify(await handMade({ crit, exp: 1 })), JSON.stringify(crit)).rejects.toThrow("crit");
    }
  });

  it("refuses an unencoded payload (b64 false)", async () => {
    await expect(verify(await handMade({ b64: false }))).rejects.toThrow("b64");
  });

  it("refuses a typ other than an access token's (a DPoP proof, a logout token)", async () => {
    for (const typ of ["dpop+jwt", "logout+jwt", "JOSE", 1]) {
      await expect(verify(await handMade({ typ })), String(typ)).rejects.toThrow("typ");
    }
  });

  it("refuses a kid that is not a string", async () => {
    await expect(verify(await handMade({ kid: 1 }))).rejects.toThrow("kid");
  });

  it("refuses a signature of the wrong length, truncated or extended", async () => {
    const [head, body, signature] = (await handMade({})).split(".") as [string, string, string];
    const bytes = Uint8Array.fromBase64(signature, { alphabet: "base64url" });
    for (const wrong of [bytes.subarray(0, 63), new Uint8Array([...bytes, 0]), new Uint8Array(0)]) {
      await expect(verify(`${head}.${body}.${base64url(wrong)}`), String(wrong.length)).rejects.toThrow("signature malformed");
    }
  });

  it("refuses a tampered payload, and a signature by another key", async () => {
    const [head, , signature] = (await handMade({})).split(".");
    await expect(verify(`${head}.${segment(claims({ sub: "mallory" }))}.${signature}`)).rejects.toThrow(/: signature$/);
    await expect(verify(await handMade({ kid: "es256" }, claims(), "es256-b"))).rejects.toThrow(/: signature$/);
  });

  it("refuses a token of four or two segments", async () => {
    const token = await handMade({});
    await expect(verify(`${token}.${token.split(".")[2]}`)).rejects.toThrow("three segments");
    await expect(verify(token.split(".").slice(0, 2).join("."))).rejects.toThrow("three segments");
  });

  it("refuses base64url with padding or with unused bits set, in the header and in the signature", async () => {
    const [head, body, signature] = (await handMade({})).split(".") as [string, string, string];
    // A 64-byte signature is 86 characters: the last one carries 2 unused bits, and "==" would complete the quantum.
    expect(signature.length).toBe(86);
    await expect(verify(`${head}.${body}.${signature}==`)).rejects.toThrow("signature malformed");
    const last = signature.at(-1)!;
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const sameBytes = alphabet[alphabet.indexOf(last) ^ 1]!;
    await expect(verify(`${head}.${body}.${signature.slice(0, -1)}${sameBytes}`)).rejects.toThrow("signature malformed");
    // A header whose JSON is padded: the same bytes, spelled with "=".
    const padded = ["", "a", "aa"].map((x) => segment({ alg: "ES256", kid: "es256", x })).find((text) => text.length % 4 !== 0)!;
    await expect(verify(`${padded}${"=".repeat(4 - (padded.length % 4))}.${body}.${signature}`)).rejects.toThrow("JSON object");
  });

  it("refuses a header or payload that is not a JSON object", async () => {
    for (const payload of ["[1]", '"alice"', "null", "{", "3"]) {
      await expect(verify(await handMade({}, payload)), payload).rejects.toThrow("JSON object");
    }
    const body = segment(claims());
    await expect(verify(`${segment("[]")}.${body}.AAAA`)).rejects.toThrow("JSON object");
    await expect(verify(`${base64url(new Uint8Array([0xff, 0x7b, 0x7d]))}.${body}.AAAA`)).rejects.toThrow("JSON object");
  });
});

describe("JWT verification: the claims", () => {
  const refused: [string, Record<string, unknown>, string][] = [
    ["from another issuer", { iss: "https://evil.example" }, "iss"],
    ["without an issuer", { iss: undefined }, "iss"],
    ["for another audience", { aud: "https://other.example/mcp" }, "aud"],
    ["for a list of other audiences", { aud: ["https://other.example/mcp"] }, "aud"],
    ["without an audience", { aud: undefined }, "aud"],
    ["without a subject", { sub: undefined }, "sub"],
    ["with an empty subject", { sub: "" }, "sub"],
    ["with a numeric subject", { sub: 42 }, "sub"],
    ["without an expiry", { exp: undefined }, "exp"],
    ["with an expiry that is not a number", { exp: String(now() + 300) }, "exp"],
    ["expired more than 30 s ago", { exp: now() - 35 }, "exp"],
    ["not valid until more than 30 s from now", { nbf: now() + 35 }, "nbf"],
    ["with an nbf that is not a number", { nbf: "now" }, "nbf"],
    ["with an iat that is not a number", { iat: "today" }, "iat"],
    ["issued (iat) more than 30 s from now", { iat: now() + 35 }, "iat"],
    ["issued (iat) a year from now", { iat: now() + 365 * 86_400, exp: now() + 366 * 86_400 }, "iat"],
  ];
  for (const [name, overrides, check] of refused) {
    it(`refuses a token ${name}`, async () => {
      await expect(verify(await handMade({}, claims(overrides)))).rejects.toThrow(check);
    });
  }

  it("refuses an expiry of 1e999 (JSON's way to spell infinity)", async () => {
    const payload = JSON.stringify(claims({ exp: 0 })).replace('"exp":0', '"exp":1e999');
    await expect(verify(await handMade({}, payload))).rejects.toThrow("exp");
  });
});

describe("JWT verification: choosing the key", () => {
  it("picks the key its kid names among keys of the same type", async () => {
    const set = localKeySet({ keys: [jwk("es256"), jwk("es256-b")] });
    await expect(verify(await handMade({ kid: "es256-b" }, claims(), "es256-b"), {}, set)).resolves.toBeDefined();
    await expect(verify(await handMade({ kid: "es256" }, claims(), "es256-b"), {}, set)).rejects.toThrow(/: signature$/);
  });

  it("uses the only key that fits when the token names no kid, and refuses when several fit", async () => {
    const token = await handMade({ kid: undefined });
    const single = localKeySet({ keys: [jwk("es256", { kid: undefined }), jwk("rs256"), jwk("es384")] });
    await expect(verify(token, {}, single)).resolves.toBeDefined();
    const several = localKeySet({ keys: [jwk("es256"), jwk("es256-b")] });
    await expect(verify(token, {}, several)).rejects.toThrow("several keys");
  });

  it("refuses a kid the set does not have", async () => {
    await expect(verify(await handMade({ kid: "unknown" }))).rejects.toThrow("no key fits");
  });

  it("refuses a malformed inline set whole", () => {
    for (const jwks of [[], { keys: {} }, { keys: [jwk("es256"), 1] }, null]) {
      expect(() => localKeySet(jwks), JSON.stringify(jwks)).toThrow("not a JWK Set");
    }
  });
});

/** Stubs the issuer's JWKS URL; `answer` decides each response. Returns the fetches made, with their options. */
function stubJwks(answer: (count: number) => Response | Promise<Response>) {
  const fetches: RequestInit[] = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    expect(String(input)).toBe(JWKS_URL);
    fetches.push(init ?? {});
    return answer(fetches.length);
  });
  return fetches;
}
const jwksResponse = (...kids: string[]) => Response.json({ keys: kids.map((kid) => jwk(kid)) });

describe("JWT verification: the issuer's key set fetched from AUTH_JWKS_URL", () => {
  it("fetches the set once without following redirects, serves it from the cache for 10 minutes, then fetches again", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const fetches = stubJwks(() => jwksResponse("es256"));
    const set = remoteKeySet(JWKS_URL);
    for (let i = 0; i < 3; i++) await verify(await handMade({}), {}, set);
    expect(fetches).toHaveLength(1);
    expect(fetches[0]).toMatchObject({ redirect: "manual" });
    expect(fetches[0]!.signal).toBeInstanceOf(AbortSignal);
    vi.setSystemTime(Date.now() + 599_000);
    await verify(await handMade({}), {}, set);
    expect(fetches).toHaveLength(1);
    vi.setSystemTime(Date.now() + 2_000);
    await verify(await handMade({}), {}, set);
    expect(fetches).toHaveLength(2);
  });

  it("refetches once for an unknown kid and then refuses it, and refetches at most once per 30 s", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const fetches = stubJwks(() => jwksResponse("es256"));
    const set = remoteKeySet(JWKS_URL);
    await verify(await handMade({}), {}, set);
    const unknown = await handMade({ kid: "es256-b" }, claims(), "es256-b");
    // Right after a fetch, an unknown kid causes none: the set is fresh.
    await expect(verify(unknown, {}, set)).rejects.toThrow("no key fits");
    expect(fetches).toHaveLength(1);
    vi.setSystemTime(Date.now() + 31_000);
    await expect(verify(unknown, {}, set)).rejects.toThrow("no key fits");
    expect(fetches).toHaveLength(2);
    for (let i = 0; i < 5; i++) await expect(verify(unknown, {}, set)).rejects.toThrow("no key fits");
    expect(fetches).toHaveLength(2);
    vi.setSystemTime(Date.now() + 31_000);
    await expect(verify(unknown, {}, set)).rejects.toThrow("no key fits");
    expect(fetches).toHaveLength(3);
  });

  it("accepts a key the issuer rotated in, found by the refetch", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const fetches = stubJwks((count) => (count === 1 ? jwksResponse("es256") : jwksResponse("es256", "es256-b")));
    const set = remoteKeySet(JWKS_URL);
    await verify(await handMade({}), {}, set);
    vi.setSystemTime(Date.now() + 31_000);
    await expect(verify(await handMade({ kid: "es256-b" }, claims(), "es256-b"), {}, set)).resolves.toBeDefined();
    expect(fetches).toHaveLength(2);
  });

  it("refuses a set over 256 KiB, declared or streamed, and accepts one just under", async () => {
    const valid = JSON.stringify({ keys: [jwk("es256")] });
    const padded = (size: number) => valid.padEnd(size, " ");
    const streamed = (text: string) =>
      new ReadableStream({
        start(controller) {
          const bytes = utf8(text);
          for (let i = 0; i < bytes.length; i += 16_384) controller.enqueue(bytes.subarray(i, i + 16_384));
          controller.close();
        },
      });
    const tooLarge = [
      () => new Response(padded(JWKS_MAX_BYTES + 1)),
      () => new Response(streamed(padded(JWKS_MAX_BYTES + 1))),
      () => new Response(valid, { headers: { "content-length": String(JWKS_MAX_BYTES + 1) } }),
    ];
    for (const answer of tooLarge) {
      stubJwks(answer);
      await expect(verify(await handMade({}), {}, remoteKeySet(JWKS_URL))).rejects.toThrow("not fetched");
      vi.restoreAllMocks();
    }
    stubJwks(() => new Response(streamed(padded(JWKS_MAX_BYTES))));
    await expect(verify(await handMade({}), {}, remoteKeySet(JWKS_URL))).resolves.toBeDefined();
  });

  it("refuses an answer other than 200 (a redirect, an error, no content), and fetches again on the next token", async () => {
    const answers = [
      () => new Response(null, { status: 302, headers: { location: "https://evil.example/jwks.json" } }),
      () => new Response(JSON.stringify({ keys: [jwk("es256")] }), { status: 500 }),
      () => new Response(JSON.stringify({ keys: [jwk("es256")] }), { status: 201 }),
      () => new Response(null, { status: 204 }),
    ];
    for (const answer of answers) {
      const fetches = stubJwks((count) => (count === 1 ? answer() : jwksResponse("es256")));
      const set = remoteKeySet(JWKS_URL);
      await expect(verify(await handMade({}), {}, set)).rejects.toThrow("not fetched");
      // The failure is not cached as a key set: the next token fetches again, and succeeds.
      await expect(verify(await handMade({}), {}, set)).resolves.toBeDefined();
      expect(fetches).toHaveLength(2);
      vi.restoreAllMocks();
    }
  });

  it("refuses an answer that is not a JWK Set ({keys: [...]}) or not UTF-8 JSON", async () => {
    for (const body of ["[]", '{"keys":{}}', '{"keys":[1]}', '{"keys":', "<html>", new Uint8Array([0xff, 0xfe])]) {
      stubJwks(() => new Response(body));
      await expect(verify(await handMade({}), {}, remoteKeySet(JWKS_URL)), String(body)).rejects.toThrow();
      vi.restoreAllMocks();
    }
  });

  it("shares one fetch between concurrent tokens, whether it succeeds or fails", async () => {
    for (const succeeds of [true, false]) {
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const fetches = stubJwks(async () => {
        await released;
        return succeeds ? jwksResponse("es256") : new Response("down", { status: 503 });
      });
      const set = remoteKeySet(JWKS_URL);
      const token = await handMade({});
      const pending = Array.from({ length: 5 }, () =>
        verify(token, {}, set).then(
          () => "accepted",
          () => "refused",
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 10));
      release();
      expect(await Promise.all(pending)).toEqual(Array(5).fill(succeeds ? "accepted" : "refused"));
      expect(fetches).toHaveLength(1);
      vi.restoreAllMocks();
    }
  });

  it("serves a Worker configured with AUTH_JWKS_URL: a valid token is accepted, a token it cannot check gets 401", async () => {
    const fetches = stubJwks(() => jwksResponse("es256"));
    const server = testServer(FIXTURE, { AUTH_ISSUER: ISSUER, AUTH_JWKS_URL: JWKS_URL, AUTH_AUDIENCE: AUDIENCE });
    const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
    const accepted = await server.send("tools/call", { name: "echo", arguments: {} }, as(await handMade({})));
    expect(accepted.status).toBe(200);
    expect((await readMessage(accepted)).result?.structuredContent).toMatchObject({ principal: "alice", authenticated: true });
    const refused = await server.send("tools/list", {}, as(await handMade({}, claims({ aud: "https://other.example/mcp" }))));
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(fetches).toHaveLength(1);
  });
});
