import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { base64url, decodeBase64urlStrict } from "../../src/util/encoding";
import { seedFor } from "../helpers/seed";

/** The definition the decoder keeps to: a string is accepted exactly when encoding its bytes gives it back. */
function byDefinition(value: string): Uint8Array | undefined {
  try {
    const bytes = Uint8Array.fromBase64(value, { alphabet: "base64url", lastChunkHandling: "loose" });
    return base64url(bytes) === value ? bytes : undefined;
  } catch {
    return undefined;
  }
}

describe("decodeBase64urlStrict", () => {
  it("decodes the canonical unpadded spelling of any bytes", () => {
    const bytes = new Uint8Array([0, 1, 2, 250, 251, 252, 253, 254, 255]);
    for (let length = 0; length <= bytes.length; length++) {
      const part = bytes.slice(0, length);
      expect(decodeBase64urlStrict(base64url(part))).toEqual(part);
    }
  });

  it("refuses padding, whitespace, the other alphabet, a 4n+1 length and a last character with unused bits set", () => {
    expect(decodeBase64urlStrict("AQ==")).toBeUndefined();
    expect(decodeBase64urlStrict("AQ")).toEqual(new Uint8Array([1]));
    expect(decodeBase64urlStrict("A Q")).toBeUndefined();
    expect(decodeBase64urlStrict("AQ\n")).toBeUndefined();
    expect(decodeBase64urlStrict("+/8")).toBeUndefined();
    expect(decodeBase64urlStrict("-_8")).toEqual(new Uint8Array([251, 255]));
    expect(decodeBase64urlStrict("AQID_")).toBeUndefined();
    // "AR" and "AQ" decode to the same byte with a loose decoder; only "AQ" is how it is written.
    expect(decodeBase64urlStrict("AR")).toBeUndefined();
    expect(decodeBase64urlStrict("AQE")).toEqual(new Uint8Array([1, 1]));
    expect(decodeBase64urlStrict("AQF")).toBeUndefined();
  });

  it("accepts exactly the strings its definition accepts (encoding the bytes gives the string back), for any string", () => {
    const { seed, numRuns } = seedFor("base64url-strict", 20_000);
    const character = fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/= \n.");
    fc.assert(
      fc.property(fc.array(character, { maxLength: 12 }), (characters) => {
        const value = characters.join("");
        expect(decodeBase64urlStrict(value)).toEqual(byDefinition(value));
      }),
      { seed, numRuns },
    );
  });
});
