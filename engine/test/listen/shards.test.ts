/**
 * Hub groups that grow with their listeners (see src/listen/groups.ts): a root plus overflow shards, each
 * holding limits.listen.shardCapacity listeners (1 here, so a few listeners make several shards). Each test uses principals
 * of its own, so its principal groups start empty. In a file of its own: Durable Objects are isolated per test file.
 */
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { GLOBAL_GROUP, principalGroup, shardName } from "../../src/listen/groups";
import { SubscriptionHub } from "../../src/listen/hub";
import { createPublisher } from "../../src/listen/publish";
import { FIXTURE } from "../helpers/fixture";
import { localIssuer } from "../helpers/issuer";
import { type Json, readMessage, sessionName, testServer, URL_MCP } from "../helpers/rpc";
import { type Frame, sseReader } from "../helpers/sse";
import { user, withLogs } from "../helpers/wire";
import { ANONYMOUS_CALLERS } from "../hub-groups";

const SMALL = { shardCapacity: 1, keepAliveMs: 60_000 };

let issuer: Awaited<ReturnType<typeof localIssuer>>;
beforeAll(async () => {
  issuer = await localIssuer();
});

const readers: ReturnType<typeof sseReader>[] = [];
afterEach(async () => {
  await Promise.all(readers.splice(0).map((reader) => reader.cancel()));
});

/** A server whose callers sign in (so each test has principals of its own), with one listener per shard. */
const server = (listen: { maxShards?: number } = {}) =>
  testServer({ ...FIXTURE, limits: { listen: { ...SMALL, ...listen } } }, issuer.vars);
type Server = ReturnType<typeof server>;
const as = async (sub: string) => ({ headers: { authorization: `Bearer ${await issuer.token({ sub })}` } });

const hub = (group: string, shard: number) => env.SUBSCRIPTIONS.getByName(shardName(group, shard));
const counts = (group: string, shards: number) => Promise.all(Array.from({ length: shards }, (_, shard) => hub(group, shard).count()));

/** Opens a listen stream as `sub` and waits for its acknowledgement (one at a time, so each lands where expected). */
async function listen(
  target: Server,
  sub: string,
  id: string,
  notifications: Json = { toolsListChanged: true, resourcesListChanged: true },
) {
  const reader = sseReader(await target.send("subscriptions/listen", { notifications }, { id, ...(await as(sub)) }));
  readers.push(reader);
  expect(await reader.message()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
  return reader;
}

/** Waits (bounded) until `hub` holds `count` listeners. */
async function settle(stub: DurableObjectStub<SubscriptionHub>, count: number) {
  const deadline = Date.now() + 10_000;
  while ((await stub.count()) !== count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe("hub groups grow with their listeners", () => {
  it("opens a second shard when the first is full, and a published event reaches listeners on both", async () => {
    const target = server();
    const group = principalGroup("grow");
    const listeners = [await listen(target, "grow", "g1"), await listen(target, "grow", "g2"), await listen(target, "grow", "g3")];
    expect(await hub(group, 0).shards()).toBe(3);
    expect(await counts(group, 3)).toEqual([1, 1, 1]);

    // A private event, through the principal's group; and one for everyone, through the global group.
    await createPublisher(env.SUBSCRIPTIONS, user("grow")).resourcesListChanged();
    for (const reader of listeners) expect(await reader.message()).toMatchObject({ method: "notifications/resources/list_changed" });
    await createPublisher(env.SUBSCRIPTIONS, user("grow")).toolsListChanged();
    for (const reader of listeners) expect(await reader.message()).toMatchObject({ method: "notifications/tools/list_changed" });
    expect(await hub(GLOBAL_GROUP, 0).shards()).toBeGreaterThanOrEqual(3);
  });

  it("keeps a principal's events on that principal's shards only", async () => {
    const target = server();
    const alice = [await listen(target, "alice", "a1"), await listen(target, "alice", "a2")];
    const bob = [await listen(target, "bob", "b1"), await listen(target, "bob", "b2")];
    expect(await hub(principalGroup("alice"), 0).shards()).toBe(2);
    expect(await hub(principalGroup("bob"), 0).shards()).toBe(2);
    // Separate Durable Objects: no group's shard is another's root or shard, whatever the principal id.
    expect(
      new Set([0, 1].flatMap((shard) => [shardName(principalGroup("alice"), shard), shardName(principalGroup("bob"), shard)])).size,
    ).toBe(4);
    expect(shardName(principalGroup("x"), 1)).not.toBe(principalGroup(`x#1`));

    await createPublisher(env.SUBSCRIPTIONS, user("alice")).resourcesListChanged();
    for (const reader of alice) expect(await reader.message()).toMatchObject({ method: "notifications/resources/list_changed" });
    for (const reader of bob) expect(await reader.message(300)).toBe("timeout");

    // Alice's and Bob's listeners share the global group's shards; each shard still checks the principal.
    expect(await env.SUBSCRIPTIONS.getByName(GLOBAL_GROUP).publish({ type: "resources_list_changed", principal: "bob" })).toBe(2);
    for (const reader of bob) expect(await reader.message()).toMatchObject({ method: "notifications/resources/list_changed" });
    for (const reader of alice) expect(await reader.message(300)).toBe("timeout");
  });

  it("delivers to the other shards when one shard fails, and logs the failing shard", async () => {
    const target = server();
    const group = principalGroup("fails");
    const listeners = [await listen(target, "fails", "f1"), await listen(target, "fails", "f2"), await listen(target, "fails", "f3")];
    // Shard 1 fails as the root sees it: its call rejects. (Why not a throw inside shard 1's deliver: workerd reports
    // an exception a Durable Object's method throws as uncaught, in the run's output, even when its caller handles it.)
    const hubs = SubscriptionHub.prototype as unknown as { shard(this: SubscriptionHub, shard: number): unknown };
    const shardStub = hubs.shard;
    hubs.shard = function (shard) {
      return shard === 1 ? { deliver: () => Promise.reject(new Error("shard broken")) } : shardStub.call(this, shard);
    };
    try {
      const { value, entries } = await withLogs(() => hub(group, 0).publish({ type: "resources_list_changed", principal: "fails" }));
      expect(value).toBe(2);
      expect(entries).toEqual([
        expect.objectContaining({ level: "error", message: "hub shard delivery failed", shard: 1, event: "resources_list_changed" }),
      ]);
    } finally {
      hubs.shard = shardStub;
    }
    expect(await listeners[0]!.message()).toMatchObject({ method: "notifications/resources/list_changed" });
    expect(await listeners[1]!.message(300)).toBe("timeout");
    expect(await listeners[2]!.message()).toMatchObject({ method: "notifications/resources/list_changed" });
  });

  it("remembers its shards after the root is evicted", async () => {
    const target = server();
    const group = principalGroup("evicted");
    const onRoot = await listen(target, "evicted", "e1");
    const onShard = await listen(target, "evicted", "e2");
    expect(await counts(group, 2)).toEqual([1, 1]);
    // The root restarts: its memory is gone, and so is the listener it held. (Evicted the platform's way: an abort()
    // would do it too, but workerd reports the broken output gate it leaves as an uncaught exception.)
    await evictDurableObject(hub(group, 0), { webSockets: "close" });
    expect(await onRoot.message()).toBe("end");

    await createPublisher(env.SUBSCRIPTIONS, user("evicted")).resourcesListChanged();
    expect(await onShard.message()).toMatchObject({ method: "notifications/resources/list_changed" });
    expect(await hub(group, 0).shards()).toBe(2);
  });

  it("uses a slot freed in an older shard before opening a new one", async () => {
    const target = server();
    const group = principalGroup("holes");
    await listen(target, "holes", "h1");
    const leaving = await listen(target, "holes", "h2");
    await listen(target, "holes", "h3");
    expect(await counts(group, 3)).toEqual([1, 1, 1]);
    await leaving.cancel();
    await settle(hub(group, 1), 0);
    const next = await listen(target, "holes", "h4");
    expect(await counts(group, 3)).toEqual([1, 1, 1]);
    expect(await hub(group, 0).shards()).toBe(3);
    await createPublisher(env.SUBSCRIPTIONS, user("holes")).resourcesListChanged();
    expect(await next.message()).toMatchObject({ method: "notifications/resources/list_changed" });
  });

  it("refuses a listener in-band once every shard the group may open is full", async () => {
    const target = server({ maxShards: 2 });
    await listen(target, "capped", "c1");
    await listen(target, "capped", "c2");
    const refused = sseReader(
      await target.send("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id: "c3", ...(await as("capped")) }),
    );
    readers.push(refused);
    expect(await refused.message()).toMatchObject({ jsonrpc: "2.0", id: "c3", error: { code: -32603, data: { limit: "caller", max: 2 } } });
    expect(await hub(principalGroup("capped"), 0).shards()).toBe(2);
  });
});

describe("2025 sessions on an overflow shard", () => {
  // Anonymous callers (2025 sessions in these tests need no sign-in): the anonymous group is this describe's own.
  const legacyServer = testServer({ ...FIXTURE, limits: { listen: SMALL } });
  const VERSION = "2025-11-25";
  const legacyHeaders = (session?: string): Record<string, string> => ({
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": VERSION,
    ...(session && { "mcp-session-id": session }),
  });
  const legacy = (method: string, params: Json, session?: string) =>
    legacyServer.post({ jsonrpc: "2.0", id: 1, method, params }, legacyHeaders(session));
  async function openSession(): Promise<string> {
    const response = await legacy("initialize", {
      protocolVersion: VERSION,
      capabilities: { elicitation: {} },
      clientInfo: { name: "t", version: "1" },
    });
    await readMessage(response);
    return response.headers.get("mcp-session-id")!;
  }
  function getStream(session: string, lastEventId?: string) {
    const headers: Record<string, string> = { accept: "text/event-stream", "mcp-session-id": session, "mcp-protocol-version": VERSION };
    if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
    const reader = legacyServer.fetch(new Request(URL_MCP, { method: "GET", headers })).then(sseReader);
    void reader.then((opened) => readers.push(opened));
    return reader;
  }
  /** The shards of `group` that hold the session's stream. */
  async function whereIs(group: string, session: string): Promise<number[]> {
    const shards = await hub(group, 0).shards();
    const found: number[] = [];
    for (let shard = 0; shard < shards; shard++) {
      const held = await runInDurableObject(
        hub(group, shard),
        (_instance, state) => state.getWebSockets(`s:${sessionName(session)}`).length,
      );
      if (held > 0) found.push(shard);
    }
    return found;
  }
  /** A 2026-07-28 listener that takes the only slot of both roots, so the next stream joins an overflow shard. */
  async function occupyRoots() {
    const first = sseReader(
      await legacyServer.send("subscriptions/listen", { notifications: { toolsListChanged: true } }, { id: "first" }),
    );
    readers.push(first);
    expect(await first.message()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
    expect(await hub(GLOBAL_GROUP, 0).count()).toBe(1);
  }
  const idOf = (frame: Frame | "timeout" | "end") => (typeof frame === "object" && "id" in frame ? frame.id : undefined);
  const publish = (what: string, uri?: string) =>
    legacyServer.send("tools/call", { name: "publish", arguments: { what, uri } }).then(readMessage);

  it("finds a 2025 session's stream on an overflow shard when the session subscribes to a resource", async () => {
    await occupyRoots();
    const session = await openSession();
    const stream = await getStream(session);
    expect(await stream.frame()).toEqual({ comment: "listening" });
    expect(await stream.frame()).toEqual({ priming: expect.any(String) });
    const [onPrincipal] = await whereIs(ANONYMOUS_CALLERS, session);
    const [onGlobal] = await whereIs(GLOBAL_GROUP, session);
    expect(onPrincipal).toBeGreaterThan(0);
    expect(onGlobal).toBeGreaterThan(0);

    expect((await readMessage(await legacy("resources/subscribe", { uri: "fixture://watched" }, session))).result).toEqual({});
    await publish("updated", "fixture://watched");
    expect(await stream.message()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { uri: "fixture://watched" },
    });
    expect((await readMessage(await legacy("resources/unsubscribe", { uri: "fixture://watched" }, session))).result).toEqual({});
    await publish("updated", "fixture://watched");
    expect(await stream.message(300)).toBe("timeout");
  });

  it("resumes a 2025 session stream on an overflow shard with Last-Event-ID: what it missed comes from the root, once", async () => {
    await settle(hub(GLOBAL_GROUP, 0), 0);
    await occupyRoots();
    const session = await openSession();
    const first = await getStream(session);
    await first.frame();
    await first.frame();
    expect((await whereIs(GLOBAL_GROUP, session))[0]).toBeGreaterThan(0);
    await publish("tools");
    const seen = await first.frame();
    expect(seen).toMatchObject({ data: { method: "notifications/tools/list_changed" } });
    await first.cancel();

    await publish("tools");
    await publish("prompts");
    const second = await getStream(session, idOf(seen));
    expect(await second.frame()).toEqual({ comment: "listening" });
    expect(await second.frame()).toEqual({ priming: expect.any(String) });
    expect((await whereIs(GLOBAL_GROUP, session))[0]).toBeGreaterThan(0);
    expect([await second.message(), await second.message()]).toEqual([
      { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
      { jsonrpc: "2.0", method: "notifications/prompts/list_changed" },
    ]);
    await publish("tools");
    expect(await second.message()).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
    expect(await second.message(300)).toBe("timeout");
  });
});
