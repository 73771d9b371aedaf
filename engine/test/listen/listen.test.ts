import { abortAllDurableObjects } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { defineResourceTemplate } from "../../src";
import { parseConfig } from "../../src/config/config";
import { GLOBAL_GROUP } from "../../src/listen/groups";
import { covers } from "../../src/listen/hub";
import { createPublisher } from "../../src/listen/publish";
import { ANONYMOUS } from "../../src/wire/principal";
import { FIXTURE } from "../helpers/fixture";
import { readMessage, readSse, testServer } from "../helpers/rpc";
import { sseReader } from "../helpers/sse";
import { expectError, user } from "../helpers/wire";
import { ANONYMOUS_CALLERS } from "../hub-groups";

const ID = "subscriptionId";
/** How long a test waits for the hub to see what it expects (a closed stream leaving it): a bound on a hang, never a measurement. */
const SETTLED = { timeout: 10_000, interval: 20 };
const tag = (id: string | number) => ({ "io.modelcontextprotocol/subscriptionId": id });

/**
 * Two more resource families beside the fixture's: boxes, whose `box` id is a handle (a capability, like a
 * notebook id) while `item` is not, and public docs, which have no handle.
 */
const boxes = defineResourceTemplate({
  uriTemplate: "fixture://boxes/{box}/{item}",
  name: "box item",
  handles: ["box"],
  read: () => undefined,
});
const docs = defineResourceTemplate({ uriTemplate: "fixture://docs/{page}", name: "doc", handles: [], read: () => undefined });
const server = testServer({ ...FIXTURE, resources: [...FIXTURE.resources, boxes, docs], limits: { listen: { keepAliveMs: 60_000 } } });
const readers: ReturnType<typeof sseReader>[] = [];
afterEach(async () => {
  await Promise.all(readers.splice(0).map((reader) => reader.cancel()));
});

async function listen(notifications: Record<string, unknown>, id: string | number = ID, target = server) {
  const response = await target.send("subscriptions/listen", { notifications }, { id });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/event-stream");
  expect(response.headers.get("x-accel-buffering")).toBe("no");
  const reader = sseReader(response);
  readers.push(reader);
  return reader;
}

const publish = (what: string, uri?: string) => server.send("tools/call", { name: "publish", arguments: { what, uri } }).then(readMessage);

describe("subscriptions/listen", () => {
  it("advertises listChanged and subscribe because the hub is bound", async () => {
    const { result } = await readMessage(await server.send("server/discover"));
    expect(result?.capabilities).toMatchObject({
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
    });
  });

  it("flushes its headers at once, then sends the acknowledgement first, with the honoured filter and subscriptionId = the request id", async () => {
    const reader = await listen({ toolsListChanged: true, resourceSubscriptions: ["test://r"], somethingElse: true }, 42);
    expect(await reader.frame()).toEqual({ comment: "listening" });
    expect(await reader.message()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { _meta: tag(42), notifications: { toolsListChanged: true, resourceSubscriptions: ["test://r"] } },
    });
  });

  it("delivers a published change tagged with the subscription id", async () => {
    const reader = await listen({ toolsListChanged: true }, "L1");
    await reader.message();
    await publish("tools");
    expect(await reader.message()).toEqual({ jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: tag("L1") } });
  });

  it("never sends a type the client did not ask for", async () => {
    const prompts = await listen({ promptsListChanged: true }, "prompts-only");
    await prompts.message();
    await publish("tools");
    await publish("prompts");
    expect(await prompts.message()).toMatchObject({ method: "notifications/prompts/list_changed" });
    expect(await prompts.message(300)).toBe("timeout");
  });

  it("delivers resources/updated for a subscribed URI and its sub-resources only", async () => {
    const reader = await listen({ resourceSubscriptions: ["fixture://boxes/b_1"] }, "res");
    await reader.message();
    await publish("updated", "fixture://boxes/b_1/i_a");
    await publish("updated", "fixture://boxes/b_12/i_b");
    await publish("updated", "fixture://boxes/b_1");
    expect(await reader.message()).toMatchObject({
      method: "notifications/resources/updated",
      params: { uri: "fixture://boxes/b_1/i_a", _meta: tag("res") },
    });
    expect(await reader.message()).toMatchObject({ params: { uri: "fixture://boxes/b_1" } });
    expect(await reader.message(300)).toBe("timeout");
  });

  it("fans one change out to several listeners", async () => {
    const listeners = await Promise.all([1, 2, 3].map((n) => listen({ resourcesListChanged: true }, `fan-${n}`)));
    await Promise.all(listeners.map((reader) => reader.message()));
    await publish("resources");
    for (const [index, reader] of listeners.entries()) {
      expect(await reader.message()).toEqual({
        jsonrpc: "2.0",
        method: "notifications/resources/list_changed",
        params: { _meta: tag(`fan-${index + 1}`) },
      });
    }
  });

  it("keeps request-scoped progress and log messages off the listen stream", async () => {
    const reader = await listen({ toolsListChanged: true });
    await reader.message();
    await server.send(
      "tools/call",
      { name: "publish", arguments: { what: "tools" } },
      {
        metaExtra: { progressToken: "p", "io.modelcontextprotocol/logLevel": "debug" },
      },
    );
    expect(await reader.message()).toMatchObject({ method: "notifications/tools/list_changed" });
    expect(await reader.message(300)).toBe("timeout");
  });

  it("acknowledges an empty honoured filter, sends the completion result and ends the stream", async () => {
    const response = await server.send("subscriptions/listen", { notifications: { unknownThing: true } }, { id: 5 });
    expect(await readSse(response)).toEqual([
      { jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { _meta: tag(5), notifications: {} } },
      {
        jsonrpc: "2.0",
        id: 5,
        result: {
          resultType: "complete",
          _meta: {
            "io.modelcontextprotocol/serverInfo": { name: FIXTURE.name, title: FIXTURE.title, version: FIXTURE.version },
            ...tag(5),
          },
        },
      },
    ]);
  });

  it("drops notification types the server cannot deliver from the acknowledgement, and never sends them", async () => {
    const toolsOnly = testServer({ tools: FIXTURE.tools });
    const reader = await listen(
      { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true, madeUp: true },
      7,
      toolsOnly,
    );
    expect(await reader.message()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { _meta: tag(7), notifications: { toolsListChanged: true } },
    });
    await createPublisher(env.SUBSCRIPTIONS, ANONYMOUS).resourcesListChanged();
    await createPublisher(env.SUBSCRIPTIONS, ANONYMOUS).promptsListChanged();
    expect(await reader.message(300)).toBe("timeout");
  });

  it("answers a malformed or oversized filter (over 64 URIs, over 12,000 bytes, a URI over 2,048 characters) with -32602 as JSON", async () => {
    const cases = [
      { resourceSubscriptions: "note://x" },
      { toolsListChanged: "yes" },
      { resourceSubscriptions: Array.from({ length: 65 }, (_, i) => `test://${i}`) },
      { resourceSubscriptions: Array.from({ length: 40 }, (_, i) => `test://${i}/${"x".repeat(400)}`) },
      { resourceSubscriptions: [`test://r/${"x".repeat(2_100)}`] },
    ];
    for (const [index, notifications] of cases.entries()) {
      const response = await server.send("subscriptions/listen", { notifications }, { id: 410 + index });
      expect(response.headers.get("content-type")).toContain("application/json");
      await expectError(response, 200, -32602, 410 + index);
    }
  });

  it("answers -32601 (404) when the Worker has no hub binding, and advertises no listChanged", async () => {
    const unbound = testServer(FIXTURE, { SUBSCRIPTIONS: undefined as unknown as string });
    const response = await unbound.send("subscriptions/listen", { notifications: { toolsListChanged: true } });
    expect(response.status).toBe(404);
    const { result } = await readMessage(await unbound.send("server/discover"));
    expect(result?.capabilities).toMatchObject({ tools: {}, prompts: {}, resources: {} });
  });

  it("frees the hub slot promptly when the client closes the stream", async () => {
    const hub = env.SUBSCRIPTIONS.getByName(ANONYMOUS_CALLERS);
    const before = await hub.count();
    const reader = await listen({ toolsListChanged: true }, "closing");
    await reader.message();
    expect(await hub.count()).toBe(before + 1);
    await reader.cancel();
    await expect.poll(() => hub.count(), SETTLED).toBe(before);
  });
});

describe("listen stream hygiene", () => {
  it("sends comment keep-alives at the configured interval (default 20 s, within 15-25 s)", async () => {
    const defaults = parseConfig({ MCP_ENV: "development" });
    expect(defaults.ok && defaults.config.limits.listen.keepAliveMs).toBe(20_000);
    const quick = testServer({ ...FIXTURE, limits: { listen: { keepAliveMs: 100 } } });
    const reader = await listen({ toolsListChanged: true }, "ka", quick);
    expect(await reader.frame()).toEqual({ comment: "listening" });
    await reader.message();
    // Two keep-alives where the default interval would send none within the read's bound (10 s): the interval is the configured one.
    expect(await reader.frame()).toEqual({ comment: "keepalive" });
    expect(await reader.frame()).toEqual({ comment: "keepalive" });
  });

  it("ends the stream gracefully with the completion result {resultType: complete, _meta: {subscriptionId}} after the maximum lifetime", async () => {
    const shortLived = testServer({ ...FIXTURE, limits: { listen: { maxLifetimeMs: 300 } } });
    const reader = await listen({ toolsListChanged: true }, "life", shortLived);
    await reader.message();
    expect(await reader.message()).toEqual({
      jsonrpc: "2.0",
      id: "life",
      result: {
        resultType: "complete",
        _meta: {
          "io.modelcontextprotocol/serverInfo": { name: "engine-fixture", title: "Engine fixture", version: "1.0.0" },
          ...tag("life"),
        },
      },
    });
    expect(await reader.message()).toBe("end");
  });

  it("ends the stream without a completion result when the hub restarts (evicted mid-stream), and a new listen works", async () => {
    const reader = await listen({ toolsListChanged: true }, "restart");
    await reader.message();
    await abortAllDurableObjects();
    expect(await reader.message()).toBe("end");
    const again = await listen({ toolsListChanged: true }, "restart-2");
    expect(await again.message()).toMatchObject({
      method: "notifications/subscriptions/acknowledged",
      params: { _meta: tag("restart-2") },
    });
    await publish("tools");
    expect(await again.message()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/tools/list_changed",
      params: { _meta: tag("restart-2") },
    });
  });
});

describe("privacy and sharding", () => {
  it("never announces one principal's resource changes to another principal's listeners", async () => {
    const reader = await listen({ resourceSubscriptions: ["fixture://boxes/shared"], resourcesListChanged: true }, "mine");
    await reader.message();
    const otherUser = createPublisher(env.SUBSCRIPTIONS, user("mallory"), (uri) => uri);
    await otherUser.resourceUpdated("fixture://boxes/shared");
    await otherUser.resourcesListChanged();
    expect(await reader.message(300)).toBe("timeout");
    // The hub checks the principal as well, even if an event reached the wrong hub.
    const hub = env.SUBSCRIPTIONS.getByName(GLOBAL_GROUP);
    expect(await hub.publish({ type: "resource_updated", uri: "fixture://boxes/shared", principal: "mallory" })).toBe(0);
    await createPublisher(env.SUBSCRIPTIONS, ANONYMOUS).resourceUpdated("fixture://boxes/shared");
    expect(await reader.message()).toMatchObject({ params: { uri: "fixture://boxes/shared" } });
    // Its own sub-resources reach it too, tagged with the subscription.
    await publish("updated", "fixture://boxes/shared/n_1");
    expect(await reader.message()).toEqual({
      jsonrpc: "2.0",
      method: "notifications/resources/updated",
      params: { uri: "fixture://boxes/shared/n_1", _meta: tag("mine") },
    });
  });

  it("announces list changes for everyone through the global group", async () => {
    const before = await env.SUBSCRIPTIONS.getByName(GLOBAL_GROUP).count();
    const listeners = await Promise.all(Array.from({ length: 8 }, (_, n) => listen({ toolsListChanged: true }, `s${n}`)));
    await Promise.all(listeners.map((reader) => reader.message()));
    expect((await env.SUBSCRIPTIONS.getByName(GLOBAL_GROUP).count()) - before).toBe(8);
    await publish("tools");
    for (const reader of listeners) expect(await reader.message()).toMatchObject({ method: "notifications/tools/list_changed" });
  });

  it("matches sub-resources by path boundary only", () => {
    expect(covers("file:///a", "file:///a/b.txt", "")).toBe(true);
    expect(covers("file:///a/", "file:///a/b.txt", "")).toBe(true);
    expect(covers("file:///a", "file:///ab", "")).toBe(false);
    expect(covers("file:///a", "file:///a", "")).toBe(true);
  });
});

describe("the handle rule: a subscription hears a sub-resource only if it names the resource's handle", () => {
  async function listeners(subscriptions: string[]) {
    const readers = [];
    for (const [index, uri] of subscriptions.entries()) {
      const reader = await listen({ resourceSubscriptions: [uri] }, `handle-${index}`);
      await reader.message();
      readers.push(reader);
    }
    return readers;
  }

  it("delivers a box's item to subscriptions that name the box, and to none that stop short of it (note:// style prefixes)", async () => {
    const [named, namedSlash, family, scheme, schemeOnly, partial] = await listeners([
      "fixture://boxes/b_1",
      "fixture://boxes/b_1/",
      "fixture://boxes",
      "fixture://",
      "fixture:",
      "fixture://boxes/b_",
    ]);
    await publish("updated", "fixture://boxes/b_1/i_1");
    expect(await named!.message()).toMatchObject({ params: { uri: "fixture://boxes/b_1/i_1" } });
    expect(await namedSlash!.message()).toMatchObject({ params: { uri: "fixture://boxes/b_1/i_1" } });
    for (const reader of [family, scheme, schemeOnly, partial]) expect(await reader!.message(200)).toBe("timeout");
  });

  it("treats every variable of a template as a handle unless it says otherwise", async () => {
    const [family, exact] = await listeners(["fixture://values", "fixture://values/k_1"]);
    await publish("updated", "fixture://values/k_1");
    expect(await exact!.message()).toMatchObject({ params: { uri: "fixture://values/k_1" } });
    expect(await family!.message(200)).toBe("timeout");
  });

  it("lets any prefix cover a template that declares no handle (handles: [])", async () => {
    const [family] = await listeners(["fixture://docs"]);
    await publish("updated", "fixture://docs/intro");
    expect(await family!.message()).toMatchObject({ params: { uri: "fixture://docs/intro" } });
  });

  it("delivers a URI the server does not declare only to a subscription to exactly that URI", async () => {
    const [prefix, exact] = await listeners(["other://x", "other://x/y"]);
    await publish("updated", "other://x/y");
    expect(await exact!.message()).toMatchObject({ params: { uri: "other://x/y" } });
    expect(await prefix!.message(200)).toBe("timeout");
  });

  it("refuses at startup a handle that is not one of the template's variables", () => {
    const typo = defineResourceTemplate({ uriTemplate: "fixture://t/{id}", name: "typo", handles: ["ID"], read: () => undefined });
    expect(() => testServer({ resources: [typo] })).toThrow(/handle "ID" is not one of its variables/);
  });
});
