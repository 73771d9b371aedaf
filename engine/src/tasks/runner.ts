/**
 * @module tasks/runner
 * `createTaskRunner`: the Durable Object class of tasks for one server, one object per task (named by its id), plus
 * one quota ledger per caller (quota.ts). The methods are the RPC surface the Worker calls (rpc.ts); host.ts does
 * the work.
 */
import { DurableObject } from "cloudflare:workers";
import type { HubBindings } from "../listen/hub";
import type { JsonObject } from "../wire/types";
import { TaskHost } from "./host";
import { QuotaLedger } from "./quota";
import type { TaskInit } from "./record";
import type { TaskBindings, TaskObject, UpdateOutcome } from "./rpc";
import type { TaskServers } from "./servers";

/**
 * The class of the Durable Object of long-running tools (the Tasks extension), bound to the servers whose tools it
 * runs: one object per task, which stores the task before the client hears of it, runs the tool's handler in
 * alarm-driven slices (`ctx.checkpoint()`), resumes it from its last checkpoint if its isolate dies, and answers
 * `tasks/get`, `tasks/update` and `tasks/cancel`; plus one quota ledger per caller. `createMcpWorker` makes the one
 * of its server (`TaskRunner` in its result).
 */
export function createTaskRunner(servers: TaskServers) {
  return class TaskRunner extends DurableObject<HubBindings & TaskBindings> implements TaskObject {
    private readonly host: TaskHost;

    constructor(ctx: DurableObjectState, env: HubBindings & TaskBindings) {
      super(ctx, env);
      this.host = new TaskHost(ctx, env, servers);
    }

    async create(init: TaskInit): Promise<JsonObject> {
      return this.host.create(init);
    }

    async get(principal: string): Promise<JsonObject | undefined> {
      return this.host.get(principal);
    }

    async update(principal: string, responses: JsonObject): Promise<UpdateOutcome> {
      return this.host.update(principal, responses);
    }

    async cancel(principal: string): Promise<boolean> {
      return this.host.cancel(principal);
    }

    async admit(taskId: string, expiresAt: number, max: number): Promise<boolean> {
      return new QuotaLedger(this.ctx.storage).admit(taskId, expiresAt, max);
    }

    async release(taskId: string): Promise<void> {
      new QuotaLedger(this.ctx.storage).release(taskId);
    }

    override async alarm(): Promise<void> {
      await this.host.alarm();
    }
  };
}

/** An object of the class `createTaskRunner` makes: what a `TASKS` binding's stubs call. */
export type TaskRunner = InstanceType<ReturnType<typeof createTaskRunner>>;
