/**
 * The example app as the end-to-end tests know it: which of the engine's optional bindings it binds in wrangler.toml
 * (a feature's flows run only when its binding is there, and other tests check that it is off otherwise), and its
 * tools.
 */
import { readFileSync } from "node:fs";

export type EngineBinding = "SUBSCRIPTIONS" | "LEGACY_SESSIONS" | "REPLAY_GUARD" | "RATE_LIMITER" | "TASKS" | "ASSETS";

const config = readFileSync("wrangler.toml", "utf8");

/** Whether wrangler.toml declares the binding (a commented-out line does not count; `[assets]` names it `binding`). */
export const appBinds = (name: EngineBinding): boolean => new RegExp(`^(name|binding) = "${name}"$`, "m").test(config);

/** The example's tools, in the order src/tools.ts declares them: the tests check these are there, never that nothing else is. */
export const EXAMPLE_TOOLS = [
  "create_notebook",
  "add_note",
  "search_notes",
  "get_note",
  "update_note",
  "delete_note",
  "summarize_notes",
  "draft_note",
  "retag_notebook",
];
