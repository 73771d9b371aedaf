/**
 * Anonymous callers kept apart by their handles alone. With authorization off every caller is the same principal,
 * so a notebook's id is the only thing that sets its owner apart: a subscription that names no notebook (`note://`,
 * `note:`) must never hear of, list or replay another caller's notes, in either era. Each check has a control
 * listener that names the notebook and does hear the change, so a silent stream means "refused", not "slow".
 */
import { describe, expect, it } from "vitest";
import { connect, type Listener } from "mcp-workers-engine/testing";
import { readMessage } from "../../engine/test/helpers/rpc";
import { sseReader } from "../../engine/test/helpers/sse";
import { app, fetchApp } from "./app";

type Reader = ReturnType<typeof sseReader>;

const PREFIXES = ["note://", "note:", "note", "note://nb_"];

const client = await connect(fetchApp);
const tool = (name: string, args: Record<string, unknown>) => client.callTool(name, args);

/** Someone else's notebook with one note, which they then edit. */
async function victimNotebook() {
  const notebook = (await tool("create_notebook", { title: "Private" })).structuredContent.notebook_id as string;
  const note = (await tool("add_note", { notebook_id: notebook, title: "Salary", body: "confidential" })).structuredContent.id as string;
  return {
    notebook,
    note,
    uri: `note://${notebook}/${note}`,
    edit: () => tool("update_note", { notebook_id: notebook, note_id: note, body: "edited" }),
  };
}

/** A 2026-07-28 listener subscribed to `resourceSubscriptions`, once acknowledged. */
const listen = (resourceSubscriptions: string[]): Promise<Listener> => client.listen({ resourceSubscriptions });

/** A 2025 session subscribed to `uri`, listening on its GET stream. */
async function subscribedListener(uri: string): Promise<Listener> {
  const session = await connect(fetchApp, { era: "2025" });
  return session.listen({ resourceSubscriptions: [uri] });
}

// Raw from here: resuming with an invented Last-Event-ID is an attack, not something a client's API does.
const VERSION = "2025-11-25";
const legacyHeaders = (session?: string): Record<string, string> => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": VERSION,
  ...(session && { "mcp-session-id": session }),
});
const legacy = (method: string, params: Record<string, unknown>, session?: string) =>
  app.post({ jsonrpc: "2.0", id: 1, method, params }, legacyHeaders(session));

/** A 2025 session (stored at once: it declares elicitation) subscribed to `uri`. */
async function subscribedSession(uri: string): Promise<string> {
  const initialized = await legacy("initialize", {
    protocolVersion: VERSION,
    capabilities: { elicitation: {} },
    clientInfo: { name: "t", version: "1" },
  });
  const session = initialized.headers.get("mcp-session-id")!;
  expect((await readMessage(await legacy("resources/subscribe", { uri }, session))).result).toEqual({});
  return session;
}

/** The session's GET stream, past its opening comment and priming event. */
async function getStream(session: string, lastEventId?: string): Promise<Reader> {
  const headers: Record<string, string> = { accept: "text/event-stream", "mcp-session-id": session, "mcp-protocol-version": VERSION };
  if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
  const reader = sseReader(await app.fetch("http://localhost:8787/mcp", { headers }));
  expect(await reader.frame()).toEqual({ comment: "listening" });
  expect(await reader.frame()).toEqual({ priming: expect.any(String) });
  return reader;
}

describe("anonymous callers never reach each other's notes through subscriptions", () => {
  it("2026-07-28: a listen prefix that names no notebook hears nothing of another caller's edits", async () => {
    const victim = await victimNotebook();
    const attackers = await Promise.all(PREFIXES.map((prefix) => listen([prefix])));
    const control = await listen([`note://${victim.notebook}`]);
    try {
      await victim.edit();
      expect(await control.next()).toMatchObject({ method: "notifications/resources/updated", params: { uri: victim.uri } });
      for (const attacker of attackers) expect(await attacker.tryNext(300)).toBeUndefined();
    } finally {
      await Promise.all([...attackers, control].map((listener) => listener.close()));
    }
  });

  it("2025: a session subscribed to note:// hears nothing live of another caller's edits", async () => {
    const victim = await victimNotebook();
    const attacker = await subscribedListener("note://");
    const control = await subscribedListener(`note://${victim.notebook}`);
    try {
      await victim.edit();
      expect(await control.next()).toEqual({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: victim.uri } });
      expect(await attacker.tryNext(300)).toBeUndefined();
    } finally {
      await Promise.all([attacker.close(), control.close()]);
    }
  });

  it("2025: reconnecting with an invented Last-Event-ID replays none of the edits another caller made meanwhile", async () => {
    const victim = await victimNotebook();
    const attackerSession = await subscribedSession("note://");
    const controlSession = await subscribedSession(`note://${victim.notebook}`);
    // Both listen once, so the hubs keep their replay buffer, then go offline.
    await (await getStream(attackerSession)).cancel();
    await (await getStream(controlSession)).cancel();
    await victim.edit();
    await victim.edit();

    const invented = "get:AAAAAAAAAAAA:0:0";
    const control = await getStream(controlSession, invented);
    const attacker = await getStream(attackerSession, invented);
    try {
      expect(await control.message()).toEqual({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: victim.uri } });
      expect(await attacker.message(300)).toBe("timeout");
    } finally {
      await Promise.all([attacker.cancel(), control.cancel()]);
    }
  });
});
