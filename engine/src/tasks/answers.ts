/**
 * @module tasks/answers
 * Where a task's handler gets its answers: the ones the task keeps (from the call that started it, and from
 * `tasks/update`). A question none of them answers ends the run asking (the task waits in `input_required`), under
 * a key no earlier question of the task used.
 */
import { typedAnswer } from "../ask/answers";
import type { AnswerSource } from "../ask/loop";
import { type InputRequest, toWire } from "../ask/questions";
import type { EndRun } from "../run/end";
import { RpcError } from "../wire/errors";
import type { JsonObject } from "../wire/types";
import { freshKey, usedKeys } from "./keys";
import type { TaskRecord } from "./record";

/**
 * The task's kept answers, as an answer source. `refused` collects the kept answers the handler's own schema
 * refuses: why checked here as well, `tasks/update` checked each against the form's wire schema, and the handler's
 * schema may refuse more; such an answer is dropped and its question asked again, never a failed task.
 */
export function keptAnswers(record: TaskRecord, refused: Record<string, string>, end: EndRun): AnswerSource {
  return {
    answer(key, request) {
      if (!Object.hasOwn(record.answers, key)) return undefined;
      const kept = record.answers[key] as JsonObject;
      try {
        typedAnswer(key, request, kept);
        return kept;
      } catch (error) {
        refused[key] = error instanceof RpcError ? error.message : String(error);
        return undefined;
      }
    },
    async obtain(missing) {
      return end({ kind: "asks", questions: missing });
    },
  };
}

/** The questions a run ended with, as the task stores them: each under a key no earlier question of the task used. */
export function pendingQuestions(record: TaskRecord, questions: Record<string, InputRequest>): TaskRecord["pending"] {
  const used = new Set(usedKeys(record));
  const pending: TaskRecord["pending"] = {};
  for (const [key, request] of Object.entries(questions)) {
    const asked = freshKey(key, used);
    used.add(asked);
    pending[asked] = { kind: request.kind, request: toWire(request), ...(asked !== key && { key }) };
  }
  return pending;
}
