/**
 * @module tasks/keys
 * The keys a task's questions carry in `inputRequests`. SEP-2663: "Each request key in inputRequests MUST be unique
 * over the lifetime of a single task"; a server must not reuse one after its answer was delivered. Requesters rely on
 * it: they answer each key once and ignore it when it comes again (ext-tasks 0.2.2 does), so a question asked again
 * under its old key would wait for an answer that never comes.
 *
 * A question is asked under the handler's own key (`ctx.ask({ tag: ... })` asks `tag`) the first time, and under
 * the first of `tag#2`, `tag#3`, ... this task has not used when it is asked again (its kept answer was refused by
 * the handler's own schema). The answer comes back under that key and is kept under the handler's.
 */
import type { TaskRecord } from "./record";

/** Every `inputRequests` key the task has used so far (a task stored by an older engine lists none: its pending and answered ones). */
export function usedKeys(record: Pick<TaskRecord, "usedKeys" | "pending" | "answers">): string[] {
  return record.usedKeys ?? [...Object.keys(record.pending), ...Object.keys(record.answers)];
}

/** The key to ask the handler's question `key` under: its own when the task never used it, else a fresh one. */
export function freshKey(key: string, used: ReadonlySet<string>): string {
  if (!used.has(key)) return key;
  for (let attempt = 2; ; attempt++) {
    const candidate = `${key}#${attempt}`;
    if (!used.has(candidate)) return candidate;
  }
}
