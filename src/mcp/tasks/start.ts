/**
 * @module tasks/start
 * `tools/call` of a tool that runs as a task, on the Worker. The handler first runs here, under the request's
 * multi round-trip rounds, up to its first `ctx.progress()`: questions asked before that are answered
 * synchronously, before any task exists (as SEP-2663 advises). At that first `ctx.progress()` the run here stops,
 * the task is created durably in its own Durable Object, and the object runs the handler again from the top, with
 * the answers and `ctx.state` gathered so far. A handler that returns before calling `ctx.progress()` was quick:
 * its result is answered at once, and no task is created (the spec allows either).
 */
import { handlerContext } from "../define/context";
import { checkedResult, crashResult, type TaskCall, type ToolResult, toolError } from "../define/tools";
import type { InputApi, RoundOutcome } from "../input/ask";
import { keyRing } from "../input/keys";
import { RpcError } from "../protocol/errors";
import type { JsonObject } from "../protocol/wire";
import { newTaskId } from "./ids";
import { quotaName } from "./quota";
import { TASK_SETTINGS } from "./settings";

/** Thrown by `ctx.progress()` here: the work starts, and moves to the task. */
class HandOver extends Error {}

/** Runs the call up to its first `ctx.progress()`, then creates the task; `server` names the server that runs it. */
export async function startTask(server: string, { tool, args, parsedArgs, params, scope }: TaskCall): Promise<JsonObject> {
  let handedOver = false;
  const answers: JsonObject = {};
  let input: InputApi | undefined;
  const handOver = () => {
    handedOver = true;
    throw new HandOver();
  };
  let outcome: RoundOutcome<ToolResult> | undefined;
  try {
    outcome = await scope.runWithInput({ method: "tools/call", name: tool.name, args }, params, (roundInput) => {
      input = roundInput;
      // The answers the handler got are what the task starts with (it asks the same questions again, from the top).
      const ask: InputApi["ask"] = async (requests, options) => {
        const got = await roundInput.ask(requests, options);
        Object.assign(answers, got);
        return got;
      };
      const context = handlerContext(scope, { ...roundInput, ask, progress: handOver, checkpoint: async () => handOver() });
      return Promise.resolve(tool.handler(parsedArgs as never, context));
    });
  } catch (error) {
    if (!handedOver) {
      if (error instanceof RpcError) throw error;
      return crashResult(tool, error, scope);
    }
  }
  if (!handedOver && outcome) return outcome.kind === "input_required" ? outcome.result : checkedResult(tool, outcome.value, scope);

  const taskId = await newTaskId(await keyRing(scope.config));
  const tasks = scope.env.TASKS!;
  // Why counted before the task exists: a caller at its limit must not get a task that then holds resources.
  const quota = quotaName(scope);
  const limit = TASK_SETTINGS.maxActivePerCaller;
  if (!(await tasks.getByName(quota).admit(taskId, Date.now() + TASK_SETTINGS.ttlMs, limit))) {
    return toolError(`Too many tasks in progress (at most ${limit} per caller): wait for one to finish, or cancel one`) as JsonObject;
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
    },
    client: { protocolVersion: scope.meta.protocolVersion, capabilities: scope.meta.clientCapabilities, info: scope.meta.clientInfo },
    requestId: scope.requestId,
    traceId: scope.traceId,
    answers: rawAnswers(answers),
    state: input?.state ?? {},
    inputTimeoutMs: scope.config.tasks.inputTimeoutMs,
  });
  return { resultType: "task", ...(task as JsonObject) };
}

/** Typed answers back to their wire form: a form's answer is `{ action, content }` either way. */
function rawAnswers(answers: JsonObject): JsonObject {
  return JSON.parse(JSON.stringify(answers)) as JsonObject;
}
