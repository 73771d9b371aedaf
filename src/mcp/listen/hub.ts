/**
 * @module hub
 * The subscription hub: a Durable Object that fans published events out to `subscriptions/listen` streams.
 *
 * Each listener is a WebSocket from the Worker invocation that holds the client's SSE response. The hub accepts
 * it with the WebSocket Hibernation API, so an idle hub is evicted from memory while its sockets stay open; the
 * listener's filter lives in the socket attachment and survives eviction. Hubs are sharded (see `publish.ts`).
 *
 * For 2025 sessions, whose GET stream a client resumes with Last-Event-ID, a hub that serves sessions also numbers
 * its events and keeps the newest in storage (the replay buffer, `REPLAY_BUFFER`); a session listener that names
 * the position it last saw gets what it missed before anything live. 2026-07-28 has no resumption: a hub that never
 * serves a session writes nothing.
 */

import { DurableObject } from "cloudflare:workers";
import { decodeUtf8Strict, jsonBytes } from "../encoding";
import { MAX_ATTACHMENT_BYTES, storedSize } from "./stored-size";

/** What a hub sends on a listener socket: an event, or a probe asking the listener's Worker to write. */
export type HubMessage = HubEvent | { type: "probe" };
const PROBE: HubMessage = { type: "probe" };

export type HubEvent = (
  | { type: "tools_list_changed" | "prompts_list_changed" | "resources_list_changed"; principal?: string }
  | { type: "resource_updated"; uri: string; principal?: string }
  /** A task's new status (Tasks extension): its DetailedTask, for its own principal only. */
  | { type: "task_status"; taskId: string; task: Record<string, unknown>; principal: string }
) & {
  /** The event's position in this hub's replay buffer, when the hub keeps one (it serves 2025 sessions). */
  seq?: number;
};

/** What a listener asked for, as stored on its socket (at most 16 KiB as V8 serialises it, a platform limit). */
export interface ListenerFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  /** Tasks extension: the tasks whose status changes the listener wants (`notifications/tasks`). */
  taskIds?: string[];
}

export interface ListenerSpec {
  filter: ListenerFilter;
  principal: string;
  /** Refuse the listener when the hub already holds this many. */
  maxListeners: number;
  /** Refuse it when its principal already holds this many here (0: no per-principal cap). */
  maxPerPrincipal: number;
  /** A legacy session's stream: only the newest stream of a session stays open, and its filter can change. */
  session?: string;
  /** A resuming session stream: replay the buffered events after this position first. */
  after?: number;
}

/**
 * The replay buffer for session streams. Why these bounds: a session's client reconnects within seconds, and the
 * buffer is shared by every listener of the hub. `maxBytes` counts the events' JSON as stored; the buffer is kept
 * while a session listens, and for `windowMs` after the last one left.
 */
export const REPLAY_BUFFER = { maxEvents: 100, maxBytes: 64 * 1024, windowMs: 5 * 60_000 } as const;

/** The response header that tells a listener the hub's current position. */
export const POSITION_HEADER = "x-mcp-position";

interface BufferedEvent {
  seq: number;
  event: HubEvent;
  bytes: number;
}

interface Attachment {
  filter: ListenerFilter;
  principal: string;
}

/** A sub-resource matches its parent: `file:///a` covers `file:///a/b.txt`, but not `file:///ab`. */
export function uriMatches(uri: string, subscribed: string): boolean {
  if (uri === subscribed) return true;
  const parent = subscribed.endsWith("/") ? subscribed : `${subscribed}/`;
  return uri.startsWith(parent);
}

export function wants(filter: ListenerFilter, event: HubEvent): boolean {
  switch (event.type) {
    case "tools_list_changed":
      return filter.toolsListChanged === true;
    case "prompts_list_changed":
      return filter.promptsListChanged === true;
    case "resources_list_changed":
      return filter.resourcesListChanged === true;
    case "resource_updated":
      return (filter.resourceSubscriptions ?? []).some((subscribed) => uriMatches(event.uri, subscribed));
    case "task_status":
      return (filter.taskIds ?? []).includes(event.taskId);
  }
}

/** The listener spec the Worker sends with the upgrade: base64url of UTF-8 JSON (header values must be ASCII). */
function decodeSpec(header: string | null): ListenerSpec | undefined {
  if (header === null) return undefined;
  try {
    const bytes = Uint8Array.fromBase64(header, { alphabet: "base64url" });
    return JSON.parse(decodeUtf8Strict(bytes)) as ListenerSpec;
  } catch {
    return undefined;
  }
}

/** The hub could not store the listener's attachment: refused, and the socket never accepted. */
const tooLargeToStore = () => new Response("Listener filter too large to store", { status: 413 });

/**
 * The listener's attachment, or undefined when it cannot be read (never stored, or not of this shape); such a
 * socket is closed. Why: one unreadable socket must never stop the hub serving everyone else.
 */
function readAttachment(socket: WebSocket): Attachment | undefined {
  let attachment: unknown;
  try {
    attachment = socket.deserializeAttachment();
  } catch {
    attachment = undefined;
  }
  if (isAttachment(attachment)) return attachment;
  closeQuietly(socket, 1011, "listener state lost");
  return undefined;
}

function isAttachment(value: unknown): value is Attachment {
  if (typeof value !== "object" || value === null) return false;
  const { filter, principal } = value as Partial<Attachment>;
  return (
    typeof principal === "string" &&
    typeof filter === "object" &&
    filter !== null &&
    (filter.resourceSubscriptions === undefined || Array.isArray(filter.resourceSubscriptions)) &&
    (filter.taskIds === undefined || Array.isArray(filter.taskIds))
  );
}

function closeQuietly(socket: WebSocket, code: number, reason: string): void {
  try {
    socket.close(code, reason);
  } catch {
    // already closed
  }
}

const principalTag = (principal: string) => `p:${principal}`.slice(0, 256);
const sessionTag = (session: string) => `s:${session}`;
/** Every session listener carries this tag too: while one is connected, the hub keeps its replay buffer. */
const SESSIONS_TAG = "sessions";

const POSITION_KEY = "replay:seq";
const UNTIL_KEY = "replay:until";
const EVENT_PREFIX = "replay:e:";
const eventKey = (seq: number) => `${EVENT_PREFIX}${String(seq).padStart(15, "0")}`;

/** A full hub probes its listeners this many times, this far apart, before it refuses one (a round per proxy hop). */
const PROBE_ROUNDS = 3;
const PROBE_GAP_MS = 100;

export class SubscriptionHub extends DurableObject<unknown> {
  /** The probe round in progress, shared by every listener that found the hub full meanwhile. */
  private probing: Promise<void> | undefined;

  /**
   * Accepts one listener socket; answers 413 when its attachment could not be stored, and 429 when the hub or
   * the principal is at its cap. Nothing is accepted until the attachment is stored.
   */
  async fetch(request: Request): Promise<Response> {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response("Expected a WebSocket upgrade", { status: 426 });
    const spec = decodeSpec(request.headers.get("x-mcp-listener"));
    if (!spec) return new Response("Missing or malformed listener spec", { status: 400 });
    const attachment: Attachment = { filter: spec.filter, principal: spec.principal };
    // Why before anything else: a socket accepted without its attachment could never be read again (the Worker
    // refuses such filters first; this guards the hub itself).
    if (storedSize(attachment) > MAX_ATTACHMENT_BYTES) return tooLargeToStore();
    // Why: caps keep one hub (and one principal) from holding unbounded sockets and memory. At a cap, listeners
    // whose clients left unnoticed are probed out first (see probeListeners).
    const tag = principalTag(spec.principal);
    for (let round = 0; round < PROBE_ROUNDS && this.capReached(spec, tag); round++) {
      this.probing ??= this.probeListeners().finally(() => {
        this.probing = undefined;
      });
      await this.probing;
    }
    const cap = this.capReached(spec, tag);
    if (cap === "hub") return new Response("Hub is full", { status: 429 });
    if (cap === "principal") return new Response("Too many listeners for this principal", { status: 429 });
    const { 0: client, 1: server } = new WebSocketPair();
    // Stored before the socket is accepted: if the platform refuses it, the hub never holds the socket.
    try {
      server.serializeAttachment(attachment);
    } catch {
      return tooLargeToStore();
    }
    const tags = [tag];
    if (spec.session) {
      // A session has one notification stream: a newer one replaces the older (each message goes on one stream).
      this.closeSession(spec.session, "replaced by a newer stream");
      tags.push(sessionTag(spec.session), SESSIONS_TAG);
      this.keepBuffer();
    }
    this.ctx.acceptWebSocket(server, tags);
    const position = this.ctx.storage.kv.get<number>(POSITION_KEY) ?? 0;
    if (spec.session && spec.after !== undefined) this.replay(server, spec, position);
    return new Response(null, { status: 101, webSocket: client, headers: { [POSITION_HEADER]: String(position) } });
  }

  /** The cap a new listener would exceed, if any. */
  private capReached(spec: ListenerSpec, tag: string): "hub" | "principal" | undefined {
    if (this.ctx.getWebSockets().length >= spec.maxListeners) return "hub";
    if (spec.maxPerPrincipal > 0 && this.ctx.getWebSockets(tag).length >= spec.maxPerPrincipal) return "principal";
    return undefined;
  }

  /**
   * One probe round: asks every listener's Worker to write to its client, then gives them time to react. Why: the
   * runtime notices a client that hung up only when a write to it fails (and each proxy hop in front needs one more
   * write), so a listener whose client is gone would hold its slot until its next keep-alive, 20 s or more later.
   * The write makes its Worker see the disconnect and close the socket, which frees the slot.
   */
  private async probeListeners(): Promise<void> {
    const probe = JSON.stringify(PROBE);
    for (const socket of this.ctx.getWebSockets()) {
      try {
        socket.send(probe);
      } catch {
        // closing already: it stops counting by itself
      }
    }
    await scheduler.wait(PROBE_GAP_MS);
  }

  /** Sends the event to every matching listener; returns how many received it. A dead socket never stops the rest. */
  async publish(event: HubEvent): Promise<number> {
    const seq = this.buffer(event);
    const message = JSON.stringify(seq === undefined ? event : { ...event, seq });
    let delivered = 0;
    for (const socket of this.ctx.getWebSockets()) {
      const attachment = readAttachment(socket);
      if (!attachment) continue;
      // Why: a private event (one naming a principal) reaches only that principal's listeners.
      if (event.principal !== undefined && event.principal !== attachment.principal) continue;
      if (!wants(attachment.filter, event)) continue;
      try {
        socket.send(message);
        delivered++;
      } catch {
        closeQuietly(socket, 1011, "send failed");
      }
    }
    return delivered;
  }

  /**
   * Replaces the filter of a legacy session's stream (after resources/subscribe or unsubscribe). Returns false,
   * storing nothing, when the new filter could not be stored; callers validate first, so that is a bug guard.
   */
  async updateSessionFilter(session: string, filter: ListenerFilter): Promise<boolean> {
    const updates: { socket: WebSocket; attachment: Attachment }[] = [];
    for (const socket of this.ctx.getWebSockets(sessionTag(session))) {
      const current = readAttachment(socket);
      if (current) updates.push({ socket, attachment: { ...current, filter } });
    }
    if (updates.some(({ attachment }) => storedSize(attachment) > MAX_ATTACHMENT_BYTES)) return false;
    for (const { socket, attachment } of updates) {
      try {
        socket.serializeAttachment(attachment);
      } catch {
        // Unreachable given the measure above; should it happen, the old filter would be stale: end the stream.
        closeQuietly(socket, 1011, "listener state could not be stored");
      }
    }
    return true;
  }

  /** Ends a legacy session's stream (the session was deleted or expired). */
  async closeSession(session: string, reason = "session ended"): Promise<void> {
    for (const socket of this.ctx.getWebSockets(sessionTag(session))) closeQuietly(socket, 1000, reason);
  }

  /** How many listeners this hub holds (for tests and operators). */
  async count(): Promise<number> {
    return this.ctx.getWebSockets().length;
  }

  /** Keeps the replay buffer for `REPLAY_BUFFER.windowMs` from now (a session listener came or went). */
  private keepBuffer(): void {
    this.ctx.storage.kv.put(UNTIL_KEY, Date.now() + REPLAY_BUFFER.windowMs);
  }

  /**
   * Numbers and stores the event while the hub serves sessions (one is listening, or one left within the window);
   * returns its position, or undefined when nothing is kept. Drops the oldest events beyond the buffer's bounds.
   */
  private buffer(event: HubEvent): number | undefined {
    const kv = this.ctx.storage.kv;
    const now = Date.now();
    const until = kv.get<number>(UNTIL_KEY) ?? 0;
    if (this.ctx.getWebSockets(SESSIONS_TAG).length > 0) {
      // Renew the window only when half of it is gone: one storage write per half window, not per event.
      if (until - now < REPLAY_BUFFER.windowMs / 2) this.keepBuffer();
    } else if (until < now) {
      return undefined;
    }
    const seq = (kv.get<number>(POSITION_KEY) ?? 0) + 1;
    kv.put(POSITION_KEY, seq);
    kv.put(eventKey(seq), { seq, event, bytes: jsonBytes(event) } satisfies BufferedEvent);
    let count = 0;
    let bytes = 0;
    for (const [key, stored] of kv.list<BufferedEvent>({ prefix: EVENT_PREFIX, reverse: true })) {
      count++;
      bytes += stored.bytes;
      if (count > REPLAY_BUFFER.maxEvents || bytes > REPLAY_BUFFER.maxBytes) kv.delete(key);
    }
    return seq;
  }

  /**
   * Sends a resuming session listener what it missed: the buffered events after `spec.after` that it may see. A
   * position ahead of the hub's (unknown to it) replays nothing; one older than the buffer replays all it holds.
   */
  private replay(socket: WebSocket, spec: ListenerSpec, position: number): void {
    if (spec.after === undefined || spec.after >= position) return;
    for (const [, stored] of this.ctx.storage.kv.list<BufferedEvent>({ prefix: EVENT_PREFIX, startAfter: eventKey(spec.after) })) {
      // Why: the same rule as live delivery, a private event reaches only its principal's listeners.
      if (stored.event.principal !== undefined && stored.event.principal !== spec.principal) continue;
      if (!wants(spec.filter, stored.event)) continue;
      socket.send(JSON.stringify({ ...stored.event, seq: stored.seq }));
    }
  }

  async webSocketMessage(): Promise<void> {
    // Listeners never send anything; the socket exists only to receive events.
  }

  async webSocketClose(socket: WebSocket, code: number, reason: string): Promise<void> {
    // A session's stream ended: keep buffering for a while, so that it can resume where it stopped.
    if (this.ctx.getTags(socket).includes(SESSIONS_TAG)) this.keepBuffer();
    // Complete the close handshake (compatibility dates before 2026-04-07 do not auto-reply). 1005/1006 cannot be sent.
    closeQuietly(socket, code === 1005 || code === 1006 ? 1000 : code, reason);
  }
}
