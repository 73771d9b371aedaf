/**
 * @module http/client-address
 * The client address a per-caller limit counts an anonymous caller by: `CF-Connecting-IP` as one network, not as one
 * host. An IPv4 address is itself; an IPv6 address counts as its /64; an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`)
 * counts as the IPv4 address it maps.
 *
 * Why the /64: it is the smallest network an ISP assigns to one subscriber (RFC 6177, and SLAAC needs a whole /64),
 * so every one of one client's 2^64 addresses is its for the asking. Counting each address on its own would make one
 * IPv6 client as many anonymous callers as it likes: a fresh share of the listeners, of the task quota and of both
 * rate limits per address.
 *
 * A value that is no address (absent: not behind Cloudflare; malformed: only possible where the header is not
 * Cloudflare's) is counted as one shared "unknown" caller, never as itself: a made-up value must not mint callers.
 */

/** The network an anonymous caller is counted as: `ip4:<a.b.c.d>`, `ip6:<first four groups>::/64`, or `unknown`. */
export function clientNetwork(request: Request): string {
  const value = request.headers.get("cf-connecting-ip")?.trim();
  if (!value) return "unknown";
  // Longer than any address (a zoned or a malformed value): worked out each time, never remembered, so the memo
  // holds only address-sized strings.
  if (value.length > MAX_IPV6_LENGTH) return networkOf(value);
  // Why remembered: every request of an anonymous caller is counted, and a client sends many from one address.
  let network = networks.get(value);
  if (network === undefined) {
    network = networkOf(value);
    if (networks.size >= MAX_REMEMBERED_ADDRESSES) networks.delete(networks.keys().next().value!);
    networks.set(value, network);
  }
  return network;
}

/** The addresses this isolate has seen lately, with their networks; at most 1,024 (of 45 characters), oldest dropped first. */
const networks = new Map<string, string>();
const MAX_REMEMBERED_ADDRESSES = 1_024;

function networkOf(value: string): string {
  const ipv4 = parseIpv4(value);
  if (ipv4) return `ip4:${ipv4.join(".")}`;
  const groups = parseIpv6(value);
  if (!groups) return "unknown";
  if (isIpv4Mapped(groups)) return `ip4:${[groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join(".")}`;
  return `ip6:${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(":")}::/64`;
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const GROUP = /^[0-9a-fA-F]{1,4}$/;
/** The longest text an IPv6 address can be: eight groups of four digits, or six and a dotted IPv4 tail, plus colons. */
const MAX_IPV6_LENGTH = 45;

/** The four octets of a dotted IPv4 address, or undefined. */
function parseIpv4(text: string): number[] | undefined {
  const match = IPV4.exec(text);
  if (!match) return undefined;
  const octets = match.slice(1).map(Number);
  return octets.every((octet) => octet <= 255) ? octets : undefined;
}

/** The eight 16-bit groups of an IPv6 address (with `::` and a dotted IPv4 tail), or undefined. */
function parseIpv6(text: string): number[] | undefined {
  // A zone (`fe80::1%eth0`) names the interface of a link-local address: not part of the address.
  const address = text.split("%")[0]!;
  if (address.length > MAX_IPV6_LENGTH) return undefined;
  const halves = address.split("::");
  if (halves.length > 2) return undefined;
  const compressed = halves.length === 2;
  // Only the very last part may be a dotted IPv4 address (`::ffff:192.0.2.1`).
  const head = parseGroups(halves[0]!, !compressed);
  const tail = compressed ? parseGroups(halves[1]!, true) : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  // Without `::` every group is written; with it, it stands for at least one group of zeros.
  if (compressed ? missing < 1 : missing !== 0) return undefined;
  return [...head, ...Array<number>(missing).fill(0), ...tail];
}

/** The groups of one side of `::` ("" is none); `ipv4Tail`: its last part may be dotted IPv4 (two groups). */
function parseGroups(half: string, ipv4Tail: boolean): number[] | undefined {
  if (half === "") return [];
  const parts = half.split(":");
  const groups: number[] = [];
  for (const [index, part] of parts.entries()) {
    if (GROUP.test(part)) {
      groups.push(Number.parseInt(part, 16));
      continue;
    }
    const ipv4 = ipv4Tail && index === parts.length - 1 ? parseIpv4(part) : undefined;
    if (!ipv4) return undefined;
    groups.push((ipv4[0]! << 8) | ipv4[1]!, (ipv4[2]! << 8) | ipv4[3]!);
  }
  return groups;
}

/** `::ffff:0:0/96`: an IPv4 address written as IPv6 (dual-stack sockets report IPv4 callers this way). */
function isIpv4Mapped(groups: number[]): boolean {
  return groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
}
