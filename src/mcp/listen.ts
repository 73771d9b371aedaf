/**
 * @module listen
 * `subscriptions/listen`: an SSE stream of change notifications. This Worker invocation holds the client's
 * stream and a WebSocket to two hubs (the caller's principal hub and one global shard); events arrive on the
 * sockets and leave as SSE messages tagged with the subscription id (the listen request's id).
 *
 * Stream rules: the acknowledgement is the first message; a full hub is reported in-band before it; comment
 * keep-alives hold proxies open; after LISTEN_MAX_LIFETIME_MS the stream ends with the completion result; a hub
 * that goes away ends the stream without one, and the client re-sends listen.
 */
import * as z from "zod/mini";
import type { RequestScope } from "./context";
import { ErrorCode, invalidParams } from "./errors";
import type { HubEvent, ListenerFilter, ListenerSpec } from "./hub";
import { errorMessage, resultMessage } from "./messages";
import { META, type JsonObject, type RequestId } from "./protocol";
import { globalHubName, principalHubName } from "./publish";
import { describeIssues } from "./schema";
import { SseStream } from "./sse";
import { log } from "./log";

/** Why these caps: the filter is stored on a hibernatable socket, whose attachment is limited to 16 KiB. */
export const MAX_RESOURCE_SUBSCRIPTIONS = 64;
export const MAX_FILTER_BYTES = 12_000;

const filterSchema = z.looseObject({
  toolsListChanged: z.optional(z.boolean()),
  promptsListChanged: z.optional(z.boolean()),
  resourcesListChanged: z.optional(z.boolean()),
  resourceSubscriptions: z.optional(
    z.array(z.string().check(z.minLength(1), z.maxLength(2_048))).check(z.maxLength(MAX_RESOURCE_SUBSCRIPTIONS)),
  ),
});

/** What the server can deliver, from its advertised capabilities. */
export interface ListenSupport {
  tools: boolean;
  prompts: boolean;
  resources: boolean;
}

/** Parses the requested filter and keeps the part this server honours; unknown notification types are dropped. */
export function honouredFilter(params: JsonObject, support: ListenSupport): ListenerFilter {
  const parsed = filterSchema.safeParse(params.notifications ?? {});
  if (!parsed.success) throw invalidParams(`Invalid params: ${describeIssues(parsed.error as z.core.$ZodError, "notifications")}`);
  const requested = parsed.data;
  const honoured: ListenerFilter = {};
  if (requested.toolsListChanged && support.tools) honoured.toolsListChanged = true;
  if (requested.promptsListChanged && support.prompts) honoured.promptsListChanged = true;
  if (requested.resourcesListChanged && support.resources) honoured.resourcesListChanged = true;
  if (requested.resourceSubscriptions?.length && support.resources) honoured.resourceSubscriptions = [...new Set(requested.resourceSubscriptions)];
  if (new TextEncoder().encode(JSON.stringify(honoured)).byteLength > MAX_FILTER_BYTES) {
    throw invalidParams(`Invalid params: the subscription filter is larger than ${MAX_FILTER_BYTES} bytes`);
  }
  return honoured;
}

const NOTIFICATION_METHODS: Record<HubEvent["type"], string> = {
  tools_list_changed: "notifications/tools/list_changed",
  prompts_list_changed: "notifications/prompts/list_changed",
  resources_list_changed: "notifications/resources/list_changed",
  resource_updated: "notifications/resources/updated",
};

export function serveListen(scope: RequestScope, params: JsonObject, support: ListenSupport, resultMeta: JsonObject): Response {
  const filter = honouredFilter(params, support);
  const id = scope.requestId;
  const tag = { [META.subscriptionId]: id };
  const settings = scope.config.listen;
  const sockets: WebSocket[] = [];
  const cleanups: (() => void)[] = [];
  const stream = new SseStream(() => stop("client closed the stream"));
  const complete = () => resultMessage(id, { resultType: "complete", _meta: { ...resultMeta, ...tag } });

  function stop(reason: string): void {
    cleanups.splice(0).forEach((cleanup) => cleanup());
    for (const socket of sockets) {
      try {
        socket.close(1000, reason.slice(0, 100));
      } catch {
        // already closed
      }
    }
    stream.close();
  }

  // An empty honoured filter: nothing will ever be sent, so acknowledge it and end at once.
  if (Object.keys(filter).length === 0) {
    stream.send(acknowledgement(tag, filter));
    stream.send(complete());
    stream.close();
    return stream.response({ "x-request-id": scope.traceId });
  }

  // Flushes the response headers at once; comments are not messages, so the acknowledgement is still first.
  stream.comment("listening");
  const spec = (hub: "principal" | "global"): ListenerSpec => ({
    filter,
    principal: scope.principal.id,
    maxListeners: settings.maxPerHub,
    maxPerPrincipal: hub === "principal" && scope.principal.authenticated ? settings.maxPerPrincipal : 0,
  });
  const hubs = scope.env.SUBSCRIPTIONS;
  const names = [
    { name: principalHubName(scope.principal.id), role: "principal" as const },
    { name: globalHubName(Math.floor(Math.random() * settings.globalShards)), role: "global" as const },
  ];

  (async () => {
    const upgrades = await Promise.all(
      names.map(({ name, role }) =>
        hubs.getByName(name).fetch("https://hub/listen", {
          headers: { upgrade: "websocket", "x-mcp-listener": JSON.stringify(spec(role)) },
        }),
      ),
    );
    for (const upgrade of upgrades) if (upgrade.webSocket) sockets.push(upgrade.webSocket);
    if (!stream.isOpen) return stop("client closed the stream");
    const refused = upgrades.find((upgrade) => upgrade.status !== 101);
    if (refused) {
      // Why in-band and before the acknowledgement: the HTTP status is already sent, and a client must not
      // believe it is subscribed.
      const full = refused.status === 429;
      stream.send(errorMessage(id, ErrorCode.InternalError, full ? "Subscription limit reached" : "Subscriptions are unavailable"));
      return stop(full ? "limit reached" : "hub refused");
    }
    for (const socket of sockets) {
      socket.accept();
      socket.addEventListener("message", (event) => {
        const hubEvent = JSON.parse(String(event.data)) as HubEvent;
        const eventParams: JsonObject = { _meta: tag };
        if (hubEvent.type === "resource_updated") eventParams.uri = hubEvent.uri;
        stream.send({ jsonrpc: "2.0", method: NOTIFICATION_METHODS[hubEvent.type], params: eventParams });
      });
      // The hub restarted or dropped us: end without a completion result, so the client knows to listen again.
      socket.addEventListener("close", () => stop("hub closed"));
      socket.addEventListener("error", () => stop("hub error"));
    }
    stream.send(acknowledgement(tag, filter));
    const keepAlive = setInterval(() => stream.comment(), settings.keepAliveMs);
    const lifetime = setTimeout(() => {
      stream.send(complete());
      stop("maximum lifetime reached");
    }, settings.maxLifetimeMs);
    cleanups.push(() => clearInterval(keepAlive), () => clearTimeout(lifetime));
  })().catch((error: unknown) => {
    log(scope, "error", "listen failed", { detail: error instanceof Error ? error.message : String(error) });
    stream.send(errorMessage(id, ErrorCode.InternalError, "Subscriptions are unavailable"));
    stop("connect failed");
  });

  scope.reply.signal.addEventListener("abort", () => stop("client went away"), { once: true });
  return stream.response({ "x-request-id": scope.traceId });
}

function acknowledgement(tag: Record<string, RequestId>, filter: ListenerFilter) {
  return { jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { _meta: tag, notifications: filter } };
}
