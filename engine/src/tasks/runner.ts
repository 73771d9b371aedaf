/**
 * @module tasks/runner
 * `TaskRunner`: the Durable Object class of tasks, one object per task (named by its id), plus one quota ledger per
 * caller (quota.ts). The methods are the RPC surface the Worker calls (rpc.ts); host.ts does the work.
 */
import { DurableObject } from "cloudflare:workers";
import type { HubBindings } from "../listen/hub";
import type { JsonObject } from "../wire/types";
import { TaskHost } from "./host";
import { QuotaLedger } from "./quota";
import type { TaskInit } from "./record";
import type { TaskBindings, TaskObject, UpdateOutcome } from "./rpc";

/**
 * The Durable Object of long-running tools (the Tasks extension): one per task, which stores the task before the
 * client hears of it, runs the tool's handler in alarm-driven slices (`ctx.checkpoint()`), resumes it from its last
 * checkpoint if its isolate dies, and answers `tasks/get`, `tasks/update` and `tasks/cancel`; plus one quota ledger
 * per caller.
 *
 * Yours to bind, not to call: export it from the Worker's entry module (`export { TaskRunner } from "./mcp"`) and
 * bind it in wrangler.toml as `TASKS` (`class_name = "TaskRunner"`, a SQLite class in `migrations`). Without the
 * binding, every tool runs synchronously, the extension is not advertised, and `taskSupport: "required"` tools
 * answer with an error.
 *
 * @example
 * ```ts
 * export interface TaskRunnerEnv {
 *   TASKS: DurableObjectNamespace<TaskRunner>;
 * }
 * ```
 * @see docs/guides/long-running-tools.md
 */
export class TaskRunner extends DurableObject<HubBindings & TaskBindings> implements TaskObject {
  private readonly host: TaskHost;

  constructor(ctx: DurableObjectState, env: HubBindings & TaskBindings) {
    super(ctx, env);
    this.host = new TaskHost(ctx, env);
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
}
