/**
 * Listener caps. In a file of its own: Durable Object storage and sockets are isolated per test file, so the
 * counts here are not disturbed by other listen tests.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { callerGroup } from "../../src/listen/groups";
import { ANONYMOUS } from "../../src/wire/principal";
import { FIXTURE } from "../helpers/fixture";
import { testServer } from "../helpers/rpc";
import { sseReader } from "../helpers/sse";
import { ANONYMOUS_CALLERS } from "../hub-groups";

/** How long a test waits for a hub to let a closed or refused stream go: a bound on a hang, never a measurement. */
const SETTLED = { timeout: 10_000, interval: 20 };

describe("listener caps", () => {
  it("refuses a listener over the per-hub cap in-band, before any acknowledgement", async () => {
    const capped = testServer({ ...FIXTURE, limits: { listen: { shardCapacity: 2, maxShards: 1 } } });
    const open = [];
    for (const id of ["a", "b"]) {
      const reader = sseReader(await capped.send("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id }));
      expect(await reader.message()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
      open.push(reader);
    }
    const refused = sseReader(await capped.send("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id: "c" }));
    expect(await refused.message()).toEqual({
      jsonrpc: "2.0",
      id: "c",
      error: {
        code: -32603,
        message: "Subscription limit reached: this caller already holds 2 listen streams, the most one caller may; close one first",
        data: { limit: "caller", max: 2 },
      },
    });
    expect(await refused.message()).toBe("end");

    // Closing one frees its slot for the next listener.
    await open.shift()!.cancel();
    const hub = env.SUBSCRIPTIONS.getByName(ANONYMOUS_CALLERS);
    await expect.poll(() => hub.count(), SETTLED).toBe(1);
    const next = sseReader(await capped.send("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id: "d" }));
    expect(await next.message()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
    await Promise.all([...open, next].map((reader) => reader.cancel()));
  });

  it("frees the slot of a client that hung up unnoticed as soon as a new listener needs it", async () => {
    // A keep-alive far away: only the hub's probe can reveal the hang-up within this test.
    const capped = testServer({ ...FIXTURE, limits: { listen: { shardCapacity: 2, maxShards: 1, keepAliveMs: 60_000 } } });
    // The previous test's listeners are gone first: the cap counts what this test opens.
    const hub = env.SUBSCRIPTIONS.getByName(ANONYMOUS_CALLERS);
    await expect.poll(() => hub.count(), SETTLED).toBe(0);
    const live = sseReader(await capped.send("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id: "live" }));
    expect(await live.message()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
    const gone = sseReader(await capped.send("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id: "gone" }));
    expect(await gone.message()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });

    // The client hangs up without the Worker being told: as in workerd, it finds out only when it next writes.
    const noticed = gone.frame(10_000).then(() => gone.cancel());
    const next = sseReader(await capped.send("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id: "next" }));
    expect(await next.message()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
    // The live listener was probed too, and is still subscribed.
    expect(await live.frame()).toEqual({ comment: "probe" });
    await Promise.all([live.cancel(), next.cancel(), noticed]);
  });
});

describe("each caller's share of the listeners", () => {
  const listenFrom = (target: ReturnType<typeof testServer>, address: string, id: string) =>
    target
      .send("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id, headers: { "cf-connecting-ip": address } })
      .then(sseReader);

  it("refuses an anonymous caller over its share (per client address) while other callers still get listeners", async () => {
    // Room for 6 listeners in all (3 per shard, 2 shards), and at most 2 for any one caller.
    const target = testServer({ ...FIXTURE, limits: { listen: { shardCapacity: 3, maxShards: 2, maxPerCaller: 2 } } });
    const open = [];
    for (const id of ["a1", "a2"]) {
      const reader = await listenFrom(target, "192.0.2.1", id);
      expect(await reader.message()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
      open.push(reader);
    }
    // Today's flood: one address trying to take every slot of the server.
    for (const id of ["a3", "a4", "a5", "a6"]) {
      const refused = await listenFrom(target, "192.0.2.1", id);
      expect(await refused.message()).toMatchObject({ id, error: { code: -32603, data: { limit: "caller", max: 2 } } });
      expect(await refused.message()).toBe("end");
    }
    // Everyone else is unaffected.
    for (const [address, id] of [
      ["192.0.2.2", "b1"],
      ["192.0.2.2", "b2"],
      ["198.51.100.7", "c1"],
    ] as const) {
      const reader = await listenFrom(target, address, id);
      expect(await reader.message()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
      open.push(reader);
    }
    await Promise.all(open.map((reader) => reader.cancel()));
  });

  it("counts an anonymous IPv6 client by its /64: a second address of the network gets no share of its own", async () => {
    const target = testServer({ ...FIXTURE, limits: { listen: { shardCapacity: 3, maxShards: 2, maxPerCaller: 2 } } });
    const open = [];
    for (const [address, id] of [
      ["2001:db8:5:1::1", "v1"],
      ["2001:db8:5:1::2", "v2"],
    ] as const) {
      const reader = await listenFrom(target, address, id);
      expect(await reader.message()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
      open.push(reader);
    }
    const refused = await listenFrom(target, "2001:db8:5:1:ffff::3", "v3");
    expect(await refused.message()).toMatchObject({ id: "v3", error: { code: -32603, data: { limit: "caller", max: 2 } } });
    expect(await refused.message()).toBe("end");
    // The server still has room for an IPv4 caller and for another /64.
    for (const [address, id] of [
      ["192.0.2.50", "w1"],
      ["2001:db8:5:2::1", "w2"],
    ] as const) {
      const reader = await listenFrom(target, address, id);
      expect(await reader.message()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
      open.push(reader);
    }
    await Promise.all(open.map((reader) => reader.cancel()));
  });

  it("names the server's own capacity when that is what is full, not the caller's share", async () => {
    const target = testServer({ ...FIXTURE, limits: { listen: { shardCapacity: 1, maxShards: 2, maxPerCaller: 5 } } });
    const open = [];
    for (const [address, id] of [
      ["203.0.113.1", "x1"],
      ["203.0.113.2", "x2"],
    ] as const) {
      const reader = await listenFrom(target, address, id);
      expect(await reader.message()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
      open.push(reader);
    }
    const refused = await listenFrom(target, "203.0.113.3", "x3");
    expect(await refused.message()).toEqual({
      jsonrpc: "2.0",
      id: "x3",
      error: {
        code: -32603,
        message: "Subscription limit reached: the server holds its maximum of 2 listen streams; try again later",
        data: { limit: "server", max: 2 },
      },
    });
    // The refused caller holds nothing afterwards: its own group is empty again.
    const own = env.SUBSCRIPTIONS.getByName(callerGroup(ANONYMOUS, "ip4:203.0.113.3"));
    await expect.poll(() => own.count(), SETTLED).toBe(0);
    await Promise.all(open.map((reader) => reader.cancel()));
  });
});
