/**
 * Which of the engine's optional bindings the app binds in wrangler.toml. The end-to-end tests run the app as it is
 * configured: a feature's flows run only when its binding is there, and other tests check that it is off otherwise.
 */
import { readFileSync } from "node:fs";

export type EngineBinding = "SUBSCRIPTIONS" | "LEGACY_SESSIONS" | "REPLAY_GUARD" | "RATE_LIMITER" | "TASKS" | "ASSETS";

const config = readFileSync("wrangler.toml", "utf8");

/** Whether wrangler.toml declares the binding (a commented-out line does not count; `[assets]` names it `binding`). */
export const appBinds = (name: EngineBinding): boolean => new RegExp(`^(name|binding) = "${name}"$`, "m").test(config);
