/**
 * @module listen/publish
 * Publishing change notifications to `subscriptions/listen` streams in every isolate, through the hub.
 *
 * Groups (see `groups.ts`): events for everyone (tool and prompt list changes, public resources) go to the global
 * group, which every listener joins. Events about one principal's data go only to that principal's group, which
 * only that principal's listeners join: a user's private note is never announced to anyone else. (Anonymous callers
 * are one principal: theirs go to the global group, marked anonymous.) Either way the event goes to the group's
 * root, which forwards it to the group's other shards.
 */

import type { Audience, Publisher } from "../run/context";
import { describeError, type LogScope, log } from "../util/log";
import type { Principal } from "../wire/principal";
import { GLOBAL_GROUP, principalGroup, privateGroup } from "./groups";
import type { HubEvent, SubscriptionHub } from "./hub";

/** The SUBSCRIPTIONS namespace, when the Worker has one. */
export type Hubs = DurableObjectNamespace<SubscriptionHub> | undefined;

/** The part of a resource URI a subscription must name to cover it (`ResourceIndex.handleOf`). */
export type HandleOf = (uri: string) => string;

/** Tells the principal's listen streams that one of its tasks changed status (Tasks extension; engine only). */
export async function publishTaskStatus(hubs: Hubs, principal: Principal, taskId: string, task: Record<string, unknown>): Promise<void> {
  if (!hubs) return;
  await hubs.getByName(privateGroup(principal)).publish({ type: "task_status", taskId, task, principal: principal.id });
}

/**
 * Publishes as `principal`. Does nothing when the Worker has no SUBSCRIPTIONS binding (listen is then off).
 * `handleOf` marks each resource update with the part of its URI a subscription must name (the handle rule,
 * `covers` in hub.ts); without it, only a subscription to exactly that URI hears it.
 *
 * Best effort: callers publish after their write is committed, so a hub that fails (unreachable, overloaded,
 * broken) is logged and never turns the call into a failure; a client told "failed" would retry the write and
 * duplicate it. Within the group, the root forwards to each shard on its own: one failing shard does not keep the
 * event from the others.
 */
export function createPublisher(hubs: Hubs, principal: Principal, handleOf: HandleOf = (uri) => uri, logScope?: LogScope): Publisher {
  const send = async (event: HubEvent, audience: Audience) => {
    if (!hubs) return;
    try {
      if (audience === "caller") await hubs.getByName(privateGroup(principal)).publish({ ...event, principal: principal.id });
      else await hubs.getByName(GLOBAL_GROUP).publish(event);
    } catch (error) {
      // Never the URI or the principal: log what happened, not whose data it was about.
      log(logScope, "error", "publish failed", { event: event.type, audience, ...describeError(error) });
    }
  };
  return {
    toolsListChanged: () => send({ type: "tools_list_changed" }, "everyone"),
    promptsListChanged: () => send({ type: "prompts_list_changed" }, "everyone"),
    resourcesListChanged: (audience = "caller") => send({ type: "resources_list_changed" }, audience),
    resourceUpdated: (uri, audience = "caller") => send({ type: "resource_updated", uri, handle: handleOf(uri) }, audience),
  };
}

/**
 * The roots of the groups a legacy session's notification stream joins: its principal's, and the global one (an
 * anonymous session's stream is counted in its address's group, where nothing is published, so its filter there
 * never matters). A root passes a session's filter update or close on to every shard of its group, so it reaches the
 * stream wherever it joined.
 */
export function sessionHubs(hubs: Hubs, session: { principal: string }) {
  if (!hubs) return [];
  return [hubs.getByName(principalGroup(session.principal)), hubs.getByName(GLOBAL_GROUP)];
}
