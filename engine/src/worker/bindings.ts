/**
 * @module worker/bindings
 * The Worker bindings the engine understands, together. Each feature declares (and reads) its own, in its own
 * folder; every one is optional: a Worker without one runs with that feature off (and does not advertise it), so
 * removing a binding from `wrangler.toml` never breaks the build.
 *
 * `createMcpWorker` is generic over the app's env (`Env` from `wrangler types`), which only has to be assignable
 * to this interface.
 */
import type { AssetBindings } from "../define/views";
import type { RateLimitBindings } from "../http/rate-limit";
import type { SessionBindings } from "../legacy/session";
import type { HubBindings } from "../listen/hub";
import type { ReplayGuardBindings } from "../modern/replay-guard";
import type { OAuthBindings } from "../oauth/bindings";
import type { TaskBindings } from "../tasks/rpc";

/**
 * The Worker bindings the engine understands, together: the type `createMcpWorker`'s env must be assignable to.
 *
 * `SUBSCRIPTIONS`: listen and change notifications. `LEGACY_SESSIONS`: sessions for 2025 clients that need one.
 * `REPLAY_GUARD`: single-use `requestState`. `TASKS`: the Tasks extension. `RATE_LIMITER`: requests per caller per
 * period on `/mcp`. `ASSETS`: the views' HTML. `OAUTH_STATE`, `OAUTH_RATE_LIMITER` (and `OAUTH_KV`, what an earlier
 * version left): authorization-server mode.
 *
 * Every one is optional: removing a binding from wrangler.toml turns its feature off (and the server stops
 * advertising it), never the build. The app's `Env` (from `wrangler types`) needs only to be assignable to this.
 *
 * @example
 * ```ts
 * export interface WeatherEnv extends EngineBindings {
 *   WEATHER_API_KEY: string;
 * }
 * export const weatherWorker = createMcpWorker<WeatherEnv>({ name: "weather", version: "1.0.0", tools: [getForecast] });
 * ```
 * @see docs/configuration.md
 */
export interface EngineBindings
  extends HubBindings,
    SessionBindings,
    ReplayGuardBindings,
    TaskBindings,
    RateLimitBindings,
    AssetBindings,
    OAuthBindings {}
