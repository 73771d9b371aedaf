/**
 * @module publish
 * Publishing change notifications to `subscriptions/listen` streams in every isolate, through the hub.
 *
 * Sharding: events for everyone (tool and prompt list changes, public resources) go to every one of
 * LISTEN_GLOBAL_SHARDS global hubs, and each listener joins one of them at random, so no single hub holds every
 * listener. Events about one principal's data go only to that principal's hub, which only that principal's
 * listeners join: a user's private note is never announced to anyone else.
 */
import { describeError, type LogScope, log } from "../log";
import type { HubEvent, SubscriptionHub } from "./hub";

/** The SUBSCRIPTIONS namespace, when the Worker has one. */
export type Hubs = DurableObjectNamespace<SubscriptionHub> | undefined;

/** Who may hear about a resource: the principal whose data it is (the default), or everyone. */
export type Audience = "caller" | "everyone";

export interface Publisher {
  toolsListChanged(): Promise<void>;
  promptsListChanged(): Promise<void>;
  resourcesListChanged(audience?: Audience): Promise<void>;
  resourceUpdated(uri: string, audience?: Audience): Promise<void>;
}

/** Tells the principal's listen streams that one of its tasks changed status (Tasks extension; engine only). */
export async function publishTaskStatus(hubs: Hubs, principal: string, taskId: string, task: Record<string, unknown>): Promise<void> {
  if (!hubs) return;
  await hubs.getByName(principalHubName(principal)).publish({ type: "task_status", taskId, task, principal });
}

export const globalHubName = (shard: number) => `global:${shard}`;
export const principalHubName = (principal: string) => `principal:${principal}`;

/**
 * Publishes as `principal`. Does nothing when the Worker has no SUBSCRIPTIONS binding (listen is then off).
 *
 * Best effort: callers publish after their write is committed, so a hub that fails (unreachable, overloaded,
 * broken) is logged and never turns the call into a failure; a client told "failed" would retry the write and
 * duplicate it. Each hub is tried on its own: one failing shard does not keep the event from the others.
 */
export function createPublisher(hubs: Hubs, principal: string, globalShards: number, logScope?: LogScope): Publisher {
  const send = async (event: HubEvent, audience: Audience) => {
    if (!hubs) return;
    const deliveries =
      audience === "caller"
        ? [{ hub: principalHubName(principal), event: { ...event, principal } }]
        : Array.from({ length: globalShards }, (_, shard) => ({ hub: globalHubName(shard), event }));
    const outcomes = await Promise.allSettled(deliveries.map(async ({ hub, event }) => hubs.getByName(hub).publish(event)));
    for (const outcome of outcomes) {
      // Never the URI or the principal: log what happened, not whose data it was about.
      if (outcome.status === "rejected")
        log(logScope, "error", "publish failed", { event: event.type, audience, ...describeError(outcome.reason) });
    }
  };
  return {
    toolsListChanged: () => send({ type: "tools_list_changed" }, "everyone"),
    promptsListChanged: () => send({ type: "prompts_list_changed" }, "everyone"),
    resourcesListChanged: (audience = "caller") => send({ type: "resources_list_changed" }, audience),
    resourceUpdated: (uri, audience = "caller") => send({ type: "resource_updated", uri }, audience),
  };
}

/** The two hubs a legacy session's notification stream joins: its principal's, and its fixed global shard. */
export function sessionHubs(hubs: Hubs, session: { principal: string; shard: number }) {
  if (!hubs) return [];
  return [hubs.getByName(principalHubName(session.principal)), hubs.getByName(globalHubName(session.shard))];
}
