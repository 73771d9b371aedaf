/**
 * @module publish
 * Publishing change notifications to `subscriptions/listen` streams in every isolate, through the hub.
 *
 * Sharding: events for everyone (tool and prompt list changes, public resources) go to every one of
 * LISTEN_GLOBAL_SHARDS global hubs, and each listener joins one of them at random, so no single hub holds every
 * listener. Events about one principal's data go only to that principal's hub, which only that principal's
 * listeners join: a user's private note is never announced to anyone else.
 */
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

export const globalHubName = (shard: number) => `global:${shard}`;
export const principalHubName = (principal: string) => `principal:${principal}`;

/** Publishes as `principal`. Does nothing when the Worker has no SUBSCRIPTIONS binding (listen is then off). */
export function createPublisher(hubs: Hubs, principal: string, globalShards: number): Publisher {
  const send = async (event: HubEvent, audience: Audience) => {
    if (!hubs) return;
    if (audience === "caller") {
      await hubs.getByName(principalHubName(principal)).publish({ ...event, principal });
      return;
    }
    await Promise.all(Array.from({ length: globalShards }, (_, shard) => hubs.getByName(globalHubName(shard)).publish(event)));
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
