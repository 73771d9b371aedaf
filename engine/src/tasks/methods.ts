/**
 * @module tasks/methods
 * `tasks/get`, `tasks/update` and `tasks/cancel` on the Worker: checks who may ask, then asks the task's own
 * Durable Object.
 */

import { keyRing } from "../config/key-ring";
import type { RequestScope } from "../run/request";
import { jsonBytes } from "../util/encoding";
import { isObject } from "../wire/envelope";
import { invalidParams, methodNotFound } from "../wire/errors";
import { declaresTasks, type TaskMethod, tasksRequired } from "../wire/tasks";
import type { JsonObject } from "../wire/types";
import { isMintedTaskId } from "./ids";
import { tasksOf } from "./rpc";

/**
 * One message for every id that names no task of this caller: never minted, expired and deleted, or another
 * principal's. Why one message: a caller must not learn that someone else's task exists.
 */
const notFound = () => invalidParams("Failed to retrieve task: Task not found");

export async function serveTaskMethod(method: TaskMethod, params: JsonObject, scope: RequestScope): Promise<JsonObject> {
  const tasks = tasksOf(scope.env);
  // Tasks are a 2026-07-28 extension; a 2025 client cannot declare it, and a Worker without TASKS has no tasks.
  if (!tasks || scope.era !== "stateless") throw methodNotFound(method);
  if (!declaresTasks(scope.meta.clientCapabilities)) throw tasksRequired();
  const taskId = params.taskId;
  if (typeof taskId !== "string") throw invalidParams('Invalid params: "taskId" must be a string');
  // Why before any lookup: an id this server never minted names no task, so no Durable Object is woken (and no
  // storage created) for it.
  if (!(await isMintedTaskId(await keyRing(scope.config), taskId))) throw notFound();
  // Why the principal goes with every call: the object answers only the principal that created the task.
  const task = tasks.getByName(taskId);
  const principal = scope.principal.id;
  switch (method) {
    case "tasks/get": {
      const detailed = await task.get(principal);
      if (!detailed) throw notFound();
      return detailed;
    }
    case "tasks/update": {
      const responses = params.inputResponses;
      if (!isObject(responses)) throw invalidParams('Invalid params: "inputResponses" must be an object');
      // Checked as stored, before the object is asked to keep anything.
      const { maxAnswerBytes } = scope.config.limits.tasks;
      if (jsonBytes(responses) > maxAnswerBytes) {
        throw invalidParams(`Invalid params: inputResponses take more than ${maxAnswerBytes} bytes as UTF-8 JSON`);
      }
      const outcome = await task.update(principal, responses);
      if (outcome.kind === "unknown") throw notFound();
      if (outcome.kind === "invalid") throw invalidParams(outcome.message);
      return {};
    }
    case "tasks/cancel": {
      if (!(await task.cancel(principal))) throw notFound();
      return {};
    }
  }
}
