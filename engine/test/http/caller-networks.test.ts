/**
 * The networks of the addresses an isolate has seen are remembered (src/http/client-address.ts), bounded: what is
 * remembered must always be the network the address is, however many addresses came and went.
 */
import { describe, expect, it } from "vitest";
import { clientNetwork } from "../../src/http/client-address";

const from = (address: string) => clientNetwork(new Request("http://localhost/mcp", { headers: { "cf-connecting-ip": address } }));

describe("a remembered network", () => {
  it("is the address's own network on every request, after thousands of other addresses pushed older ones out", () => {
    expect(from("198.51.100.7")).toBe("ip4:198.51.100.7");
    for (let i = 0; i < 3_000; i++) {
      const address = `10.${(i >> 8) & 255}.${i & 255}.1`;
      expect(from(address)).toBe(`ip4:${address}`);
      expect(from(address)).toBe(`ip4:${address}`);
    }
    expect(from("198.51.100.7")).toBe("ip4:198.51.100.7");
    expect(from("2001:db8::1")).toBe("ip6:2001:db8:0:0::/64");
  });

  it("is never kept for a value longer than any address: such a value is the shared unknown caller each time", () => {
    const long = `${"1".repeat(40)}.2.3.4`;
    expect(from(long)).toBe("unknown");
    expect(from(long)).toBe("unknown");
    expect(from(` 203.0.113.9 `)).toBe("ip4:203.0.113.9");
  });
});
