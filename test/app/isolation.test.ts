/**
 * Anonymous callers kept apart by their handles alone. With authorization off every caller is the same principal,
 * so a notebook's id is the only thing that sets its owner apart: a subscription that names no notebook (`note://`,
 * `note:`) must never hear of, list or replay another caller's notes, in either era. Each check has a control
 * listener that names the notebook and does hear the change, so a silent stream means "refused", not "slow".
 */

import { connect, type Listener, type SseReader, sseReader } from "mcp-workers-engine/testing";
import { describe, expect, it } from "vitest";
import { answerOf, LEGACY, legacyRequest, MCP_URL } from "../wire";
import { fetchApp } from "./app";

const PREFIXES = ["note://", "note:", "note", "note://nb_"];
/**
 * How long a read waits for what a test expects (a listener's opening, the control's notification): a bound on a
 * hang that holds on a busy machine, never a measurement. A read that expects nothing passes its own, short, one.
 */
const EXPECTED_MS = 10_000;

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
const listen = (resourceSubscriptions: string[]): Promise<Listener> => client.listen({ resourceSubscriptions }, { timeoutMs: EXPECTED_MS });

/** A 2025 session subscribed to `uri`, listening on its GET stream. */
async function subscribedListener(uri: string): Promise<Listener> {
  const session = await connect(fetchApp, { era: "2025" });
  return session.listen({ resourceSubscriptions: [uri] }, { timeoutMs: EXPECTED_MS });
}

// Raw from here: resuming with an invented Last-Event-ID is an attack, not something a client's API does.
const legacy = (method: string, params: Record<string, unknown>, session?: string) =>
  fetchApp(legacyRequest(MCP_URL, method, params, session));

/** A 2025 session (stored at once: it declares elicitation) subscribed to `uri`. */
async function subscribedSession(uri: string): Promise<string> {
  const initialized = await legacy("initialize", {
    protocolVersion: LEGACY,
    capabilities: { elicitation: {} },
    clientInfo: { name: "t", version: "1" },
  });
  const session = initialized.headers.get("mcp-session-id")!;
  expect((await answerOf(await legacy("resources/subscribe", { uri }, session))).result).toEqual({});
  return session;
}

/** The session's GET stream, past its opening comment and priming event (an id with empty data). */
async function getStream(session: string, lastEventId?: string): Promise<SseReader> {
  const headers: Record<string, string> = { accept: "text/event-stream", "mcp-session-id": session, "mcp-protocol-version": LEGACY };
  if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
  const reader = sseReader((await fetchApp(new Request(MCP_URL, { headers }))).body!);
  expect(await reader.next(EXPECTED_MS)).toEqual({ comment: "listening" });
  expect(await reader.next(EXPECTED_MS)).toEqual({ id: expect.any(String), data: "" });
  return reader;
}

/** The next message of a stream (comments skipped), parsed: "timeout" when none comes within `timeoutMs`. */
async function nextMessage(reader: SseReader, timeoutMs = EXPECTED_MS): Promise<Record<string, unknown> | "timeout" | "end"> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const event = await reader.next(Math.max(1, deadline - Date.now()));
    if (typeof event === "string") return event;
    if (event.data) return JSON.parse(event.data);
  }
}

describe("anonymous callers never reach each other's notes through subscriptions", () => {
  it("2026-07-28: a listen prefix that names no notebook hears nothing of another caller's edits", async () => {
    const victim = await victimNotebook();
    const attackers = await Promise.all(PREFIXES.map((prefix) => listen([prefix])));
    const control = await listen([`note://${victim.notebook}`]);
    try {
      await victim.edit();
      expect(await control.next(EXPECTED_MS)).toMatchObject({ method: "notifications/resources/updated", params: { uri: victim.uri } });
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
      expect(await control.next(EXPECTED_MS)).toEqual({
        jsonrpc: "2.0",
        method: "notifications/resources/updated",
        params: { uri: victim.uri },
      });
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
      expect(await nextMessage(control)).toEqual({
        jsonrpc: "2.0",
        method: "notifications/resources/updated",
        params: { uri: victim.uri },
      });
      expect(await nextMessage(attacker, 300)).toBe("timeout");
    } finally {
      await Promise.all([attacker.cancel(), control.cancel()]);
    }
  });
});
