/**
 * subscriptions/listen across clients: official clients (@modelcontextprotocol/client 2.4.0, pinned to
 * 2026-07-28) listen while another client changes a note through the running Worker.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, inject, it } from "vitest";
import { appBinds } from "./app-bindings";

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

async function connect() {
  const client = new Client({ name: "e2e-listen", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(inject("mcpUrl"))));
  open.push(client);
  return client;
}

/** Collects the URIs of resources/updated notifications a client receives. */
function updatesOf(client: Client): string[] {
  const uris: string[] = [];
  client.setNotificationHandler("notifications/resources/updated", (notification) => {
    uris.push(notification.params.uri);
  });
  return uris;
}

describe("change notifications", () => {
  it("are advertised exactly when the app binds SUBSCRIPTIONS", async () => {
    const client = await connect();
    const capabilities = client.getServerCapabilities();
    if (appBinds("SUBSCRIPTIONS")) expect(capabilities).toMatchObject({ tools: { listChanged: true }, resources: { subscribe: true } });
    else expect(capabilities).toMatchObject({ tools: {}, resources: {} });
    if (!appBinds("SUBSCRIPTIONS")) expect(capabilities?.tools?.listChanged).toBeUndefined();
  });
});

describe.runIf(appBinds("SUBSCRIPTIONS"))("listen with several clients", () => {
  it("delivers a note update to every client subscribed to it, and to no other", async () => {
    const editor = await connect();
    const created: any = await editor.callTool({ name: "create_notebook", arguments: {} });
    const notebook = created.structuredContent.notebook_id;
    const add = async (title: string) =>
      ((await editor.callTool({ name: "add_note", arguments: { notebook_id: notebook, title, body: "x" } })) as any).structuredContent.id;
    const watched = `note://${notebook}/${await add("watched")}`;
    const other = `note://${notebook}/${await add("other")}`;

    const [first, second, bystander] = await Promise.all([connect(), connect(), connect()]);
    const received = [updatesOf(first), updatesOf(second), updatesOf(bystander)];
    const subscriptions = await Promise.all([
      first.listen({ resourceSubscriptions: [watched] }),
      second.listen({ resourceSubscriptions: [`note://${notebook}`] }), // the parent covers its notes
      bystander.listen({ resourceSubscriptions: [other] }),
    ]);
    expect(subscriptions[0].honoredFilter).toEqual({ resourceSubscriptions: [watched] });

    const update = (uri: string) =>
      editor.callTool({ name: "update_note", arguments: { notebook_id: notebook, note_id: uri.split("/").pop(), body: "changed" } });
    await update(watched);
    await expect.poll(() => received.slice(0, 2)).toEqual([[watched], [watched]]);
    // One caller's events reach a listener in the order they were published: once the bystander hears of the note
    // it watches, changed after, it would have heard of the first change before, had it been sent to it.
    await update(other);
    await expect.poll(() => received[2]).toEqual([other]);
    expect(received[0]).toEqual([watched]);

    await subscriptions[0].close();
    expect(await subscriptions[0].closed).toBe("local");
  });

  it("announces no note list change with authorization off: notes are unlisted handles, the same for every caller", async () => {
    const editor = await connect();
    const listener = await connect();
    const created: any = await editor.callTool({ name: "create_notebook", arguments: {} });
    const notebook = created.structuredContent.notebook_id;
    let listChanges = 0;
    listener.setNotificationHandler("notifications/resources/list_changed", () => {
      listChanges++;
    });
    const updates = updatesOf(listener);
    const subscription = await listener.listen({ resourcesListChanged: true, resourceSubscriptions: [`note://${notebook}`] });
    expect(subscription.honoredFilter).toEqual({ resourcesListChanged: true, resourceSubscriptions: [`note://${notebook}`] });
    const added: any = await editor.callTool({ name: "add_note", arguments: { notebook_id: notebook, title: "new", body: "x" } });
    await editor.callTool({ name: "update_note", arguments: { notebook_id: notebook, note_id: added.structuredContent.id, body: "y" } });
    // One principal's events arrive in order: once the update is here, a list change published before it would be too.
    await expect.poll(() => updates).toEqual([`note://${notebook}/${added.structuredContent.id}`]);
    expect(listChanges).toBe(0);
    const listed = await listener.listResources();
    // The guide and the skill's SKILL.md: public, and no note.
    expect(listed.resources.map((resource) => resource.uri)).toEqual(["notes://guide", "skill://notebook-keeping/SKILL.md"]);
  });
});
