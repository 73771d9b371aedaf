import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { parseKeySpec } from "../../src/config/keys";
import { canonicalJson, importKeyRing, type KeyRing, open, seal } from "../../src/config/signing";
import { seedFor } from "../helpers/seed";

const key = (text: string) => btoa(text.padEnd(32, "!"));
const ring = (spec: string): Promise<KeyRing> => {
  const { keys, problems } = parseKeySpec(spec);
  expect(problems).toEqual([]);
  return importKeyRing(keys);
};

const PURPOSE = "mcp.requestState";
const BIND = { method: "tools/call", name: "delete_note", args: "digest-1", principal: "alice" };
const options = { purpose: PURPOSE, bind: BIND, maxLength: 16_384 };
const mint = (keys: KeyRing, body: unknown = { a: 1 }, ttlMs = 60_000, now?: number) =>
  seal(keys, { purpose: PURPOSE, bind: BIND, ttlMs, body, now });

describe("requestState codec", () => {
  it("round-trips a body through seal and open", async () => {
    const keys = await ring(`k1:${key("one")}`);
    const token = await mint(keys, { answers: { confirm: true }, note: "ü" });
    expect(token).toMatch(/^v2\.k1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(await open(keys, token, options)).toEqual({ ok: true, body: { answers: { confirm: true }, note: "ü" } });
  });

  it('rejects a flipped bit in the body or the MAC with reason "mac"', async () => {
    const keys = await ring(`k1:${key("one")}`);
    const token = await mint(keys);
    const [version, kid, payload, mac] = token.split(".") as [string, string, string, string];
    const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === "A" ? "B" : "A") + text.slice(at + 1);
    expect(await open(keys, [version, kid, flip(payload, 5), mac].join("."), options)).toEqual({ ok: false, reason: "mac" });
    expect(await open(keys, [version, kid, payload, flip(mac, 3)].join("."), options)).toEqual({ ok: false, reason: "mac" });
  });

  it('rejects a token minted under another key with reason "mac"', async () => {
    const token = await mint(await ring(`k1:${key("one")}`));
    expect(await open(await ring(`k1:${key("other")}`), token, options)).toEqual({ ok: false, reason: "mac" });
  });

  it('rejects an unknown key id with reason "kid", without trying other keys', async () => {
    const token = await mint(await ring(`old:${key("one")}`));
    expect(await open(await ring(`new:${key("one")}`), token, options)).toEqual({ ok: false, reason: "kid" });
  });

  it('rejects a token of another format version (one minted before an engine update) with reason "version", before any crypto', async () => {
    const keys = await ring(`k1:${key("one")}`);
    const [, kid, payload, mac] = (await mint(keys)).split(".") as [string, string, string, string];
    const verify = vi.spyOn(crypto.subtle, "verify");
    try {
      for (const version of ["v1", "v3", "v20"]) {
        expect(await open(keys, `${version}.${kid}.${payload}.${mac}`, options)).toEqual({ ok: false, reason: "version" });
      }
      expect(verify).not.toHaveBeenCalled();
    } finally {
      verify.mockRestore();
    }
  });

  it('rejects a missing or odd version, bad base64url, missing parts and oversize tokens with reason "malformed"', async () => {
    const keys = await ring(`k1:${key("one")}`);
    const [, kid, payload, mac] = (await mint(keys)).split(".") as [string, string, string, string];
    for (const bad of [
      `${kid}.${payload}.${mac}`,
      `V2.${kid}.${payload}.${mac}`,
      `v.${kid}.${payload}.${mac}`,
      `v12345.${kid}.${payload}.${mac}`,
      `v2.${kid}.${payload}!.${mac}`,
      `v2.${kid}.${payload}`,
      "",
      `v2.${kid}.${"A".repeat(20_000)}.${mac}`,
    ]) {
      expect(await open(keys, bad, options)).toEqual({ ok: false, reason: "malformed" });
    }
  });

  it("rejects a MAC spelled with different unused low bits (only the canonical base64url verifies)", async () => {
    const keys = await ring(`k1:${key("one")}`);
    const [, kid, payload, mac] = (await mint(keys)).split(".") as [string, string, string, string];
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const sibling = alphabet[alphabet.indexOf(mac.at(-1)!) ^ 1];
    expect(await open(keys, `v2.${kid}.${payload}.${mac.slice(0, -1)}${sibling}`, options)).toEqual({ ok: false, reason: "malformed" });
  });

  it('rejects an expired token with reason "expired"', async () => {
    const keys = await ring(`k1:${key("one")}`);
    const token = await mint(keys, {}, 1_000, Date.now() - 5_000);
    expect(await open(keys, token, options)).toEqual({ ok: false, reason: "expired" });
  });

  it('rejects a token used for another tool, other arguments, another principal or purpose with reason "mac" (the MAC covers the binding)', async () => {
    const keys = await ring(`k1:${key("one")}`);
    const token = await mint(keys);
    const others: Record<string, string>[] = [
      { ...BIND, name: "add_note" },
      { ...BIND, args: "digest-2" },
      { ...BIND, principal: "bob" },
      { ...BIND, method: "prompts/get" },
      { ...BIND, extra: "x" },
      { method: BIND.method, name: BIND.name, args: BIND.args },
      {},
    ];
    for (const bind of others) {
      expect(await open(keys, token, { ...options, bind })).toEqual({ ok: false, reason: "mac" });
    }
    expect(await open(keys, token, { ...options, purpose: "mcp.subscription" })).toEqual({ ok: false, reason: "mac" });
  });

  it("accepts the binding's names in any order (they are sorted before they are signed)", async () => {
    const keys = await ring(`k1:${key("one")}`);
    const token = await mint(keys);
    const reversed = Object.fromEntries(Object.entries(BIND).reverse());
    expect(await open(keys, token, { ...options, bind: reversed })).toEqual({ ok: true, body: { a: 1 } });
  });

  it("keeps values that only a naive join would confuse apart (a name or value holding the separators)", async () => {
    const keys = await ring(`k1:${key("one")}`);
    const token = await seal(keys, { purpose: PURPOSE, bind: { a: "1,b:2" }, ttlMs: 60_000, body: {} });
    expect((await open(keys, token, { ...options, bind: { a: "1", b: "2" } })).ok).toBe(false);
    expect((await open(keys, token, { ...options, bind: { "a:1,b": "2" } })).ok).toBe(false);
    expect((await open(keys, token, { ...options, bind: { a: "1,b:2" } })).ok).toBe(true);
  });

  it("computes one HMAC to seal and one to open, the binding included (a retry costs one MAC)", async () => {
    const keys = await ring(`k1:${key("one")}`);
    const sign = vi.spyOn(crypto.subtle, "sign");
    const verify = vi.spyOn(crypto.subtle, "verify");
    try {
      const token = await mint(keys);
      expect([sign.mock.calls.length, verify.mock.calls.length]).toEqual([1, 0]);
      expect((await open(keys, token, options)).ok).toBe(true);
      expect([sign.mock.calls.length, verify.mock.calls.length]).toEqual([1, 1]);
      expect(await open(keys, token, { ...options, bind: { ...BIND, args: "digest-2" } })).toEqual({ ok: false, reason: "mac" });
      expect([sign.mock.calls.length, verify.mock.calls.length]).toEqual([1, 2]);
    } finally {
      sign.mockRestore();
      verify.mockRestore();
    }
  });

  it("never embeds the bound values themselves (the principal stays out of the token)", async () => {
    const token = await mint(await ring(`k1:${key("one")}`));
    const payload = atob(token.split(".")[2]!.replace(/-/g, "+").replace(/_/g, "/"));
    expect(payload).not.toContain("alice");
    expect(payload).not.toContain("delete_note");
  });

  // Key rotation (tokens of the previous key verify until their expiry, new ones use the new key, a retired key's
  // tokens fail), in the codec and end to end: row 39 of test/checklist.test.ts.

  it("refuses keys shorter than 32 bytes and malformed key specs", () => {
    expect(parseKeySpec(`k1:${btoa("short")}`).problems).toEqual(['STATE_KEYS key "k1" is shorter than 32 bytes']);
    expect(parseKeySpec("no-kid-here").problems[0]).toContain("must look like");
    expect(parseKeySpec(`k1:***`).problems).toEqual(['STATE_KEYS key "k1" is not valid base64']);
    expect(parseKeySpec(`bad kid:${key("x")}`).problems[0]).toContain("must look like");
  });

  it("spells arguments canonically for the binding: key order never matters, values do", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: 2 }));
  });

  it("lets no single-character change or truncation of a valid token verify (property)", async () => {
    const keys = await ring(`k1:${key("one")}`);
    const token = await mint(keys, { answers: { confirm: { action: "accept" } } });
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.".split("");
    const { seed, numRuns } = seedFor("state-mutations", 2_000);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.record({ kind: fc.constant("replace" as const), at: fc.nat({ max: token.length - 1 }), char: fc.constantFrom(...alphabet) }),
          fc.record({ kind: fc.constant("insert" as const), at: fc.nat({ max: token.length }), char: fc.constantFrom(...alphabet) }),
          fc.record({ kind: fc.constant("delete" as const), at: fc.nat({ max: token.length - 1 }), char: fc.constant("") }),
        ),
        async ({ kind, at, char }) => {
          const mutated =
            kind === "replace"
              ? token.slice(0, at) + char + token.slice(at + 1)
              : kind === "insert"
                ? token.slice(0, at) + char + token.slice(at)
                : token.slice(0, at) + token.slice(at + 1);
          fc.pre(mutated !== token);
          expect((await open(keys, mutated, options)).ok).toBe(false);
        },
      ),
      { seed, numRuns },
    );
  });
});
