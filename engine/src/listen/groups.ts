/**
 * @module listen/groups
 * Hub groups: how listeners spread over Durable Objects as their number grows.
 *
 * A group is the set of hubs one kind of event goes to: the global group (events for everyone) or one principal's
 * group (that principal's private events). It starts as one hub, its root; each hub (shard) holds at most
 * LISTEN_SHARD_CAPACITY listeners, and when the root is full it opens the next shard, up to LISTEN_MAX_SHARDS.
 * Every listener joins through the root, which accepts it or names the shard to join; every publish goes to the
 * root, which forwards it to the other shards. The number of shards is kept in the root's storage.
 */

/** The group of events for everyone. Every listener joins it. */
export const GLOBAL_GROUP = "global";

/** One principal's group: only that principal's listeners join it, so its private events reach no one else. */
export const principalGroup = (principal: string) => `principal:${principal}`;

/**
 * The group a caller's listeners are counted in, so that each caller has a bounded share of the listeners
 * (`limits.listen.maxPerCaller`), whatever others hold: an authenticated principal's own group, or (anonymous callers) one
 * per client network (an IPv6 /64 is one), as the rate limit and the task quota count them (`callerKey`). Nothing is published to an
 * address's group: it only counts.
 */
export const callerGroup = (principal: { id: string; authenticated: boolean }, callerKey: string) =>
  principal.authenticated ? principalGroup(principal.id) : `caller:${callerKey}`;

/**
 * Where events private to `principal` go: its own group. Anonymous callers have none: with authorization off they
 * are all one principal, so their events go to the global group, marked as anonymous (authenticated listeners
 * never get them), and only the handle rule (`covers` in hub.ts) keeps one anonymous caller's resources from another.
 */
export const privateGroup = (principal: { id: string; authenticated: boolean }) =>
  principal.authenticated ? principalGroup(principal.id) : GLOBAL_GROUP;

/**
 * The hub name of one shard: the root is named as its group; shard k is `shard:<k>:<group>`. Why the number first
 * and its own prefix: no principal id can make a group name that is also another group's shard.
 */
export const shardName = (group: string, shard: number) => (shard === 0 ? group : `shard:${shard}:${group}`);

/** What bounds a group, as the Worker computes it from its settings (hubs have no configuration of their own). */
export interface GroupLimits {
  /** Listeners one shard holds. */
  capacity: number;
  /** Listeners the whole group may hold: capacity × LISTEN_MAX_SHARDS, or a caller's share if lower. */
  groupMax: number;
}

/** How many listeners shard `shard` may hold: full shards before it, and what is left of the group's cap. */
export const shardCap = (limits: GroupLimits, shard: number) =>
  Math.max(0, Math.min(limits.capacity, limits.groupMax - shard * limits.capacity));

/** How many shards the group may open, the root included. */
export const maxShards = (limits: GroupLimits) => Math.max(1, Math.ceil(limits.groupMax / limits.capacity));

/** On the root's answer to a join it does not accept itself: which shard to join instead. */
export const SHARD_HEADER = "x-mcp-shard";
/** On that answer: the group is full and this shard was counted to have room; a refusal there is final. */
export const LAST_RESORT_HEADER = "x-mcp-last-resort";
/** A shard's answer when it is full: ask the root again, naming it among those tried. */
export const SHARD_FULL_STATUS = 409;
