/**
 * @module tasks/runner
 * `TaskRunner`: the Durable Object class of tasks, one object per task (named by its id). This shell is all the
 * entry module loads; the implementation (host.ts) is imported when an object first serves, so a Worker's
 * startup does not grow with task code.
 */
import { DurableObject } from "cloudflare:workers";
import type { EngineBindings } from "../bindings";
import type { JsonObject } from "../protocol/wire";
import type { TaskHost, UpdateOutcome } from "./host";
import type { TaskInit } from "./record";

export class TaskRunner extends DurableObject<EngineBindings> {
  private hosted?: Promise<TaskHost>;

  private host(): Promise<TaskHost> {
    this.hosted ??= import("./host").then(({ TaskHost }) => new TaskHost(this.ctx, this.env));
    return this.hosted;
  }

  /** Stores the new task and schedules its first run; resolves once `get` would find it (durable). */
  async create(init: TaskInit): Promise<JsonObject> {
    return (await this.host()).create(init);
  }

  /** The DetailedTask, or undefined when there is none for this principal. */
  async get(principal: string): Promise<JsonObject | undefined> {
    return (await this.host()).get(principal);
  }

  async update(principal: string, responses: JsonObject): Promise<UpdateOutcome> {
    return (await this.host()).update(principal, responses);
  }

  /** False when there is no task for this principal. */
  async cancel(principal: string): Promise<boolean> {
    return (await this.host()).cancel(principal);
  }

  override async alarm(): Promise<void> {
    await (await this.host()).alarm();
  }
}
