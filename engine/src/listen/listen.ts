/**
 * @module listen/listen
 * `subscriptions/listen`: an SSE stream of change notifications fed by the hubs (see `hub-stream.ts`), each
 * tagged with the subscription id (the listen request's id).
 *
 * Stream rules: the acknowledgement is the first message; a full hub is reported in-band before it; after
 * LISTEN_MAX_LIFETIME_MS the stream ends with the completion result; a hub that goes away ends the stream
 * without one, and the client re-sends listen.
 */
import * as z from "zod/mini";
import { describeIssues } from "../ask/schema";
import { callerKey } from "../http/rate-limit";
import { SseStream } from "../http/sse";
import type { RequestScope } from "../run/request";
import { lazy } from "../util/memo";
import { ErrorCode, invalidParams } from "../wire/errors";
import { errorMessage, resultMessage } from "../wire/messages";
import { declaresTasks, tasksRequired } from "../wire/tasks";
import { HEADER, type JsonObject, META, type RequestId } from "../wire/types";
import type { HubEvent, ListenerFilter } from "./hub";
import { hubsOf } from "./hub";
import { hubStream, type ListenLimit } from "./hub-stream";
import { assertFilterStorable, MAX_RESOURCE_SUBSCRIPTIONS, MAX_TASK_SUBSCRIPTIONS, MAX_URI_LENGTH } from "./stored-size";

const filterSchema = lazy(() =>
  z.looseObject({
    toolsListChanged: z.optional(z.boolean()),
    promptsListChanged: z.optional(z.boolean()),
    resourcesListChanged: z.optional(z.boolean()),
    resourceSubscriptions: z.optional(
      z.array(z.string().check(z.minLength(1), z.maxLength(MAX_URI_LENGTH))).check(z.maxLength(MAX_RESOURCE_SUBSCRIPTIONS)),
    ),
    taskIds: z.optional(z.array(z.string().check(z.minLength(1), z.maxLength(64))).check(z.maxLength(MAX_TASK_SUBSCRIPTIONS))),
  }),
);

/** What the server can deliver, from its advertised capabilities. */
export interface ListenSupport {
  tools: boolean;
  prompts: boolean;
  resources: boolean;
  /** `notifications/tasks` (Tasks extension), for requests that declare the extension. */
  tasks: boolean;
}

/** Parses the requested filter and keeps the part this server honours; unknown notification types are dropped. */
export function honouredFilter(params: JsonObject, support: ListenSupport, declaresTasks = false): ListenerFilter {
  const parsed = filterSchema().safeParse(params.notifications ?? {});
  if (!parsed.success) throw invalidParams(`Invalid params: ${describeIssues(parsed.error as z.core.$ZodError, "notifications")}`);
  const requested = parsed.data;
  // SEP-2663: a client that asks for task notifications without declaring the extension MUST get -32021.
  if (requested.taskIds !== undefined && support.tasks && !declaresTasks) throw tasksRequired();
  const honoured: ListenerFilter = {};
  if (requested.toolsListChanged && support.tools) honoured.toolsListChanged = true;
  if (requested.promptsListChanged && support.prompts) honoured.promptsListChanged = true;
  if (requested.resourcesListChanged && support.resources) honoured.resourcesListChanged = true;
  if (requested.resourceSubscriptions?.length && support.resources)
    honoured.resourceSubscriptions = [...new Set(requested.resourceSubscriptions)];
  // Why any id is honoured: task events go only to their own principal's listeners, so another caller's id (or
  // one never minted) simply never fires; checking each id here would cost a Durable Object call per id.
  if (requested.taskIds?.length && support.tasks) honoured.taskIds = [...new Set(requested.taskIds)];
  assertFilterStorable(honoured);
  return honoured;
}

export const NOTIFICATION_METHODS: Record<HubEvent["type"], string> = {
  tools_list_changed: "notifications/tools/list_changed",
  prompts_list_changed: "notifications/prompts/list_changed",
  resources_list_changed: "notifications/resources/list_changed",
  resource_updated: "notifications/resources/updated",
  task_status: "notifications/tasks",
};

export function serveListen(scope: RequestScope, params: JsonObject, support: ListenSupport, resultMeta: JsonObject): Response {
  const filter = honouredFilter(params, support, declaresTasks(scope.meta.clientCapabilities));
  const id = scope.requestId;
  const tag = { [META.subscriptionId]: id };
  const headers = { [HEADER.requestId]: scope.traceId };
  const complete = () => resultMessage(id, { resultType: "complete", _meta: { ...resultMeta, ...tag } });

  // An empty honoured filter (always so without a hub): nothing will ever be sent, so acknowledge it and end at once.
  const hubs = hubsOf(scope.env);
  if (Object.keys(filter).length === 0 || !hubs) {
    const stream = new SseStream();
    stream.send(acknowledgement(tag, filter));
    stream.send(complete());
    stream.close();
    return stream.response(headers);
  }
  return hubStream({
    hubs,
    settings: scope.config.limits.listen,
    principal: scope.principal,
    caller: callerKey(scope),
    log: scope,
    filter,
    signal: scope.reply.signal,
    headers,
    toMessage(event) {
      // A task notification carries the DetailedTask, as tasks/get would answer it at that moment.
      const eventParams: JsonObject = event.type === "task_status" ? { ...event.task, _meta: tag } : { _meta: tag };
      if (event.type === "resource_updated") eventParams.uri = event.uri;
      return { jsonrpc: "2.0", method: NOTIFICATION_METHODS[event.type], params: eventParams };
    },
    // The acknowledgement is the first message; nothing goes on the subscription before it.
    onOpen: (stream) => stream.send(acknowledgement(tag, filter)),
    // Why in-band and before any acknowledgement: the HTTP status is already sent, and the client must not
    // believe it is subscribed.
    onRefused: (stream, limit) => stream.send(refusal(id, limit)),
    onLifetime: (stream) => stream.send(complete()),
  });
}

/** The in-band error for a refused listener, naming the cap it reached (and its number) so the client can act. */
export function refusal(id: RequestId, limit: ListenLimit | undefined) {
  if (!limit) return errorMessage(id, ErrorCode.InternalError, "Subscriptions are unavailable");
  const message =
    limit.kind === "caller"
      ? `Subscription limit reached: this caller already holds ${limit.max} listen streams, the most one caller may; close one first`
      : `Subscription limit reached: the server holds its maximum of ${limit.max} listen streams; try again later`;
  return errorMessage(id, ErrorCode.InternalError, message, { limit: limit.kind, max: limit.max });
}

function acknowledgement(tag: Record<string, RequestId>, filter: ListenerFilter) {
  return { jsonrpc: "2.0", method: "notifications/subscriptions/acknowledged", params: { _meta: tag, notifications: filter } };
}
