/**
 * The hub's replay buffer, which lets a 2025 session resume its GET stream (Last-Event-ID): kept only while the hub
 * serves sessions, bounded, and replayed with the same privacy and filter rules as live delivery. Each test uses a
 * hub of its own.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type HubEvent, type ListenerSpec, POSITION_HEADER, REPLAY_BUFFER } from "../../src/listen/hub";

const hub = (name: string) => env.SUBSCRIPTIONS.getByName(`replay-test:${name}`);

/** Connects a listener the way src/listen/hub-stream.ts does; returns its socket, the hub's position, and what it receives. */
async function connect(name: string, spec: Partial<ListenerSpec>) {
  const full: ListenerSpec = {
    filter: { toolsListChanged: true },
    principal: "alice",
    group: `replay-test:${name}`,
    shard: 0,
    capacity: 100,
    groupMax: 100,
    ...spec,
  };
  const header = new TextEncoder().encode(JSON.stringify(full)).toBase64({ alphabet: "base64url", omitPadding: true });
  const upgrade = await hub(name).fetch("https://hub/listen", { headers: { upgrade: "websocket", "x-mcp-listener": header } });
  expect(upgrade.status).toBe(101);
  const socket = upgrade.webSocket!;
  const received: HubEvent[] = [];
  socket.accept();
  // A block, not an expression: workerd warns of a listener that returns a value (push returns the length).
  socket.addEventListener("message", (message) => {
    received.push(JSON.parse(String(message.data)));
  });
  return { socket, position: Number(upgrade.headers.get(POSITION_HEADER)), received };
}

/** Waits (bounded) until `received` holds `count` events. */
async function settle(received: unknown[], count: number) {
  const deadline = Date.now() + 10_000;
  while (received.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  await new Promise((resolve) => setTimeout(resolve, 50));
}

const stored = (name: string) =>
  runInDurableObject(hub(name), (_instance, state) => [...state.storage.kv.list({ prefix: "replay:" })].map(([key]) => key));

describe("hub replay buffer", () => {
  it("writes nothing while no session has listened: 2026-07-28 listeners cost no storage", async () => {
    const { socket, received } = await connect("modern-only", {});
    await hub("modern-only").publish({ type: "tools_list_changed" });
    await settle(received, 1);
    expect(received).toEqual([{ type: "tools_list_changed" }]);
    expect(await stored("modern-only")).toEqual([]);
    socket.close();
  });

  it("numbers events while a session listens, and replays those after a position to a resuming session listener", async () => {
    const live = await connect("resume", { session: "s1" });
    expect(live.position).toBe(0);
    await hub("resume").publish({ type: "tools_list_changed" });
    await settle(live.received, 1);
    expect(live.received).toEqual([{ type: "tools_list_changed", seq: 1 }]);
    live.socket.close();

    await hub("resume").publish({ type: "prompts_list_changed" });
    await hub("resume").publish({ type: "tools_list_changed" });
    const resumed = await connect("resume", { session: "s1", after: 1, filter: { toolsListChanged: true } });
    expect(resumed.position).toBe(3);
    await settle(resumed.received, 1);
    // The prompts event is not replayed: this listener's filter does not ask for it.
    expect(resumed.received).toEqual([{ type: "tools_list_changed", seq: 3 }]);
    resumed.socket.close();
  });

  it("never replays another principal's private event", async () => {
    const first = await connect("private", { session: "s2", principal: "bob" });
    first.socket.close();
    await hub("private").publish({ type: "tools_list_changed", principal: "alice" });
    await hub("private").publish({ type: "tools_list_changed", principal: "bob" });
    const resumed = await connect("private", { session: "s2", principal: "bob", after: 0 });
    await settle(resumed.received, 1);
    expect(resumed.received).toEqual([{ type: "tools_list_changed", principal: "bob", seq: 2 }]);
    resumed.socket.close();
  });

  it("replays nothing for a position the hub never reached", async () => {
    const first = await connect("ahead", { session: "s3" });
    await hub("ahead").publish({ type: "tools_list_changed" });
    first.socket.close();
    const resumed = await connect("ahead", { session: "s3", after: 999 });
    await settle(resumed.received, 1);
    expect(resumed.received).toEqual([]);
    resumed.socket.close();
  });

  it(`keeps the newest ${REPLAY_BUFFER.maxEvents} events, and no more than ${REPLAY_BUFFER.maxBytes} bytes`, async () => {
    const listener = await connect("bounded", { session: "s4", filter: { resourceSubscriptions: ["test://"] } });
    listener.socket.close();
    // handle "": public resources, which a prefix subscription covers.
    for (let i = 1; i <= REPLAY_BUFFER.maxEvents + 5; i++)
      await hub("bounded").publish({ type: "resource_updated", uri: `test://${i}`, handle: "" });
    expect(await stored("bounded")).toHaveLength(REPLAY_BUFFER.maxEvents + 2); // + position and window
    const resumed = await connect("bounded", { session: "s4", after: 0, filter: { resourceSubscriptions: ["test://"] } });
    await settle(resumed.received, REPLAY_BUFFER.maxEvents);
    expect(resumed.received).toHaveLength(REPLAY_BUFFER.maxEvents);
    expect(resumed.received[0]).toMatchObject({ uri: "test://6", seq: 6 });
    resumed.socket.close();

    // Large events: the byte cap binds first.
    const uri = `test://${"x".repeat(10_000)}`;
    for (let i = 0; i < 10; i++) await hub("bounded").publish({ type: "resource_updated", uri, handle: "" });
    const kept = await runInDurableObject(hub("bounded"), (_instance, state) =>
      [...state.storage.kv.list<{ bytes: number }>({ prefix: "replay:e:" })].map(([, event]) => event.bytes),
    );
    expect(kept.reduce((sum, bytes) => sum + bytes, 0)).toBeLessThanOrEqual(REPLAY_BUFFER.maxBytes);
    expect(kept.length).toBe(Math.floor(REPLAY_BUFFER.maxBytes / kept[0]!));
  });

  it("replays a resource update only to a session whose subscription names the resource's handle", async () => {
    const filter = (uri: string) => ({ resourceSubscriptions: [uri] });
    const first = await connect("handles", { session: "s5", filter: filter("note://") });
    first.socket.close();
    await hub("handles").publish({ type: "resource_updated", uri: "note://nb_1/n_1", handle: "note://nb_1" });
    // Before the handle was recorded: only a subscription to exactly the URI covers it.
    await hub("handles").publish({ type: "resource_updated", uri: "note://nb_1/n_2" });
    const prefix = await connect("handles", { session: "s5", after: 0, filter: filter("note://") });
    const named = await connect("handles", { session: "s6", after: 0, filter: filter("note://nb_1") });
    const exact = await connect("handles", { session: "s7", after: 0, filter: filter("note://nb_1/n_2") });
    await settle(named.received, 1);
    await settle(exact.received, 1);
    expect(prefix.received).toEqual([]);
    expect(named.received).toEqual([{ type: "resource_updated", uri: "note://nb_1/n_1", handle: "note://nb_1", seq: 1 }]);
    expect(exact.received).toEqual([{ type: "resource_updated", uri: "note://nb_1/n_2", seq: 2 }]);
    for (const listener of [prefix, named, exact]) listener.socket.close();
  });
});
