/**
 * A 2025 session's resources/subscribe: the whole subscription set becomes the filter of the session's stream,
 * stored on a hub socket, so it is measured as stored before anything is saved. In a file of its own: Durable
 * Objects are isolated per test file, so these hubs and sessions disturb no other test.
 */

import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createPublisher } from "../../src/listen/publish";
import { ANONYMOUS } from "../../src/wire/principal";
import { fixture, post, readMessage, sessionName } from "../helpers/rpc";
import { sseReader } from "../helpers/sse";
import { sessionStreamAttached } from "../hub-groups";

type Json = Record<string, any>;
const VERSION = "2025-11-25";

function legacyCall(method: string, params: Json, session?: string) {
  return post(
    { jsonrpc: "2.0", id: 1, method, params },
    {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": VERSION,
      ...(session && { "mcp-session-id": session }),
    },
  );
}

/** A new session; by default one whose client can be asked things, so its state is stored at initialize. */
async function openSession(capabilities: Json = { sampling: {} }): Promise<string> {
  const response = await legacyCall("initialize", { protocolVersion: VERSION, capabilities });
  return response.headers.get("mcp-session-id")!;
}

async function openStream(session: string) {
  const stream = sseReader(
    await fixture.fetch("http://localhost:8787/mcp", {
      headers: { accept: "text/event-stream", "mcp-session-id": session, "mcp-protocol-version": VERSION },
    }),
  );
  expect(await stream.frame()).toEqual({ comment: "listening" });
  await sessionStreamAttached(session);
  return stream;
}

const savedSubscriptions = (session: string) =>
  runInDurableObject(
    env.LEGACY_SESSIONS.getByName(sessionName(session)),
    async (_instance, state) => (await state.storage.get<Json>("session"))!.subscriptions,
  );

/** A URI of 2,048 UTF-16 units (the most one may have) ending in `tail`: 4 KiB as V8 stores it. */
const longUri = (index: number, tail: string) => {
  const head = `fixture://${index}/`;
  return `${head}${"x".repeat(2_048 - head.length - tail.length)}${tail}`;
};

describe("2025 session subscriptions changed at once", () => {
  it("keeps every URI of subscribes sent at the same time: none drops another's", async () => {
    const session = await openSession();
    const uris = Array.from({ length: 8 }, (_, index) => `fixture://concurrent/${index}`);
    const answers = await Promise.all(uris.map((uri) => legacyCall("resources/subscribe", { uri }, session)));
    for (const answer of answers) expect((await readMessage(answer)).result).toEqual({});
    expect([...(await savedSubscriptions(session))].sort()).toEqual([...uris].sort());
  });
});

describe("2025 session subscriptions measured as stored", () => {
  for (const [name, tail] of [
    ["above U+00FF", "\u0101"],
    ["above U+FFFF", "\u{1F600}"],
  ]) {
    it(`refuses with -32602, saving nothing, the subscription that makes a session's set too large to store (characters ${name}); its GET stream keeps working`, async () => {
      const session = await openSession();
      const stream = await openStream(session);
      const uris = [0, 1, 2, 3].map((index) => longUri(index, tail!));
      for (const uri of uris.slice(0, 2))
        expect((await readMessage(await legacyCall("resources/subscribe", { uri }, session))).result).toEqual({});

      for (const uri of uris.slice(2)) {
        const refused = await legacyCall("resources/subscribe", { uri }, session);
        expect(refused.status).toBe(200);
        const message = await readMessage(refused);
        expect(message.error?.code).toBe(-32602);
        expect(message.error?.message).toMatch(/^Invalid params: .*12000 bytes as stored/);
      }
      expect(await savedSubscriptions(session)).toEqual(uris.slice(0, 2));

      // The open stream still hears its subscriptions, and a new GET stream for the session works too.
      await createPublisher(env.SUBSCRIPTIONS, ANONYMOUS).resourceUpdated(uris[1]!);
      expect(await stream.message()).toEqual({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: uris[1] } });
      const again = await openStream(session);
      expect(await stream.message()).toBe("end"); // replaced by the newer stream
      await createPublisher(env.SUBSCRIPTIONS, ANONYMOUS).resourceUpdated(uris[0]!);
      expect(await again.message()).toEqual({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: uris[0] } });
      await again.cancel();
    });
  }

  for (const [stored, capabilities] of [
    ["stored at initialize", { sampling: {} }],
    ["stored on its first subscription", {}],
  ] as const) {
    it(`refuses the oversized subscription the same way when no stream is open (a session ${stored}), and the next GET stream works`, async () => {
      const session = await openSession(capabilities);
      const uris = [0, 1, 2].map((index) => longUri(index, "\u0101"));
      for (const uri of uris.slice(0, 2)) await legacyCall("resources/subscribe", { uri }, session);
      expect((await readMessage(await legacyCall("resources/subscribe", { uri: uris[2] }, session))).error?.code).toBe(-32602);
      expect(await savedSubscriptions(session)).toEqual(uris.slice(0, 2));

      const stream = await openStream(session);
      await createPublisher(env.SUBSCRIPTIONS, ANONYMOUS).resourceUpdated(uris[1]!);
      expect(await stream.message()).toEqual({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: uris[1] } });
      // Unsubscribing is never refused: it only makes the set smaller.
      expect((await readMessage(await legacyCall("resources/unsubscribe", { uri: uris[1] }, session))).result).toEqual({});
      expect(await savedSubscriptions(session)).toEqual(uris.slice(0, 1));
      await stream.cancel();
    });
  }
});
