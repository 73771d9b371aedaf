/**
 * Hub hibernation. In a file of its own: any activity on the hub (even another test closing its sockets)
 * would keep it in memory, and each test file starts with no Durable Object (test/helpers/fresh-state.ts); files
 * that run at the same time run in runtimes of their own.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { GLOBAL_GROUP } from "../../src/listen/groups";
import { FIXTURE } from "../helpers/fixture";
import { testServer } from "../helpers/rpc";
import { sseReader } from "../helpers/sse";

describe("hub hibernation", () => {
  it("lets an idle hub be evicted from memory while its listeners stay subscribed", { timeout: 40_000 }, async () => {
    const server = testServer({ ...FIXTURE, limits: { listen: { keepAliveMs: 60_000 } } });
    const reader = sseReader(await server.send("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id: "sleepy" }));
    expect(await reader.message()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
    const hub = env.SUBSCRIPTIONS.getByName(GLOBAL_GROUP);
    const instance = await runInDurableObject(hub, (instance) => instance);

    // Nothing may touch the hub for longer than workerd's 10 s idle window (with margin). A wait, not a forced
    // eviction: abortAllDurableObjects() ends the hub's sockets with it (the stream just ends), which is row 44's
    // case in listen.test.ts, not hibernation; and nothing tells a test that the hub was evicted without touching it.
    await new Promise((resolve) => setTimeout(resolve, 15_000));
    await server.send("tools/call", { name: "publish", arguments: { what: "tools" } });
    expect(await reader.message()).toMatchObject({
      method: "notifications/tools/list_changed",
      params: { _meta: { "io.modelcontextprotocol/subscriptionId": "sleepy" } },
    });
    // A new object instance answered: the old one was evicted, and the filter came back from the socket attachment.
    expect(await runInDurableObject(hub, (fresh) => fresh === instance)).toBe(false);
    await reader.cancel();
  });
});
