/**
 * @module listen/hub-stream
 * An SSE response fed by the subscription hubs: this Worker invocation holds the client's stream and a
 * WebSocket to one shard of each of two hub groups (see `groups.ts`): the caller's own group, where its listeners
 * are counted (each caller's share) and its private events arrive, and the global one; events arrive on the sockets
 * and leave as SSE messages. Used by `subscriptions/listen` (2026-07-28) and by a legacy
 * session's GET stream.
 *
 * Joining a group: the listener asks the root, which accepts it or names a shard; a shard that filled up meanwhile
 * answers "full", and the listener asks the root again, naming the shards it tried.
 *
 * Hygiene: comment keep-alives hold proxies open; after the maximum lifetime the stream ends (callers decide what
 * to send first); when the client goes away, or a hub drops the socket, everything is closed at once.
 *
 * Resumption (2025 sessions only): each group's root numbers its events while the group serves sessions, so the
 * stream's position is a pair (one per group). A caller that asks for event ids gets one per event from that pair,
 * and a stream opened with `resumeAfter` gets from each root what it missed before anything live.
 */

import type { Limits } from "../config/options";
import { SseStream } from "../http/sse";
import { base64url } from "../util/encoding";
import { describeError, type LogScope, log } from "../util/log";
import type { Principal } from "../wire/principal";
import {
  callerGroup,
  GLOBAL_GROUP,
  type GroupLimits,
  LAST_RESORT_HEADER,
  maxShards,
  SHARD_FULL_STATUS,
  SHARD_HEADER,
  shardName,
} from "./groups";
import { type HubEvent, type HubMessage, type ListenerFilter, type ListenerSpec, POSITION_HEADER, type SubscriptionHub } from "./hub";

/** Where a stream stands in each of its two groups' numbering (see `hub.ts`, the replay buffer); `principal` is the caller's own group. */
export interface HubPositions {
  principal: number;
  global: number;
}

export interface HubStreamOptions {
  /** The SUBSCRIPTIONS namespace; callers only open a stream when the Worker has it. */
  hubs: DurableObjectNamespace<SubscriptionHub>;
  settings: Limits["listen"];
  principal: Principal;
  /** Who the caller is for its share of the listeners (`callerKey`: the principal, or the client network when anonymous). */
  caller: string;
  log: LogScope;
  filter: ListenerFilter;
  session?: string;
  /** The client's request signal: aborted when it disconnects. */
  signal: AbortSignal;
  headers: Record<string, string>;
  /** The SSE message for one hub event. */
  toMessage(event: HubEvent): unknown;
  /** A resuming session stream: the positions it last saw; each group first replays what it holds after them. */
  resumeAfter?: HubPositions;
  /** Gives every SSE event an id from the stream's positions (2025 sessions); without it events carry none. */
  eventId?(positions: HubPositions): string;
  /** Sends a priming event (an id, no data) once both groups accepted, before anything else. Needs `eventId`. */
  prime?: boolean;
  /** Called once both groups accepted the listener, before any event is forwarded. */
  onOpen?(stream: SseStream): void;
  /** Called when a group refused the listener (`limit`: the cap it reached); the stream closes afterwards. */
  onRefused?(stream: SseStream, limit: ListenLimit | undefined): void;
  /** Called when the maximum lifetime is reached, just before the stream closes. */
  onLifetime?(stream: SseStream): void;
}

export function hubStream(options: HubStreamOptions): Response {
  const { hubs: namespace, settings } = options;
  const sockets: WebSocket[] = [];
  const accepted = new WeakSet<WebSocket>();
  const cleanups: (() => void)[] = [];
  const stream = new SseStream(() => stop("client closed the stream"));

  function stop(reason: string): void {
    for (const cleanup of cleanups.splice(0)) cleanup();
    for (const socket of sockets.splice(0)) {
      // Why accept first: the socket of a join that is not used (the other group refused) was never accepted, and
      // only an accepted socket can be closed; left as it is, it would hold its slot in that group.
      if (!accepted.has(socket)) socket.accept();
      try {
        socket.close(1000, reason.slice(0, 100));
      } catch {
        // already closed
      }
    }
    stream.close();
  }

  const { shardCapacity: capacity, maxShards: shards, maxPerCaller } = settings;
  // Why a share per caller: every listener takes a slot of the global group too, so without one a single caller
  // (one principal, or one address when anonymous) could fill the server's listen capacity for everyone.
  const groups = [
    {
      group: callerGroup(options.principal, options.caller),
      role: "principal" as const,
      limits: { capacity, groupMax: Math.min(maxPerCaller, capacity * shards) },
    },
    { group: GLOBAL_GROUP, role: "global" as const, limits: { capacity, groupMax: capacity * shards } },
  ];
  const spec = (group: string, role: "principal" | "global", limits: GroupLimits): ListenerSpec => ({
    filter: options.filter,
    principal: options.principal.id,
    group,
    shard: 0,
    ...limits,
    ...(options.session && { session: options.session }),
    ...(options.resumeAfter && { after: options.resumeAfter[role] }),
  });

  // Flushes the response headers at once; a comment is not a message, so nothing is sent "before" onOpen.
  stream.comment("listening");
  (async () => {
    // The caller's own group first: a caller over its share is refused there, never taking a global slot meanwhile.
    const joins: Joined[] = [];
    for (const { group, role, limits } of groups) {
      const join = await joinGroup(namespace, spec(group, role, limits));
      joins.push(join);
      if (join.socket) sockets.push(join.socket);
      if (join.status !== 101 || !stream.isOpen) break;
    }
    if (!stream.isOpen) return stop("client closed the stream");
    const refused = joins.findIndex((join) => join.status !== 101);
    if (refused !== -1) {
      const full = joins[refused]!.status === 429;
      const { role, limits } = groups[refused]!;
      options.onRefused?.(stream, full ? { kind: role === "global" ? "server" : "caller", max: limits.groupMax } : undefined);
      return stop(full ? "limit reached" : "hub refused");
    }
    // A resumed stream starts where the client stopped, unless a group never got that far (then where it is).
    const positions: HubPositions = { principal: 0, global: 0 };
    const eventId = options.eventId && (() => options.eventId!(positions));
    groups.forEach(({ role }, i) => {
      const current = joins[i]!.position;
      positions[role] = Math.min(options.resumeAfter?.[role] ?? current, current);
    });
    if (options.prime && eventId) stream.prime(eventId());
    const forward = (role: "principal" | "global", event: HubEvent) => {
      if (typeof event.seq === "number") positions[role] = event.seq;
      stream.send(options.toMessage(event), eventId?.());
    };
    groups.forEach(({ role }, i) => {
      const { socket, replayed, replayedThrough } = joins[i]!;
      // Joined a shard while resuming: what the root replayed comes first; live events it held already are dropped.
      for (const event of replayed) forward(role, event);
      socket!.accept();
      accepted.add(socket!);
      socket!.addEventListener("message", (message) => {
        const received = JSON.parse(String(message.data)) as HubMessage;
        // A full group asks whether our client is still there: only a write tells (a comment is not a message).
        if (received.type === "probe") return stream.comment("probe");
        const event = received as HubEvent;
        if (typeof event.seq === "number" && event.seq <= replayedThrough) return;
        forward(role, event);
      });
      // The hub restarted or dropped us: end the stream, and the client starts a new one.
      socket!.addEventListener("close", () => stop("hub closed"));
      socket!.addEventListener("error", () => stop("hub error"));
    });
    options.onOpen?.(stream);
    const keepAlive = setInterval(() => stream.comment(), settings.keepAliveMs);
    const lifetime = setTimeout(() => {
      options.onLifetime?.(stream);
      stop("maximum lifetime reached");
    }, settings.maxLifetimeMs);
    cleanups.push(
      () => clearInterval(keepAlive),
      () => clearTimeout(lifetime),
    );
  })().catch((error: unknown) => {
    log(options.log, "error", "hub stream failed", describeError(error));
    options.onRefused?.(stream, undefined);
    stop("connect failed");
  });

  options.signal.addEventListener("abort", () => stop("client went away"), { once: true });
  return stream.response(options.headers);
}

/** Which cap refused a listener: the caller's share (LISTEN_MAX_PER_CALLER) or the server's whole capacity. */
export interface ListenLimit {
  kind: "caller" | "server";
  max: number;
}

/** A listener's place in one group, or why it has none. */
interface Joined {
  /** 101: joined; 429: the group is at its cap; anything else: refused. */
  status: number;
  socket?: WebSocket;
  /** The group's position when it joined (its root's numbering). */
  position: number;
  /** Resuming on a shard other than the root: the events the root replayed, and the position they reach. */
  replayed: HubEvent[];
  replayedThrough: number;
}

/**
 * Joins one shard of a group: the root accepts the listener or names the shard; a shard that filled up meanwhile
 * sends it back to the root, which names another (or opens one). Bounded: each round adds a shard to those tried.
 */
async function joinGroup(namespace: DurableObjectNamespace<SubscriptionHub>, spec: ListenerSpec): Promise<Joined> {
  const root = namespace.getByName(spec.group);
  const tried: number[] = [];
  for (let round = 0; round <= maxShards(spec); round++) {
    const answer = await root.fetch(LISTEN_URL, upgrade({ ...spec, ...(tried.length > 0 && { tried }) }));
    const named = answer.headers.get(SHARD_HEADER);
    const position = Number(answer.headers.get(POSITION_HEADER) ?? 0);
    if (named === null) return { status: answer.status, socket: answer.webSocket ?? undefined, position, replayed: [], replayedThrough: 0 };
    const shard = Number(named);
    const { after, ...rest } = spec;
    const joined = await namespace.getByName(shardName(spec.group, shard)).fetch(LISTEN_URL, upgrade({ ...rest, shard }));
    if (joined.status === SHARD_FULL_STATUS && !answer.headers.has(LAST_RESORT_HEADER)) {
      tried.push(shard);
      continue;
    }
    if (joined.status !== 101)
      return { status: joined.status === SHARD_FULL_STATUS ? 429 : joined.status, position, replayed: [], replayedThrough: 0 };
    // Only the root keeps the replay buffer: asked once the socket is accepted, so no event falls between the two.
    if (spec.session && after !== undefined) {
      const replay = await root.replay(after, spec.principal, spec.filter);
      return {
        status: 101,
        socket: joined.webSocket!,
        position: replay.position,
        replayed: replay.events,
        replayedThrough: replay.position,
      };
    }
    return { status: 101, socket: joined.webSocket!, position, replayed: [], replayedThrough: 0 };
  }
  return { status: 429, position: 0, replayed: [], replayedThrough: 0 };
}

const LISTEN_URL = "https://hub/listen";

const upgrade = (spec: ListenerSpec) => ({ headers: { upgrade: "websocket", "x-mcp-listener": encodeSpec(spec) } });

/** Header values must be ASCII: the spec (which may hold any URI) travels as base64url of its UTF-8 JSON. */
function encodeSpec(spec: ListenerSpec): string {
  return base64url(new TextEncoder().encode(JSON.stringify(spec)));
}
