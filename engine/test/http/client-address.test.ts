/**
 * How an anonymous caller is counted: by network, from CF-Connecting-IP (src/http/client-address.ts). The limits
 * that use it are tested through the Worker in hardening.test.ts (rate limit), tasks/limits.test.ts (task quota),
 * listen/limits.test.ts (listener shares) and oauth/rate-limit.test.ts (the OAuth endpoints).
 */
import { describe, expect, it } from "vitest";
import { clientNetwork } from "../../src/http/client-address";

const from = (address?: string) =>
  clientNetwork(new Request("http://localhost/mcp", { headers: address === undefined ? {} : { "cf-connecting-ip": address } }));

describe("the network an anonymous caller is counted as", () => {
  it("is an IPv4 address itself", () => {
    expect(from("203.0.113.9")).toBe("ip4:203.0.113.9");
    expect(from("203.0.113.10")).toBe("ip4:203.0.113.10");
  });

  it("is the /64 of an IPv6 address, however the address is spelled", () => {
    const network = "ip6:2001:db8:85a3:1::/64";
    for (const spelling of [
      "2001:db8:85a3:1::1",
      "2001:db8:85a3:1:ffff:ffff:ffff:ffff",
      "2001:0DB8:85A3:0001:0000:0000:0000:0002",
      "2001:db8:85a3:1:abcd::",
      "2001:db8:85a3:1::1%eth0",
    ]) {
      expect(from(spelling)).toBe(network);
    }
    expect(from("2001:db8:85a3:2::1")).toBe("ip6:2001:db8:85a3:2::/64");
    expect(from("::1")).toBe("ip6:0:0:0:0::/64");
    expect(from("fe80::1")).toBe("ip6:fe80:0:0:0::/64");
  });

  it("is the IPv4 address an IPv4-mapped IPv6 address maps, in either notation", () => {
    expect(from("::ffff:203.0.113.9")).toBe("ip4:203.0.113.9");
    expect(from("::ffff:cb00:7109")).toBe("ip4:203.0.113.9");
    expect(from("0:0:0:0:0:ffff:203.0.113.9")).toBe("ip4:203.0.113.9");
  });

  it("is one shared unknown caller for a missing, empty or malformed header, so a made-up value mints no caller", () => {
    for (const value of [
      undefined,
      "",
      "   ",
      "not an address",
      "256.1.1.1",
      "1.2.3",
      "2001:db8::1::2",
      "2001:db8:1:2:3:4:5:6:7",
      "2001:db8:1:2:3:4:5",
      "12345::1",
      "1.2.3.4::1",
      "::ffff:1.2.3.4.5",
      `${"1:".repeat(30)}1`,
    ]) {
      expect(from(value)).toBe("unknown");
    }
  });
});
