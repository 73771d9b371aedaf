/**
 * @module tasks/runner
 * `TaskRunner`: the Durable Object class of tasks, one object per task (named by its id). This shell is all the
 * entry module loads; the implementation (host.ts) is imported when an object first serves, so a Worker's
 * startup does not grow with task code.
 */
import { DurableObject } from "cloudflare:workers";
import type { EngineBindings } from "../bindings";
import type { JsonObject } from "../protocol/wire";
import type { TaskHost } from "./host";
import type { QuotaLedger } from "./quota";
import type { TaskInit } from "./record";
import type { TaskObject, UpdateOutcome } from "./rpc";

export class TaskRunner extends DurableObject<EngineBindings> implements TaskObject {
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

  /** Quota ledger role (an object named `quota:...`, see quota.ts): counts a task in, unless the caller is at `max`. */
  async admit(taskId: string, expiresAt: number, max: number): Promise<boolean> {
    return (await this.ledger()).admit(taskId, expiresAt, max);
  }

  /** Quota ledger role: the task no longer counts. */
  async release(taskId: string): Promise<void> {
    (await this.ledger()).release(taskId);
  }

  private async ledger(): Promise<QuotaLedger> {
    const { QuotaLedger } = await import("./quota");
    return new QuotaLedger(this.ctx.storage);
  }

  override async alarm(): Promise<void> {
    await (await this.host()).alarm();
  }
}
