/**
 * @module listen/hub
 * The subscription hub: a Durable Object that fans published events out to `subscriptions/listen` streams.
 *
 * Each listener is a WebSocket from the Worker invocation that holds the client's SSE response. The hub accepts
 * it with the WebSocket Hibernation API, so an idle hub is evicted from memory while its sockets stay open; the
 * listener's filter lives in the socket attachment and survives eviction.
 *
 * Hubs come in groups that grow with their listeners (see `groups.ts`): the root of a group admits every listener
 * (or names the shard to join), takes every publish and forwards it to the group's other shards, and keeps the
 * number of shards in its storage, so it survives eviction.
 *
 * For 2025 sessions, whose GET stream a client resumes with Last-Event-ID, a root whose group serves sessions also
 * numbers its events and keeps the newest in storage (the replay buffer, `REPLAY_BUFFER`): the root sees every event
 * of its group, so one numbering holds for the whole group. A session listener that names the position it last saw
 * gets what it missed before anything live (from the root, wherever it joined). 2026-07-28 has no resumption: a
 * group that never serves a session writes nothing but its shard count.
 */

import { DurableObject } from "cloudflare:workers";
import { decodeUtf8Strict, jsonBytes } from "../util/encoding";
import { describeError, log } from "../util/log";
import { type GroupLimits, LAST_RESORT_HEADER, maxShards, SHARD_FULL_STATUS, SHARD_HEADER, shardCap, shardName } from "./groups";
import { MAX_ATTACHMENT_BYTES, storedSize } from "./stored-size";

/** What a hub sends on a listener socket: an event, or a probe asking the listener's Worker to write. */
export type HubMessage = HubEvent | { type: "probe" };
const PROBE: HubMessage = { type: "probe" };

export type HubEvent = (
  | { type: "tools_list_changed" | "prompts_list_changed" | "resources_list_changed"; principal?: string }
  /**
   * `handle`: the beginning of `uri` a subscription must name to hear about it as a sub-resource (see `covers`),
   * computed by the publisher from the resource declarations. Missing (an event buffered before it existed): the
   * whole URI, so only a subscription to exactly that URI hears it.
   */
  | { type: "resource_updated"; uri: string; handle?: string; principal?: string }
  /** A task's new status (Tasks extension): its DetailedTask, for its own principal only. */
  | { type: "task_status"; taskId: string; task: Record<string, unknown>; principal: string }
) & {
  /** The event's position in its group's replay buffer, when the root keeps one (the group serves 2025 sessions). */
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

export interface ListenerSpec extends GroupLimits {
  filter: ListenerFilter;
  principal: string;
  /** The group it joins: its root's name (see `groups.ts`). */
  group: string;
  /** The shard it joins: 0, the root (which accepts it or names another), or the shard the root named. */
  shard: number;
  /** To the root: the shards that already answered this listener "full", so that it names another. */
  tried?: number[];
  /** A legacy session's stream: only the newest stream of a session stays open, and its filter can change. */
  session?: string;
  /** A resuming session stream: replay the buffered events after this position first (root only). */
  after?: number;
}

/** What a shard tells the root after a delivery: how many received the event, and whether it serves sessions. */
export interface Delivery {
  delivered: number;
  sessions: number;
}

/** The root's answer to a listener that joined a shard and resumes: what it missed, and where the group is now. */
export interface Replay {
  position: number;
  events: HubEvent[];
}

/**
 * The replay buffer for session streams. Why these bounds: a session's client reconnects within seconds, and the
 * buffer is shared by every listener of the group. `maxBytes` counts the events' JSON as stored; the buffer is kept
 * while a session listens, and for `windowMs` after the last one left.
 */
export const REPLAY_BUFFER = { maxEvents: 100, maxBytes: 64 * 1024, windowMs: 5 * 60_000 } as const;

/** The response header that tells a listener the group's current position. */
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

/**
 * Whether a subscription to `subscribed` covers `uri`: the URI itself, or a sub-resource of it (`file:///a` covers
 * `file:///a/b.txt`, not `file:///ab`) whose handle part the subscription names.
 *
 * Why the handle rule: a handle is a capability. A prefix that names no handle (`note://`, `note:`) would otherwise
 * hear every caller's resource URIs, handles included, and with authorization off every caller is the same
 * principal, so nothing else keeps them apart. It holds for live delivery and for the replay buffer alike.
 */
export function covers(subscribed: string, uri: string, handle: string = uri): boolean {
  if (uri === subscribed) return true;
  const parent = subscribed.endsWith("/") ? subscribed : `${subscribed}/`;
  return uri.startsWith(parent) && subscribed.startsWith(handle);
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
      return (filter.resourceSubscriptions ?? []).some((subscribed) => covers(subscribed, event.uri, event.handle));
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
  // Why remembered: every delivery reads every socket's attachment, and deserializing it is most of a delivery's cost
  // per listener. The copy lives as long as this object's memory does (an evicted hub reads them again), and every
  // write of an attachment (`writeAttachment`) replaces it.
  const known = attachments.get(socket);
  if (known) return known;
  let attachment: unknown;
  try {
    attachment = socket.deserializeAttachment();
  } catch {
    attachment = undefined;
  }
  if (isAttachment(attachment)) {
    attachments.set(socket, attachment);
    return attachment;
  }
  closeQuietly(socket, 1011, "listener state lost");
  return undefined;
}

/** The attachments read or written in this object's lifetime, by socket. */
const attachments = new WeakMap<WebSocket, Attachment>();

/** Stores a socket's attachment (throws as `serializeAttachment` does when it cannot), and remembers it. */
function writeAttachment(socket: WebSocket, attachment: Attachment): void {
  socket.serializeAttachment(attachment);
  attachments.set(socket, attachment);
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

const sessionTag = (session: string) => `s:${session}`;
/** Every session listener carries this tag too: while one is connected, the group keeps its replay buffer. */
const SESSIONS_TAG = "sessions";

const POSITION_KEY = "replay:seq";
const UNTIL_KEY = "replay:until";
const EVENT_PREFIX = "replay:e:";
const eventKey = (seq: number) => `${EVENT_PREFIX}${String(seq).padStart(15, "0")}`;
/** The root's record of its group: its name and how many shards it has opened (the root included). */
const GROUP_KEY = "group";
/** Set while a session listener may be on one of the root's other shards (the root cannot see their sockets). */
const SHARD_SESSIONS_KEY = "replay:shard-sessions";

interface GroupRecord {
  name: string;
  shards: number;
}

/** A full hub probes its listeners this many times, this far apart, before it refuses one (a round per proxy hop). */
const PROBE_ROUNDS = 3;
const PROBE_GAP_MS = 100;

/** The binding listen needs (wrangler.toml `SUBSCRIPTIONS`); without it nothing is published or listened to. */
export interface HubBindings {
  SUBSCRIPTIONS?: DurableObjectNamespace<SubscriptionHub>;
}

/** The hubs, when the Worker has them. */
export const hubsOf = (env: object) => (env as HubBindings).SUBSCRIPTIONS;

/**
 * The Durable Object that carries change notifications (`ctx.publish`) to every `subscriptions/listen` stream and
 * to the GET streams of 2025 sessions, from whichever isolate published them. It holds its listeners with the
 * WebSocket Hibernation API, so an idle hub costs no memory, and opens shards as its listeners grow.
 *
 * Yours to bind, not to call: export `createMcpWorker`'s `SubscriptionHub` from the Worker's entry module and bind
 * it in wrangler.toml as `SUBSCRIPTIONS` (`class_name = "SubscriptionHub"`, a SQLite class in `migrations`).
 * Without the binding, nothing is published or listened to, and list changes are not advertised.
 */
export class SubscriptionHub extends DurableObject<HubBindings> {
  /** The probe round in progress, shared by every listener that found the group full meanwhile. */
  private probing: Promise<void> | undefined;
  /** Root: the shard it last named, tried first by the next listener the root cannot hold itself. */
  private cursor: number | undefined;
  /** Root: one stub per shard, so that the events forwarded to a shard arrive in the order they were published. */
  private readonly stubs = new Map<number, DurableObjectStub<SubscriptionHub>>();

  /**
   * Accepts one listener socket, or (at the root) names the shard to join instead. Answers 413 when its attachment
   * could not be stored, 429 when the group is at its cap, and (at a shard) 409 when the shard is full. Nothing is
   * accepted until the attachment is stored.
   */
  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response("Expected a WebSocket upgrade", { status: 426 });
    const spec = decodeSpec(request.headers.get("x-mcp-listener"));
    if (!spec) return new Response("Missing or malformed listener spec", { status: 400 });
    const attachment: Attachment = { filter: spec.filter, principal: spec.principal };
    // Why before anything else: a socket accepted without its attachment could never be read again (the Worker
    // refuses such filters first; this guards the hub itself).
    if (storedSize(attachment) > MAX_ATTACHMENT_BYTES) return tooLargeToStore();
    if (spec.shard > 0) {
      // A shard the root named: its cap is its share of the group's. Full (others joined meanwhile): the Worker
      // asks the root again, which names another or opens a new one.
      if (this.ctx.getWebSockets().length >= shardCap(spec, spec.shard))
        return new Response("Shard is full", { status: SHARD_FULL_STATUS });
      return this.accept(spec, attachment, false);
    }
    return this.admit(spec, attachment);
  }

  /**
   * The root's admission: here while it has room, else the shard to join. Why caps: they keep one hub (and one
   * principal's group) from holding unbounded sockets and memory. At the group's cap, listeners whose clients left
   * unnoticed are probed out first (see probeListeners).
   */
  private async admit(spec: ListenerSpec, attachment: Attachment): Promise<Response> {
    // A session has one notification stream: a newer one replaces the older (each message goes on one stream),
    // wherever in the group the older one is. Before the new one joins, so that it is never closed itself.
    if (spec.session) await this.closeSession(spec.session, "replaced by a newer stream");
    if (this.hasRoom(spec)) return this.accept(spec, attachment, true);
    const next = this.nextShard(spec);
    if (next !== undefined) return this.sendTo(spec, next, false);
    for (let round = 0; round < PROBE_ROUNDS && !this.hasRoom(spec); round++) {
      this.probing ??= this.probeGroup().finally(() => {
        this.probing = undefined;
      });
      await this.probing;
    }
    if (this.hasRoom(spec)) return this.accept(spec, attachment, true);
    const counted = await this.shardWithRoom(spec);
    if (counted !== undefined) return this.sendTo(spec, counted, true);
    return new Response("Subscription limit reached", { status: 429 });
  }

  private hasRoom(limits: GroupLimits): boolean {
    return this.ctx.getWebSockets().length < shardCap(limits, 0);
  }

  /**
   * The shard for a listener the root cannot hold: the one named last (the newest after a restart), else the
   * others in turn, skipping those this listener found full; only when every shard is full, a new one, up to the
   * group's cap. Why no memory of full shards: a slot freed in an older shard is used at once, and a joiner finds
   * the shards full at most once each (a quick 409), only when the newest has just filled.
   */
  private nextShard(spec: ListenerSpec): number | undefined {
    const tried = new Set(spec.tried);
    const open = this.group()?.shards ?? 1;
    const start = this.cursor ?? open - 1;
    for (let step = 0; step < open - 1; step++) {
      const shard = 1 + ((start - 1 + step) % (open - 1));
      if (!tried.has(shard)) {
        this.cursor = shard;
        return shard;
      }
    }
    if (open >= maxShards(spec)) return undefined;
    // Stored before anyone joins it: a root evicted later still forwards to every shard that may hold listeners.
    this.ctx.storage.kv.put(GROUP_KEY, { name: spec.group, shards: open + 1 } satisfies GroupRecord);
    this.cursor = open;
    return open;
  }

  /** At the group's cap, after probing: a shard that has room again, counted (each shard's count is exact). */
  private async shardWithRoom(limits: GroupLimits): Promise<number | undefined> {
    const shards = this.shardNumbers();
    const counts = await Promise.allSettled(shards.map((shard) => this.shard(shard).count()));
    const index = counts.findIndex((count, i) => count.status === "fulfilled" && count.value < shardCap(limits, shards[i]!));
    return index === -1 ? undefined : shards[index];
  }

  /** Names the shard to join, with the group's position (for a session stream's event ids). */
  private sendTo(spec: ListenerSpec, shard: number, lastResort: boolean): Response {
    if (spec.session) {
      // The root cannot see that shard's sockets: it keeps buffering until a publish finds no session there.
      this.ctx.storage.kv.put(SHARD_SESSIONS_KEY, true);
      this.keepBuffer();
    }
    const headers: Record<string, string> = { [SHARD_HEADER]: String(shard), [POSITION_HEADER]: String(this.position()) };
    if (lastResort) headers[LAST_RESORT_HEADER] = "1";
    return new Response(null, { status: 200, headers });
  }

  /** Accepts the socket here. At the root, a session listener is numbered and (resuming) replayed to. */
  private accept(spec: ListenerSpec, attachment: Attachment, root: boolean): Response {
    const { 0: client, 1: server } = new WebSocketPair();
    // Stored before the socket is accepted: if the platform refuses it, the hub never holds the socket.
    try {
      writeAttachment(server, attachment);
    } catch {
      return tooLargeToStore();
    }
    const tags = spec.session ? [sessionTag(spec.session), SESSIONS_TAG] : [];
    if (spec.session && root) this.keepBuffer();
    this.ctx.acceptWebSocket(server, tags);
    if (!root) return new Response(null, { status: 101, webSocket: client });
    const position = this.position();
    if (spec.session && spec.after !== undefined) {
      for (const event of this.missed(spec.after, spec)) server.send(JSON.stringify(event));
    }
    return new Response(null, { status: 101, webSocket: client, headers: { [POSITION_HEADER]: String(position) } });
  }

  /**
   * One probe round over the whole group: asks every listener's Worker to write to its client, then gives them time
   * to react. Why: the runtime notices a client that hung up only when a write to it fails (and each proxy hop in
   * front needs one more write), so a listener whose client is gone would hold its slot until its next keep-alive,
   * 20 s or more later. The write makes its Worker see the disconnect and close the socket, which frees the slot.
   */
  private async probeGroup(): Promise<void> {
    await this.probe();
    await this.forward("probe", (shard) => shard.probe());
    await scheduler.wait(PROBE_GAP_MS);
  }

  /** Asks every listener here whether its client is still there (see probeGroup). */
  async probe(): Promise<void> {
    const probe = JSON.stringify(PROBE);
    for (const socket of this.ctx.getWebSockets()) {
      try {
        socket.send(probe);
      } catch {
        // closing already: it stops counting by itself
      }
    }
  }

  /**
   * Root: numbers the event (when the group serves sessions), sends it to every matching listener here, and
   * forwards it to every other shard of the group in parallel; returns how many received it. Best effort: a dead
   * socket or a failing shard (logged) never keeps the event from the others.
   */
  async publish(event: HubEvent): Promise<number> {
    const seq = this.buffer(event);
    const numbered = seq === undefined ? event : { ...event, seq };
    // The other shards first: they send to their listeners while this one sends to its own.
    const forwarded = this.forward("delivery", (shard) => shard.deliver(numbered), event.type);
    let delivered = (await this.deliver(numbered)).delivered;
    const outcomes = await forwarded;
    let sessions = 0;
    for (const outcome of outcomes) {
      if (outcome.status === "fulfilled") {
        delivered += outcome.value.delivered;
        sessions += outcome.value.sessions;
      }
    }
    if (outcomes.length > 0 && outcomes.every((outcome) => outcome.status === "fulfilled")) this.noteShardSessions(sessions > 0);
    return delivered;
  }

  /**
   * Root: publishes `event` only when `value` is not the one last seen under `key`, and remembers it (in storage, so
   * it survives eviction). Why here: isolates are many and short-lived, each root is one. A change any isolate sees
   * (a deployment's new skills, each isolate telling its version once) is announced once to the whole group, and
   * every later isolate of that version finds it already seen. Returns whether it published.
   */
  async publishOnChange(key: string, value: string, event: HubEvent): Promise<boolean> {
    const name = `seen:${key}`;
    if (this.ctx.storage.kv.get<string>(name) === value) return false;
    this.ctx.storage.kv.put(name, value);
    await this.publish(event);
    return true;
  }

  /** Sends an event (numbered by the root already) to every matching listener here. A shard's part of a publish. */
  async deliver(event: HubEvent): Promise<Delivery> {
    const message = JSON.stringify(event);
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
    return { delivered, sessions: this.ctx.getWebSockets(SESSIONS_TAG).length };
  }

  /**
   * Replaces the filter of a legacy session's stream (after resources/subscribe or unsubscribe), here and, at a
   * root, in every other shard (the stream may be on any). Returns false when a hub could not store the new filter
   * (storing nothing there; callers validate first, so that is a bug guard) or could not be reached.
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
        writeAttachment(socket, attachment);
      } catch {
        // Unreachable given the measure above; should it happen, the old filter would be stale: end the stream.
        closeQuietly(socket, 1011, "listener state could not be stored");
      }
    }
    const outcomes = await this.forward("session filter update", (shard) => shard.updateSessionFilter(session, filter));
    return outcomes.every((outcome) => outcome.status === "fulfilled" && outcome.value);
  }

  /** Ends a legacy session's stream (the session was deleted or expired, or a newer stream replaced it). */
  async closeSession(session: string, reason = "session ended"): Promise<void> {
    for (const socket of this.ctx.getWebSockets(sessionTag(session))) closeQuietly(socket, 1000, reason);
    await this.forward("session close", (shard) => shard.closeSession(session, reason));
  }

  /**
   * Root: what a resuming session listener that joined another shard missed, after `after`, that it may see; and
   * the group's position. The Worker sends these before anything live, and drops live events it got this way.
   */
  async replay(after: number, principal: string, filter: ListenerFilter): Promise<Replay> {
    return { position: this.position(), events: this.missed(after, { principal, filter }) };
  }

  /** How many listeners this hub holds (for tests and operators). */
  async count(): Promise<number> {
    return this.ctx.getWebSockets().length;
  }

  /** Root: how many shards its group has opened, itself included (for tests and operators). */
  async shards(): Promise<number> {
    return this.group()?.shards ?? 1;
  }

  private group(): GroupRecord | undefined {
    return this.ctx.storage.kv.get<GroupRecord>(GROUP_KEY);
  }

  /** Root: the group's other shards (none for a shard, or a root that never opened one). */
  private shardNumbers(): number[] {
    return Array.from({ length: (this.group()?.shards ?? 1) - 1 }, (_, i) => i + 1);
  }

  private shard(shard: number): DurableObjectStub<SubscriptionHub> {
    let stub = this.stubs.get(shard);
    if (!stub) {
      // The root is only ever reached through SUBSCRIPTIONS, so the binding is there; its group record names it.
      stub = this.env.SUBSCRIPTIONS!.getByName(shardName(this.group()!.name, shard));
      this.stubs.set(shard, stub);
    }
    return stub;
  }

  /** Runs `call` on every other shard of the group in parallel; logs each that fails, and never throws. */
  private async forward<T>(what: string, call: (shard: DurableObjectStub<SubscriptionHub>) => Promise<T>, event?: string) {
    const shards = this.shardNumbers();
    const outcomes = await Promise.allSettled(shards.map((shard) => call(this.shard(shard))));
    outcomes.forEach((outcome, i) => {
      // Never the group's name (it holds a principal id): which shard, and what failed.
      if (outcome.status === "rejected")
        log(undefined, "error", `hub shard ${what} failed`, { shard: shards[i], event, ...describeError(outcome.reason) });
    });
    return outcomes;
  }

  private position(): number {
    return this.ctx.storage.kv.get<number>(POSITION_KEY) ?? 0;
  }

  /** Keeps the replay buffer for `REPLAY_BUFFER.windowMs` from now (a session listener came or went). */
  private keepBuffer(): void {
    this.ctx.storage.kv.put(UNTIL_KEY, Date.now() + REPLAY_BUFFER.windowMs);
  }

  /** After a publish every shard answered: whether a session listener is still on one. The last one left: the window starts. */
  private noteShardSessions(present: boolean): void {
    const kv = this.ctx.storage.kv;
    const before = kv.get<boolean>(SHARD_SESSIONS_KEY) === true;
    if (before === present) return;
    if (present) kv.put(SHARD_SESSIONS_KEY, true);
    else {
      kv.delete(SHARD_SESSIONS_KEY);
      this.keepBuffer();
    }
  }

  /**
   * Numbers and stores the event while the group serves sessions (one is listening, here or on another shard, or
   * one left within the window); returns its position, or undefined when nothing is kept. Drops the oldest events
   * beyond the buffer's bounds.
   */
  private buffer(event: HubEvent): number | undefined {
    const kv = this.ctx.storage.kv;
    const now = Date.now();
    const until = kv.get<number>(UNTIL_KEY) ?? 0;
    if (this.ctx.getWebSockets(SESSIONS_TAG).length > 0 || kv.get<boolean>(SHARD_SESSIONS_KEY) === true) {
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
   * The buffered events after `after` that a listener may see, numbered. A position ahead of the group's (unknown
   * to it) replays nothing; one older than the buffer replays all it holds.
   */
  private missed(after: number, listener: Attachment): HubEvent[] {
    if (after >= this.position()) return [];
    const events: HubEvent[] = [];
    for (const [, stored] of this.ctx.storage.kv.list<BufferedEvent>({ prefix: EVENT_PREFIX, startAfter: eventKey(after) })) {
      // Why: the same rule as live delivery, a private event reaches only its principal's listeners.
      if (stored.event.principal !== undefined && stored.event.principal !== listener.principal) continue;
      if (!wants(listener.filter, stored.event)) continue;
      events.push({ ...stored.event, seq: stored.seq });
    }
    return events;
  }

  override async webSocketMessage(): Promise<void> {
    // Listeners never send anything; the socket exists only to receive events.
  }

  override async webSocketClose(socket: WebSocket, code: number, reason: string): Promise<void> {
    // A session's stream ended: keep buffering for a while, so that it can resume where it stopped. (On another
    // shard, the root learns it at its next publish.)
    if (this.ctx.getTags(socket).includes(SESSIONS_TAG)) this.keepBuffer();
    // Complete the close handshake (compatibility dates before 2026-04-07 do not auto-reply). 1005/1006 cannot be sent.
    closeQuietly(socket, code === 1005 || code === 1006 ? 1000 : code, reason);
  }
}
