/**
 * @module testing/listen
 * Change notifications as a test reads them: `subscriptions/listen` (2026-07-28), whose stream opens with its
 * acknowledgement and tags every notification with the subscription's id, or a 2025 session's GET stream after
 * `resources/subscribe`. Either way, a `Listener` gives the next notification with a timeout, and closes.
 */
import type { Call, ClientSetup } from "./channel";
import { McpClientError, McpError } from "./errors";
import type { LegacySession } from "./legacy";
import { postModern } from "./modern";
import { type SseReader, sseReader } from "./sse";
import { parseMessage, type RpcMessage, readAnswer } from "./transport";
import { isObject, META_KEYS } from "./wire";

/**
 * What to listen for (the 2026-07-28 `SubscriptionFilter`; the Tasks extension adds `taskIds`).
 *
 * @example
 * const listener = await client.listen({ resourcesListChanged: true, resourceSubscriptions: [`note://${notebook_id}`] });
 */
export interface ListenFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  taskIds?: string[];
}

/**
 * How long `next`, `tryNext` and the opening of a stream wait by default, in milliseconds. Why this long: they wait
 * for what a test expects, and a busy machine (a CI runner, a laptop compiling) can take seconds to deliver it; a
 * wait that ends as soon as the message comes costs a fast machine nothing. To show that nothing came, pass a short
 * `tryNext(timeoutMs)`.
 */
export const DEFAULT_WAIT_MS = 10_000;

/**
 * An open notification stream.
 *
 * @example
 * const listener = await client.listen({ resourceSubscriptions: [uri] });
 * await client.callTool("update_note", { notebook_id, note_id, body: "changed" });
 * expect(await listener.next()).toMatchObject({ method: "notifications/resources/updated", params: { uri } });
 * await listener.close();
 */
export class Listener {
  private ended = false;

  /** @internal `client.listen()` opens one. */
  constructor(
    private readonly reader: SseReader,
    /** The subscription's id (the listen request's JSON-RPC id); undefined for a 2025 GET stream. */
    readonly id: string | number | undefined,
    /** What the server agreed to send (the acknowledgement's `notifications`); undefined for a 2025 GET stream. */
    readonly acknowledged: ListenFilter | undefined,
    private readonly label: string,
    private readonly onClose: (listener: Listener) => void,
  ) {}

  /**
   * The next notification; fails when none arrives within `timeoutMs` or when the stream ends.
   *
   * @param timeoutMs how long to wait, in milliseconds (default 10000)
   * @example
   * expect(await listener.next()).toMatchObject({ method: "notifications/resources/list_changed" });
   */
  async next(timeoutMs = DEFAULT_WAIT_MS): Promise<RpcMessage> {
    const message = await this.tryNext(timeoutMs);
    if (message === undefined) throw new McpClientError("listen", `${this.label}: no notification within ${timeoutMs} ms`);
    return message;
  }

  /**
   * The next notification, or undefined when none arrives within `timeoutMs` (to show that nothing came); fails
   * when the stream ends.
   *
   * @param timeoutMs how long to wait, in milliseconds (default 10000)
   * @example
   * expect(await otherCallersListener.tryNext(300)).toBeUndefined();
   */
  async tryNext(timeoutMs = DEFAULT_WAIT_MS): Promise<RpcMessage | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.ended) throw new McpClientError("listen", `${this.label}: the stream has ended`);
      const event = await this.reader.next(Math.max(0, deadline - Date.now()));
      if (event === "timeout") return undefined;
      if (event === "end") {
        this.ended = true;
        throw new McpClientError("listen", `${this.label}: the stream ended`);
      }
      if (!event.data) continue;
      const message = parseMessage(event.data, this.label);
      if (typeof message.method !== "string") {
        this.ended = true;
        throwEnd(message, this.label);
      }
      if ("id" in message) throw new McpClientError("protocol", `${this.label}: a request (${message.method}) on a notification stream`);
      if (this.id !== undefined) checkTag(message, this.id, this.label);
      return message;
    }
  }

  /**
   * Closes the stream (on 2026-07-28 that ends the subscription).
   *
   * @example
   * afterEach(() => listener.close());
   */
  async close(): Promise<void> {
    this.ended = true;
    await this.reader.cancel();
    this.onClose(this);
  }
}

/** A response on a listen stream ends it: the server's completion result, or an in-band refusal. */
function throwEnd(message: RpcMessage, label: string): never {
  if (isObject(message.error)) {
    throw new McpError("subscriptions/listen", Number(message.error.code), String(message.error.message), message.error.data, 200);
  }
  throw new McpClientError("listen", `${label}: the server ended the subscription (it sent its completion result)`);
}

/** Every notification on a subscription carries its id in `_meta` (2026-07-28). */
function checkTag(message: RpcMessage, id: string | number, label: string): void {
  const meta = isObject(message.params) && isObject(message.params._meta) ? message.params._meta : undefined;
  if (meta?.[META_KEYS.subscriptionId] !== id) {
    throw new McpClientError("protocol", `${label}: ${String(message.method)} does not carry the subscription id ${JSON.stringify(id)}`);
  }
}

/** Opens `subscriptions/listen` and waits for its acknowledgement (or the in-band refusal, as an `McpError`). */
export async function listenModern(
  setup: ClientSetup,
  filter: ListenFilter,
  call: Call,
  timeoutMs: number,
  onClose: (listener: Listener) => void,
): Promise<Listener> {
  const { id, response } = await postModern(setup, "subscriptions/listen", { notifications: filter }, call);
  const label = `subscriptions/listen ${id}`;
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) {
    await readAnswer(response, { id, method: "subscriptions/listen", label }, async () => {});
    throw new McpClientError("protocol", `${label}: answered with a result instead of a stream`);
  }
  const reader = sseReader(response.body!);
  const first = await firstMessage(reader, timeoutMs, label);
  if (first.method !== "notifications/subscriptions/acknowledged") {
    await reader.cancel();
    if (first.method === undefined) throwEnd(first, label);
    throw new McpClientError("protocol", `${label}: the first message is ${String(first.method)}, not the acknowledgement`);
  }
  checkTag(first, id, label);
  const honoured = isObject(first.params) && isObject(first.params.notifications) ? (first.params.notifications as ListenFilter) : {};
  return new Listener(reader, id, honoured, label, onClose);
}

/**
 * Subscribes a 2025 session to each `resourceSubscriptions` URI, then opens its GET stream. On 2025-11-25 it waits
 * for the stream's priming event, which the server sends once the stream is live; older revisions send nothing
 * until the first notification, so there the stream may not be live yet when this returns.
 */
export async function listenLegacy(
  session: LegacySession,
  filter: ListenFilter,
  call: Call,
  timeoutMs: number,
  onClose: (listener: Listener) => void,
): Promise<Listener> {
  if (session.sessionId === undefined) {
    throw new McpClientError("usage", "listen: the server assigned no Mcp-Session-Id at initialize, so this 2025 client has no GET stream");
  }
  for (const uri of filter.resourceSubscriptions ?? [])
    await session.send("resources/subscribe", { uri }, { ...call, label: `resources/subscribe ${uri}` });
  const response = await session.openStream();
  const label = "GET stream";
  const reader = sseReader(response.body!);
  if (session.version === "2025-11-25") {
    for (;;) {
      const event = await reader.next(timeoutMs);
      if (event === "timeout" || event === "end") {
        await reader.cancel();
        throw new McpClientError("listen", `${label}: no priming event within ${timeoutMs} ms (${event})`);
      }
      if (event.id !== undefined && !event.data) break;
      if (event.data) throw new McpClientError("protocol", `${label}: a message arrived before the priming event`);
    }
  }
  return new Listener(reader, undefined, undefined, label, onClose);
}

/** The first JSON-RPC message of a stream, within `timeoutMs`. */
async function firstMessage(reader: SseReader, timeoutMs: number, label: string): Promise<RpcMessage & { method?: string }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const event = await reader.next(Math.max(0, deadline - Date.now()));
    if (event === "timeout" || event === "end") {
      await reader.cancel();
      throw new McpClientError("listen", `${label}: no acknowledgement within ${timeoutMs} ms (${event})`);
    }
    if (event.data) return parseMessage(event.data, label) as RpcMessage & { method?: string };
  }
}
