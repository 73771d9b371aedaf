/**
 * @module tasks/record
 * What a task's Durable Object stores about it, and the wire shapes derived from that record.
 */

import type { InputKind } from "../ask/questions";
import type { Limits } from "../config/options";
import type { Principal } from "../wire/principal";
import type { TaskStatus } from "../wire/tasks";
import type { ClientCapabilities, Implementation, JsonObject, RequestId } from "../wire/types";

/** What the Worker hands the object when it creates a task. */
export interface TaskInit {
  taskId: string;
  /** The server (by name, see servers.ts) and tool the task runs, with the arguments as the client sent them. */
  server: string;
  tool: string;
  args: JsonObject;
  principal: Principal;
  client: { protocolVersion: string; capabilities: ClientCapabilities; info?: Implementation };
  requestId: RequestId;
  traceId: string;
  /** The ledger object that counts this task while it is in progress (quota.ts). */
  quota: string;
  /** Answers and `ctx.state` gathered by multi round-trip rounds before the task was created. */
  answers: JsonObject;
  state: JsonObject;
  /**
   * The task limits (`limits.tasks` of createMcpWorker) as the Worker had them at creation: the object applies the
   * values the task started with, whatever a later deployment says.
   */
  limits: Limits["tasks"];
}

export interface TaskRecord extends TaskInit {
  status: TaskStatus;
  statusMessage?: string;
  createdAt: number;
  lastUpdatedAt: number;
  ttlMs: number;
  pollIntervalMs: number;
  /**
   * Questions asked and not answered yet, by their `inputRequests` key: their kind (to check answers), wire form, and
   * the handler's own key when the question carries another (it was asked again: keys.ts).
   */
  pending: Record<string, { kind: InputKind; request: JsonObject; key?: string }>;
  /** Every `inputRequests` key the task has used, never to be used again (keys.ts). */
  usedKeys?: string[];
  /** While `input_required`: when the questions go unanswered (ms since the epoch), and the task fails. */
  inputDeadline?: number;
  /** Set when the task failed because its questions went unanswered: an answer that comes later is told so. */
  inputExpired?: true;
  result?: JsonObject;
  error?: JsonObject;
}

/** The flat Task fields (the `CreateTaskResult` body, without `resultType`). */
export function taskFields(record: TaskRecord): JsonObject {
  return {
    taskId: record.taskId,
    status: record.status,
    ...(record.statusMessage !== undefined && { statusMessage: record.statusMessage }),
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.lastUpdatedAt).toISOString(),
    ttlMs: record.ttlMs,
    pollIntervalMs: record.pollIntervalMs,
  };
}

/** The DetailedTask of `tasks/get`: the Task plus what its status carries (result, error or inputRequests). */
export function detailedTask(record: TaskRecord): JsonObject {
  const task = taskFields(record);
  // Why resultType: the result is the CallToolResult the call would have answered (the extension's CompletedTask),
  // and every 2026-07-28 Result carries it; requesters decode it as one (ext-tasks refuses it without). Added here,
  // not when stored, so tasks kept by an older engine read the same.
  if (record.status === "completed") task.result = { ...record.result, resultType: "complete" };
  if (record.status === "failed") task.error = record.error;
  if (record.status === "input_required") {
    task.inputRequests = Object.fromEntries(Object.entries(record.pending).map(([key, { request }]) => [key, request]));
  }
  return task;
}
