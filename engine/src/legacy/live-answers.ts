/**
 * @module legacy/live-answers
 * How a 2025 request answers its handler's questions: 2025-era clients have no `input_required`, so each question
 * is sent as a real server-to-client request (`elicitation/create`, `sampling/createMessage`, `roots/list`) on the
 * call's SSE stream, and the handler waits, in place, for the client's answer to arrive at the session's Durable
 * Object. Without a session (or without the capability) there is no one to ask, and `ask` reports the missing
 * capability. The run goes to its end in one request (run/end.ts): done, or cancelled by the client. The client's
 * answers come back by POSTs of their own (`deliverAnswer`).
 */

import { acceptAnswer, askedQuestion } from "../ask/answers";
import { type AnswerSource, inputApi } from "../ask/loop";
import { type InputRequest, toWire } from "../ask/questions";
import { type EndRun, Run } from "../run/end";
import { type Asking, type RequestScope, runOnRequest } from "../run/request";
import { isObject, type Message } from "../wire/envelope";
import { ErrorCode, RpcError } from "../wire/errors";
import type { JsonObject } from "../wire/types";
import { type LegacySession, MAX_EARLY_ANSWER_BYTES, QUESTION_ID, type SessionState, sessionsOf } from "./session";
import { admitWaitingCall, TooManyWaiting, waitingLedgerName } from "./waiting";

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
      // A 2025 request is one whole call (its questions are answered in place): admitted once, here.
      const refusal = await options?.admit?.();
      if (refusal !== undefined) return { kind: "done", value: refusal, retried: false };
      const run = new Run();
      // Without a session there is no one to ask: no capabilities, so every question is refused (-32021).
      const source: AnswerSource = {
        answer: () => undefined,
        async obtain(missing) {
          // Why counted before anything is asked: a waiting call holds this invocation and its stream until the
          // client answers, and a client can start calls as fast as the rate limit lets it (legacy/waiting.ts). One
          // wait, however many questions it asks at once: once in its caller's ledger here, once in the session as
          // its questions are opened (askClient); named by the server, never by the client's request id.
          const call = crypto.randomUUID();
          const { maxWaitingPerCaller: max, maxWaitingPerSession } = scope.config.limits.sessions;
          const ledger = sessionsOf(scope.env)!.getByName(waitingLedgerName(scope));
          // A wait lasts at most as long as its questions do: a release lost with this Worker expires then.
          const release = await admitWaitingCall(ledger, call, { max, waitMs: session!.timeoutMs }, scope);
          try {
            const entries = await Promise.all(
              Object.entries(missing).map(async ([key, request]) => [
                key,
                acceptAnswer(
                  key,
                  askedQuestion(request),
                  await askClient(scope, session!, request, run.end, { call, max: maxWaitingPerSession }),
                ),
              ]),
            );
            return Object.fromEntries(entries);
          } finally {
            release();
          }
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

/**
 * Sends one server-to-client request on the response stream and waits for the client's answer; `waiting` is the wait
 * it belongs to, and how many calls the session may have waiting.
 */
async function askClient(
  scope: RequestScope,
  session: LiveSession,
  request: InputRequest,
  end: EndRun,
  waiting: { call: string; max: number },
): Promise<unknown> {
  const wire = toWire(request);
  const params = legacyParams(request, wire.params as JsonObject, session.state.version);
  // Why the session opens the question before it is sent: the client may answer before this call waits, and the
  // session keeps an early answer only for a question it knows it asked (see LegacySession.deliver). It refuses to
  // when the session has as many calls waiting as it may: then nothing is sent.
  const id = await session.stub.openQuestion(scope.requestId, session.timeoutMs, waiting.call, waiting.max);
  if (id === undefined) throw new TooManyWaiting("session", waiting.max);
  scope.reply.notify({ jsonrpc: "2.0", id, method: wire.method, params });
  // The answer comes as text (the session never parses it, see LegacySession.deliver); it is parsed here.
  const answer = session.stub.awaitResponse(id).then((text) => JSON.parse(text) as JsonObject);
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

/**
 * Hands a client's answer (a JSON-RPC response it POSTed) to the open question of its session that it answers, or
 * refuses it: 400 when the session asked no open question with its id (never asked, already answered, timed out),
 * 413 when it came before its tool waited and would take the session past the memory it keeps for such answers
 * (`MAX_EARLY_ANSWER_BYTES`; its tool then gets an error in its place). Nothing refused is kept.
 */
export async function deliverAnswer(session: LiveSession, message: Extract<Message, { kind: "response" }>): Promise<void> {
  const { id, result, error } = message;
  // Why the shape is checked here: the session mints every question's id in this shape, so an id of any other was
  // never asked, and costs the session's object nothing. Why text: see LegacySession.deliver.
  const delivery =
    typeof id === "string" && QUESTION_ID.test(id)
      ? await session.stub.deliver(id, JSON.stringify({ jsonrpc: "2.0", id, result, error }))
      : "unknown";
  if (delivery === "unknown") {
    throw new RpcError(ErrorCode.InvalidRequest, "Invalid Request: this session has no open question with that id", undefined, 400);
  }
  if (delivery === "too-large") {
    const message = `Invalid Request: the answer came before its tool waited, and a session keeps at most ${MAX_EARLY_ANSWER_BYTES} bytes of such answers in memory`;
    throw new RpcError(ErrorCode.InvalidRequest, message, undefined, 413);
  }
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
