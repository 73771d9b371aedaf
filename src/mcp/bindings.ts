/**
 * @module bindings
 * The Worker bindings the engine understands. Every one is optional: a Worker without one runs with that feature
 * off (and does not advertise it), so removing a binding from `wrangler.toml` never breaks the build.
 *
 * The engine types itself against this interface, never against the app's generated `Env`; `createMcpWorker` is
 * generic over the app's env, which only has to be assignable to it.
 */
import type { ReplayGuard } from "./input/replay-guard";
import type { LegacySession } from "./legacy/session";
import type { SubscriptionHub } from "./listen/hub";
import type { TaskObject } from "./tasks/rpc";

export interface EngineBindings {
  /** `subscriptions/listen` and change notifications (`listChanged`, `resources/subscribe`). */
  SUBSCRIPTIONS?: DurableObjectNamespace<SubscriptionHub>;
  /** Sessions for 2025-era clients that need one (server-to-client requests, GET stream, subscribe, setLevel). */
  LEGACY_SESSIONS?: DurableObjectNamespace<LegacySession>;
  /** Single-use `requestState` (`ctx.ask(..., { singleUse: true })`); without it such a round is refused. */
  REPLAY_GUARD?: DurableObjectNamespace<ReplayGuard>;
  /** The Tasks extension: one Durable Object per task; without it no tool runs as a task (nor is it advertised). */
  TASKS?: DurableObjectNamespace<TaskObject>;
  /** Requests per caller per minute on `/mcp`; without it nothing is rate limited. */
  RATE_LIMITER?: RateLimit;
  /** Static assets: the HTML of interactive views (MCP Apps), read when asked for; without it no view is offered. */
  ASSETS?: Fetcher;
  /** Authorization-server mode (AUTH_LOGIN): clients, grants and tokens (stored hashed or encrypted). Required there. */
  OAUTH_KV?: KVNamespace;
  /** Authorization-server mode: requests per client IP per period on `/register` and `/token`. */
  OAUTH_RATE_LIMITER?: RateLimit;
}
