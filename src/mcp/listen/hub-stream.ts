/**
 * @module hub-stream
 * An SSE response fed by the subscription hubs: this Worker invocation holds the client's stream and a
 * WebSocket to two hubs (the principal's hub and one global shard); events arrive on the sockets and leave as
 * SSE messages. Used by `subscriptions/listen` (2026-07-28) and by a legacy session's GET stream.
 *
 * Hygiene: comment keep-alives hold proxies open; after the maximum lifetime the stream ends (callers decide what
 * to send first); when the client goes away, or a hub drops the socket, everything is closed at once.
 *
 * Resumption (2025 sessions only): each hub numbers its events while it serves sessions, so the stream's position
 * is a pair (one per hub). A caller that asks for event ids gets one per event from that pair, and a stream opened
 * with `resumeAfter` gets from each hub what it missed before anything live.
 */

import type { Principal } from "../auth/principal";
import type { ListenSettings } from "../config";
import { base64url } from "../encoding";
import { SseStream } from "../http/sse";
import { describeError, type LogScope, log } from "../log";
import { type HubEvent, type HubMessage, type ListenerFilter, type ListenerSpec, POSITION_HEADER, type SubscriptionHub } from "./hub";
import { globalHubName, principalHubName } from "./publish";

/** Where a stream stands in each of its two hubs' numbering (see `hub.ts`, the replay buffer). */
export interface HubPositions {
  principal: number;
  global: number;
}

export interface HubStreamOptions {
  /** The SUBSCRIPTIONS namespace; callers only open a stream when the Worker has it. */
  hubs: DurableObjectNamespace<SubscriptionHub>;
  settings: ListenSettings;
  principal: Principal;
  log: LogScope;
  filter: ListenerFilter;
  /** Which global hub to join (random for listen streams, fixed per session so its filter can be updated). */
  globalShard: number;
  session?: string;
  /** The client's request signal: aborted when it disconnects. */
  signal: AbortSignal;
  headers: Record<string, string>;
  /** The SSE message for one hub event. */
  toMessage(event: HubEvent): unknown;
  /** A resuming session stream: the positions it last saw; each hub first replays what it holds after them. */
  resumeAfter?: HubPositions;
  /** Gives every SSE event an id from the stream's positions (2025 sessions); without it events carry none. */
  eventId?(positions: HubPositions): string;
  /** Sends a priming event (an id, no data) once both hubs accepted, before anything else. Needs `eventId`. */
  prime?: boolean;
  /** Called once both hubs accepted the listener, before any event is forwarded. */
  onOpen?(stream: SseStream): void;
  /** Called when a hub refused the listener (`full`: a cap was reached); the stream closes afterwards. */
  onRefused?(stream: SseStream, full: boolean): void;
  /** Called when the maximum lifetime is reached, just before the stream closes. */
  onLifetime?(stream: SseStream): void;
}

export function hubStream(options: HubStreamOptions): Response {
  const { hubs: namespace, settings } = options;
  const sockets: WebSocket[] = [];
  const cleanups: (() => void)[] = [];
  const stream = new SseStream(() => stop("client closed the stream"));

  function stop(reason: string): void {
    for (const cleanup of cleanups.splice(0)) cleanup();
    for (const socket of sockets.splice(0)) {
      try {
        socket.close(1000, reason.slice(0, 100));
      } catch {
        // already closed
      }
    }
    stream.close();
  }

  const spec = (role: "principal" | "global"): ListenerSpec => ({
    filter: options.filter,
    principal: options.principal.id,
    maxListeners: settings.maxPerHub,
    // Anonymous callers are everyone at once, so only the per-hub cap applies to them.
    maxPerPrincipal: role === "principal" && options.principal.authenticated ? settings.maxPerPrincipal : 0,
    ...(options.session && { session: options.session }),
    ...(options.resumeAfter && { after: options.resumeAfter[role] }),
  });
  const hubs = [
    { name: principalHubName(options.principal.id), role: "principal" as const },
    { name: globalHubName(options.globalShard), role: "global" as const },
  ];

  // Flushes the response headers at once; a comment is not a message, so nothing is sent "before" onOpen.
  stream.comment("listening");
  (async () => {
    const upgrades = await Promise.all(
      hubs.map(({ name, role }) =>
        namespace.getByName(name).fetch("https://hub/listen", {
          headers: { upgrade: "websocket", "x-mcp-listener": encodeSpec(spec(role)) },
        }),
      ),
    );
    for (const upgrade of upgrades) if (upgrade.webSocket) sockets.push(upgrade.webSocket);
    if (!stream.isOpen) return stop("client closed the stream");
    const refused = upgrades.find((upgrade) => upgrade.status !== 101);
    if (refused) {
      options.onRefused?.(stream, refused.status === 429);
      return stop(refused.status === 429 ? "limit reached" : "hub refused");
    }
    // A resumed stream starts where the client stopped, unless a hub never got that far (then where the hub is).
    const positions: HubPositions = { principal: 0, global: 0 };
    const eventId = options.eventId && (() => options.eventId!(positions));
    hubs.forEach(({ role }, i) => {
      const current = Number(upgrades[i]!.headers.get(POSITION_HEADER) ?? 0);
      positions[role] = Math.min(options.resumeAfter?.[role] ?? current, current);
    });
    if (options.prime && eventId) stream.prime(eventId());
    hubs.forEach(({ role }, i) => {
      const socket = upgrades[i]!.webSocket!;
      socket.accept();
      socket.addEventListener("message", (message) => {
        const received = JSON.parse(String(message.data)) as HubMessage;
        // A full hub asks whether our client is still there: only a write tells (a comment is not a message).
        if (received.type === "probe") return stream.comment("probe");
        const event = received as HubEvent;
        if (typeof event.seq === "number") positions[role] = event.seq;
        stream.send(options.toMessage(event), eventId?.());
      });
      // The hub restarted or dropped us: end the stream, and the client starts a new one.
      socket.addEventListener("close", () => stop("hub closed"));
      socket.addEventListener("error", () => stop("hub error"));
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
    options.onRefused?.(stream, false);
    stop("connect failed");
  });

  options.signal.addEventListener("abort", () => stop("client went away"), { once: true });
  return stream.response(options.headers);
}

/** Header values must be ASCII: the spec (which may hold any URI) travels as base64url of its UTF-8 JSON. */
function encodeSpec(spec: ListenerSpec): string {
  return base64url(new TextEncoder().encode(JSON.stringify(spec)));
}

/** The global shard a legacy session always joins, so its filter can be found and updated later. */
export function sessionShard(session: string, shards: number): number {
  let hash = 0;
  for (let i = 0; i < session.length; i++) hash = (hash * 31 + session.charCodeAt(i)) >>> 0;
  return hash % shards;
}
