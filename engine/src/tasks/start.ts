/**
 * @module tasks/start
 * `tools/call` of a tool that runs as a task, on the Worker. The handler first runs here, under the request's
 * multi round-trip rounds, up to its first `ctx.progress()`, which hands the run over: questions asked before that are answered
 * synchronously, before any task exists (as SEP-2663 advises). At that first `ctx.progress()` the run here stops,
 * the task is created durably in its own Durable Object, and the object runs the handler again from the top, with
 * the answers and `ctx.state` gathered so far. A handler that returns before calling `ctx.progress()` was quick:
 * its result is answered at once, and no task is created (the spec allows either).
 */

import { keyRing } from "../config/key-ring";
import { runTool, type Tool, type ToolCall, toolAnswerOf } from "../define/tools";
import type { Asking, RequestScope } from "../run/request";
import { log } from "../util/log";
import { ErrorCode, RpcError } from "../wire/errors";
import { declaresTasks, tasksRequired } from "../wire/tasks";
import type { JsonObject } from "../wire/types";
import { newTaskId } from "./ids";
import { quotaName } from "./quota";
import { tasksOf } from "./rpc";

/**
 * Whether this call becomes a task: the tool allows it, the Worker has the TASKS binding, and this request (on the
 * 2026-07-28 wire) declares the extension. A task-only tool refuses other clients with -32021, before it runs.
 */
export function runsAsTask(tool: Tool, scope: RequestScope): boolean {
  const support = tool.taskSupport ?? "forbidden";
  if (support === "forbidden") return false;
  if (!tasksOf(scope.env)) {
    if (support === "optional") return false;
    log(scope, "error", "a task-only tool needs the TASKS binding", { tool: tool.name });
    throw new RpcError(
      ErrorCode.InternalError,
      `Tool ${tool.name} runs only as a task, and this server has no TASKS binding`,
      undefined,
      500,
    );
  }
  if (scope.era === "stateless" && declaresTasks(scope.meta.clientCapabilities)) return true;
  if (support === "required") throw tasksRequired();
  return false;
}

/**
 * Runs the call up to its first `ctx.progress()` (or `ctx.checkpoint()`), which hands it over, then creates the task;
 * `server` names the server that runs it. Its questions before that are the request's (`asking`: 2026-07-28 rounds),
 * and `admit` admits the logical call once, on its first round (its tool's budget); the task's runs never again.
 */
export async function startTask(
  server: string,
  { tool, args }: ToolCall,
  params: JsonObject,
  scope: RequestScope,
  asking: Asking,
  admit?: () => Promise<JsonObject | undefined>,
): Promise<JsonObject> {
  const target = { method: "tools/call", name: tool.name, args } as const;
  const asked = await asking.run(target, params, (ctx) => runTool(tool, args, ctx, scope), { handsOver: true, admit });
  if (asked.kind !== "hands-over") return toolAnswerOf(asked);

  const taskId = await newTaskId(await keyRing(scope.config));
  const tasks = tasksOf(scope.env)!;
  // Why counted before the task exists: a caller at its limit must not get a task that then holds resources.
  const quota = quotaName(scope);
  const limits = scope.config.limits.tasks;
  const limit = limits.maxActivePerCaller;
  if (!(await tasks.getByName(quota).admit(taskId, Date.now() + limits.ttlMs, limit))) {
    return {
      content: [{ type: "text", text: `Too many tasks in progress (at most ${limit} per caller): wait for one to finish, or cancel one` }],
      isError: true,
    };
  }
  // Resolves once the object has stored the task: a tasks/get from any isolate finds it (spec: durably created).
  const task = await tasks.getByName(taskId).create({
    taskId,
    quota,
    server,
    tool: tool.name,
    args,
    // Everything but the upstream token: a secret is not copied into task storage, so a task's handler never has it.
    principal: {
      id: scope.principal.id,
      scopes: [...scope.principal.scopes],
      authenticated: scope.principal.authenticated,
      ...(scope.principal.name !== undefined && { name: scope.principal.name }),
      ...(scope.principal.client !== undefined && { client: { ...scope.principal.client } }),
    },
    client: { protocolVersion: scope.meta.protocolVersion, capabilities: scope.meta.clientCapabilities, info: scope.meta.clientInfo },
    requestId: scope.requestId,
    traceId: scope.traceId,
    // The answers the handler got, as the client sent them: the task asks the same questions again, from the top.
    answers: asked.answers,
    state: asked.state,
    limits,
  });
  return { resultType: "task", ...(task as JsonObject) };
}
