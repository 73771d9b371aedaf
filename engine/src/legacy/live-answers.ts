/**
 * @module legacy/live-answers
 * How a 2025 request answers its handler's questions: 2025-era clients have no `input_required`, so each question
 * is sent as a real server-to-client request (`elicitation/create`, `sampling/createMessage`, `roots/list`) on the
 * call's SSE stream, and the handler waits, in place, for the client's answer to arrive at the session's Durable
 * Object. Without a session (or without the capability) there is no one to ask, and `ask` reports the missing
 * capability. The run goes to its end in one request (run/end.ts): done, or cancelled by the client.
 */

import { acceptAnswer, askedQuestion } from "../ask/answers";
import { type AnswerSource, inputApi } from "../ask/loop";
import { type InputRequest, toWire } from "../ask/questions";
import { type EndRun, Run } from "../run/end";
import { type Asking, type RequestScope, runOnRequest } from "../run/request";
import { isObject } from "../wire/envelope";
import type { JsonObject } from "../wire/types";
import type { LegacySession, SessionState } from "./session";

export interface LiveSession {
  state: SessionState;
  stub: DurableObjectStub<LegacySession>;
  /** How long a tool waits for the client's answer. */
  timeoutMs: number;
}

/** The 2025 way of answering a request's questions: asked live, in the session `session` (none: nothing can be asked). */
export function liveAnswers(scope: RequestScope, session: LiveSession | undefined): Asking {
  return {
    async run(_target, _params, handler, options) {
      const run = new Run();
      // Without a session there is no one to ask: no capabilities, so every question is refused (-32021).
      const source: AnswerSource = {
        answer: () => undefined,
        async obtain(missing) {
          const entries = await Promise.all(
            Object.entries(missing).map(async ([key, request]) => [
              key,
              acceptAnswer(key, askedQuestion(request), await askClient(scope, session!, request, run.end)),
            ]),
          );
          return Object.fromEntries(entries);
        },
      };
      const ended = await runOnRequest(run, scope, inputApi(source, session?.state.capabilities ?? {}, {}), handler, options);
      switch (ended.kind) {
        case "done":
          return { kind: "done", value: ended.value, retried: false };
        case "cancelled":
          return { kind: "cancelled" };
        default:
          // Questions are answered in place, and tasks are 2026-07-28's: a 2025 run neither asks its way out nor yields.
          throw new Error(`A 2025 request's run cannot end with "${ended.kind}"`);
      }
    },
  };
}

/** Sends one server-to-client request on the response stream and waits for the client's answer. */
async function askClient(scope: RequestScope, session: LiveSession, request: InputRequest, end: EndRun): Promise<unknown> {
  const id = `srv-${crypto.randomUUID()}`;
  const wire = toWire(request);
  const params = legacyParams(request, wire.params as JsonObject, session.state.version);
  scope.reply.notify({ jsonrpc: "2.0", id, method: wire.method, params });
  const answer = session.stub.awaitResponse(id, scope.requestId, session.timeoutMs) as Promise<JsonObject>;
  const cancelled = new Promise<"cancelled">((resolve) => {
    const abort = () => resolve("cancelled");
    if (scope.reply.signal.aborted) abort();
    scope.reply.signal.addEventListener("abort", abort, { once: true });
  });
  const response = await Promise.race([answer, cancelled]);
  if (response === "cancelled") return end({ kind: "cancelled" });
  if (isObject(response.error) && isObject(response.error.data) && response.error.data.cancelled === true) {
    // The session stopped the wait because the client cancelled this request: so is the handler, at once.
    scope.reply.cancel();
    return end({ kind: "cancelled" });
  }
  if (response.error !== undefined) {
    // A client that cannot show a form answers with an error; for the handler that is a cancelled form.
    if (request.kind === "form" || request.kind === "url") return { action: "cancel" };
    throw new Error(`The client answered ${wire.method} with an error`);
  }
  return response.result;
}

/** 2025 revisions: forms carry no `mode` (it arrived with URL mode), and URL mode needs an `elicitationId`. */
function legacyParams(request: InputRequest, params: JsonObject, version: string): JsonObject {
  if (request.kind === "form") {
    const { mode: _mode, ...rest } = params;
    return rest;
  }
  if (request.kind === "url" && version === "2025-11-25") return { ...params, elicitationId: crypto.randomUUID() };
  return params;
}
