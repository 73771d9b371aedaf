/**
 * @module tasks/rpc
 * What a task's Durable Object answers, as the Worker calls it. A type of its own so that worker/bindings.ts can name
 * the TASKS namespace without importing the object's implementation (which needs the bindings' types).
 */
import type { JsonObject } from "../wire/types";
import type { TaskInit } from "./record";

export type UpdateOutcome = { kind: "ok" } | { kind: "unknown" } | { kind: "invalid"; message: string };

export interface TaskObject extends Rpc.DurableObjectBranded {
  /** Stores the new task and schedules its first run; resolves once `get` would find it (durable). */
  create(init: TaskInit): Promise<JsonObject>;
  /** The DetailedTask, or undefined when there is none for this principal. */
  get(principal: string): Promise<JsonObject | undefined>;
  update(principal: string, responses: JsonObject): Promise<UpdateOutcome>;
  /** False when there is no task for this principal. */
  cancel(principal: string): Promise<boolean>;
  /** Quota ledger role (an object named `quota:...`, see quota.ts): counts a task in, unless the caller is at `max`. */
  admit(taskId: string, expiresAt: number, max: number): Promise<boolean>;
  /** Quota ledger role: the task no longer counts. */
  release(taskId: string): Promise<void>;
}

/** The binding tasks need (wrangler.toml `TASKS`); without it no tool runs as a task. */
export interface TaskBindings {
  TASKS?: DurableObjectNamespace<TaskObject>;
}

/** The task objects, when the Worker has them. */
export const tasksOf = (env: object) => (env as TaskBindings).TASKS;
