/**
 * Listener caps. In a file of its own: Durable Object storage and sockets are isolated per test file, so the
 * counts here are not disturbed by other listen tests.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { principalGroup } from "../../../src/mcp/listen/groups";
import { FIXTURE } from "../../helpers/fixture";
import { testServer } from "../../helpers/rpc";
import { sseReader } from "../../helpers/sse";

describe("listener caps", () => {
  it("refuses a listener over the per-hub cap in-band, before any acknowledgement", async () => {
    const capped = testServer(FIXTURE, { LISTEN_SHARD_CAPACITY: "2", LISTEN_MAX_SHARDS: "1" });
    const open = [];
    for (const id of ["a", "b"]) {
      const reader = sseReader(await capped.send("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id }));
      expect(await reader.message()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
      open.push(reader);
    }
    const refused = sseReader(await capped.send("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id: "c" }));
    expect(await refused.message()).toEqual({ jsonrpc: "2.0", id: "c", error: { code: -32603, message: "Subscription limit reached" } });
    expect(await refused.message()).toBe("end");

    // Closing one frees its slot for the next listener.
    await open.shift()!.cancel();
    const hub = env.SUBSCRIPTIONS.getByName(principalGroup("anonymous"));
    const deadline = Date.now() + 2_000;
    while ((await hub.count()) > 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const next = sseReader(await capped.send("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id: "d" }));
    expect(await next.message()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
    await Promise.all([...open, next].map((reader) => reader.cancel()));
  });

  it("frees the slot of a client that hung up unnoticed as soon as a new listener needs it", async () => {
    // A keep-alive far away: only the hub's probe can reveal the hang-up within this test.
    const capped = testServer(FIXTURE, { LISTEN_SHARD_CAPACITY: "2", LISTEN_MAX_SHARDS: "1", LISTEN_KEEPALIVE_MS: "60000" });
    const hub = env.SUBSCRIPTIONS.getByName(principalGroup("anonymous"));
    const deadline = Date.now() + 2_000;
    while ((await hub.count()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
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
