/**
 * Nothing one caller sends can break what the hub does for others: filters are measured as the hub stores them
 * (V8-serialised, where a non-Latin-1 string costs two bytes per UTF-16 unit), a socket whose attachment cannot be
 * read is skipped, and a failed publish never fails the write that preceded it. In a file of its own: Durable
 * Objects are isolated per test file, so the sockets planted here disturb no other test.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { GLOBAL_GROUP } from "../../src/listen/groups";
import type { ListenerSpec } from "../../src/listen/hub";
import { MAX_ATTACHMENT_BYTES, storedSize } from "../../src/listen/stored-size";
import { FIXTURE, valueUri } from "../helpers/fixture";
import { type Json, readMessage, send, testServer } from "../helpers/rpc";
import { sseReader } from "../helpers/sse";
import { expectError, withLogs } from "../helpers/wire";

const readers: ReturnType<typeof sseReader>[] = [];
afterEach(async () => {
  await Promise.all(readers.splice(0).map((reader) => reader.cancel()));
});

async function listen(notifications: Json, id: string, target = { send }) {
  const reader = sseReader(await target.send("subscriptions/listen", { notifications }, { id }));
  readers.push(reader);
  expect(await reader.message()).toMatchObject({ method: "notifications/subscriptions/acknowledged" });
  return reader;
}

async function tool(name: string, args: Json, target = { send }) {
  return (await readMessage(await target.send("tools/call", { name, arguments: args }))).result as Record<string, any>;
}

/** Four URIs of 2,048 UTF-16 units (the most a URI may have), each ending in `tail`: about 8 KB as UTF-8 JSON. */
function longUris(tail: string): string[] {
  return Array.from({ length: 4 }, (_, i) => {
    const head = `test://${i}/`;
    return `${head}${"x".repeat(2_048 - head.length - tail.length)}${tail}`;
  });
}

/** A listener spec as the Worker sends it to a hub (base64url of UTF-8 JSON). */
const encodeSpec = (spec: ListenerSpec) =>
  new TextEncoder().encode(JSON.stringify(spec)).toBase64({ alphabet: "base64url", omitPadding: true });
const spec = (filter: ListenerSpec["filter"], session?: string): ListenerSpec => ({
  filter,
  principal: "anonymous",
  group: "hub:test",
  shard: 0,
  capacity: 1_000,
  groupMax: 1_000,
  ...(session && { session }),
});

describe("filters measured as stored", () => {
  for (const [name, tail] of [
    ["above U+00FF", "\u0101"],
    ["above U+FFFF", "\u{1F600}"],
  ]) {
    it(`refuses a filter of URIs with characters ${name} that a hub could not store with -32602, and the hub keeps serving others`, async () => {
      const bystander = await listen({ resourcesListChanged: true }, `bystander ${name}`);
      const uris = longUris(tail!);
      expect(uris.every((uri) => uri.length === 2_048)).toBe(true);
      // Under the old UTF-8 JSON measure (12,000 bytes) this passed, and broke the hub for everyone.
      expect(new TextEncoder().encode(JSON.stringify(uris)).byteLength).toBeLessThan(12_000);

      const refused = await send("subscriptions/listen", { notifications: { resourceSubscriptions: uris } }, { id: "big" });
      const message = await expectError(refused, 200, -32602, "big");
      expect(message.error?.message).toContain("bytes as stored");

      // A write tool still succeeds, and the other listener hears about it.
      const stored = await tool("put", { key: "after-refusal", value: "v" });
      expect(stored.isError).toBeUndefined();
      expect(stored.structuredContent).toEqual({ uri: valueUri("after-refusal"), value: "v" });
      expect(await bystander.message()).toMatchObject({ method: "notifications/resources/list_changed" });
    });
  }

  it("accepts a non-Latin-1 filter that fits as stored, and delivers to it", async () => {
    const uris = longUris("\u0101").slice(0, 2);
    const reader = await listen({ resourceSubscriptions: uris }, "fits");
    expect((await tool("publish", { what: "updated", uri: uris[1] })).isError).toBeUndefined();
    expect(await reader.message()).toMatchObject({ method: "notifications/resources/updated", params: { uri: uris[1] } });
  });
  it("never measures less than V8 stores: the largest attachment measured to fit is always storable", () => {
    // Latin-1 (one byte each, though two in UTF-8), above U+00FF, above U+FFFF, and a control character.
    for (const character of ["x", "\u00e9", "\u0101", "\u{1F600}", "\u0001"]) {
      for (const count of [1, 4, 64]) {
        const attachment = (repeat: number) => ({
          filter: {
            resourcesListChanged: true,
            resourceSubscriptions: Array.from({ length: count }, (_, i) => `t://${i}/${character.repeat(repeat)}`),
          },
          principal: "anonymous",
        });
        // The largest repeat measured to fit (binary search: the measure grows with it).
        let [repeat, tooMany] = [0, MAX_ATTACHMENT_BYTES];
        while (tooMany - repeat > 1) {
          const middle = Math.floor((repeat + tooMany) / 2);
          if (storedSize(attachment(middle)) <= MAX_ATTACHMENT_BYTES) repeat = middle;
          else tooMany = middle;
        }
        const { 1: socket } = new WebSocketPair();
        expect(() => socket.serializeAttachment(attachment(repeat)), `${count} URIs of ${JSON.stringify(character)}`).not.toThrow();
      }
    }
  });
});

describe("a hub with an unreadable listener", () => {
  it("refuses with 413, and never accepts, a listener whose attachment it could not store", async () => {
    const hub = env.SUBSCRIPTIONS.getByName("hub:refuses");
    const response = await hub.fetch("https://hub/listen", {
      headers: { upgrade: "websocket", "x-mcp-listener": encodeSpec(spec({ resourceSubscriptions: longUris("\u{1F600}") })) },
    });
    expect(response.status).toBe(413);
    expect(response.webSocket).toBeNull();
    expect(await hub.count()).toBe(0);
    expect(await hub.publish({ type: "tools_list_changed" })).toBe(0);
  });

  it("skips and closes a socket whose attachment is missing or malformed, and still delivers to every other listener", async () => {
    const server = testServer(FIXTURE, {});
    const listener = await listen({ toolsListChanged: true }, "survivor", server);
    const hub = env.SUBSCRIPTIONS.getByName(GLOBAL_GROUP);
    const before = await hub.count();
    // Sockets as the old hub could leave them: accepted, then nothing (or something unreadable) stored.
    await runInDurableObject(hub, (_instance, state) => {
      const { 1: bare } = new WebSocketPair();
      state.acceptWebSocket(bare);
      const { 1: odd } = new WebSocketPair();
      odd.serializeAttachment("not an attachment");
      state.acceptWebSocket(odd);
    });
    expect(await hub.count()).toBe(before + 2);

    const result = await tool("publish", { what: "tools" }, server);
    expect(result.isError).toBeUndefined();
    expect(await listener.message()).toMatchObject({ method: "notifications/tools/list_changed" });
    // The unreadable sockets were closed, not kept to fail again.
    const closed = await runInDurableObject(hub, (_instance, state) =>
      state.getWebSockets().filter((socket) => socket.readyState !== WebSocket.OPEN),
    );
    expect(closed.length).toBe(2);
  });

  it("skips an unreadable session socket and refuses, storing nothing, a session filter too large to store", async () => {
    const hub = env.SUBSCRIPTIONS.getByName("hub:session");
    const upgrade = await hub.fetch("https://hub/listen", {
      headers: { upgrade: "websocket", "x-mcp-listener": encodeSpec(spec({ resourcesListChanged: true }, "sess")) },
    });
    expect(upgrade.status).toBe(101);
    upgrade.webSocket!.accept();
    await runInDurableObject(hub, (_instance, state) => {
      const { 1: bare } = new WebSocketPair();
      state.acceptWebSocket(bare, ["s:sess"]);
    });

    expect(await hub.updateSessionFilter("sess", { resourceSubscriptions: longUris("\u0101") })).toBe(false);
    expect(await hub.updateSessionFilter("sess", { resourceSubscriptions: ["test://small"] })).toBe(true);
    const stored = await runInDurableObject(hub, (_instance, state) =>
      state.getWebSockets("s:sess").map((socket) => socket.deserializeAttachment() as Json | null),
    );
    expect(stored.filter((attachment) => attachment !== null)).toEqual([
      { filter: { resourceSubscriptions: ["test://small"] }, principal: "anonymous" },
    ]);
    upgrade.webSocket!.close(1000, "done");
  });
});

describe("publishing is best effort", () => {
  const failingHubs = {
    "getByName throws": {
      getByName: () => {
        throw new Error("hub namespace unavailable");
      },
    },
    "publish rejects": { getByName: () => ({ publish: () => Promise.reject(new Error("hub overloaded")) }) },
  };
  for (const [name, hubs] of Object.entries(failingHubs)) {
    it(`commits and reports a write as successful when the hub fails (${name}), and logs the failure`, async () => {
      const broken = testServer(FIXTURE, { SUBSCRIPTIONS: hubs as unknown as string });
      const key = `kept-${name.replaceAll(" ", "-").toLowerCase()}`;
      const { entries } = await withLogs(async () => {
        const stored = await tool("put", { key, value: "b" }, broken);
        expect(stored.isError).toBeUndefined();
        expect(stored.structuredContent).toEqual({ uri: valueUri(key), value: "b" });
        const updated = await tool("put", { key, value: "c" }, broken);
        expect(updated.isError).toBeUndefined();
        const read = await readMessage(await broken.send("resources/read", { uri: valueUri(key) }));
        expect(read.result?.contents).toEqual([{ uri: valueUri(key), mimeType: "text/plain", text: "c" }]);
      });
      expect(entries).toContainEqual(
        expect.objectContaining({ level: "error", message: "publish failed", event: "resources_list_changed" }),
      );
      expect(entries).toContainEqual(expect.objectContaining({ level: "error", message: "publish failed", event: "resource_updated" }));
    });
  }
});
