/**
 * @module modern/rounds
 * How a 2026-07-28 request answers its handler's questions: in rounds of a multi round-trip request. Each round
 * verifies the incoming `requestState`, merges the new `inputResponses`, and runs the handler from the top to its
 * end (run/end.ts): done, it answers the handler's value; ended asking, it answers `input_required` with the
 * questions and freshly signed state; handed over, a task takes the answers and state so far.
 */

import { acceptAnswer, askedQuestion } from "../ask/answers";
import { type AnswerSource, inputApi } from "../ask/loop";
import { type InputKind, type InputRequest, toWire } from "../ask/questions";
import { keyRing } from "../config/key-ring";
import { canonicalJson, open, seal } from "../config/signing";
import { Run, type RunEnd } from "../run/end";
import {
  type Asked,
  type Asking,
  type AskingOptions,
  type RequestContext,
  type RequestScope,
  type RoundTarget,
  runOnRequest,
} from "../run/request";
import { log } from "../util/log";
import { isObject } from "../wire/envelope";
import { ErrorCode, invalidParams, RpcError } from "../wire/errors";
import type { JsonObject } from "../wire/types";
import type { ReplayGuardBindings } from "./replay-guard";

/** The one message every rejected `requestState` gets; the reason is logged, never sent. */
export const INVALID_STATE_MESSAGE = "Invalid requestState";
const PURPOSE = "mcp.requestState";

/** The signed body of a `requestState`. */
interface StateBody {
  /** Answers received so far, by question key. */
  answers: JsonObject;
  /** The handler's own `ctx.state`. */
  state: JsonObject;
  /** The questions this round asked, by key, with their kind. */
  asked: Record<string, InputKind>;
  /** Present when the round is single use: the nonce the replay guard consumes. */
  nonce?: string;
  /**
   * Present when the call was admitted (charged to its tool's budget, `AskingOptions.admit`): the id the next round
   * claims, once, in the replay guard, to run without being charged again.
   */
  admitted?: string;
}

/** The previous round as the verified state tells it (empty on a first call, when `continued` is false). */
interface PreviousRound extends StateBody {
  continued: boolean;
}

/** The 2026-07-28 way of answering a request's questions: one round of a multi round-trip request per request. */
export function multiRoundTrip(scope: RequestScope): Asking {
  return { run: (target, params, handler, options) => runRound(scope, target, params, handler, options) };
}

function runRound<T>(
  scope: RequestScope,
  target: RoundTarget,
  params: JsonObject,
  handler: (ctx: RequestContext) => T | Promise<T>,
  options: AskingOptions<T> | undefined,
): Asked<T> | Promise<Asked<T>> {
  const bindOf = bindingOf(scope, target);
  // A first call carries no state and, without a budget, admits nothing: the handler runs at once, and a handler that
  // returns a value is answered without a promise (a plain call builds no round it does not use).
  if (params.requestState === undefined && !options?.admit)
    return playRound(scope, bindOf, FIRST_ROUND, readResponses(params), handler, options);
  return verifiedRound(scope, bindOf, params, handler, options);
}

/**
 * What a round's state is bound to. The binding holds the arguments as canonical JSON (the state's one MAC covers
 * them); only requests that carry or mint state pay for it.
 */
function bindingOf(scope: RequestScope, target: RoundTarget): () => Record<string, string> {
  let bind: Record<string, string> | undefined;
  return () =>
    (bind ??= {
      method: target.method,
      name: target.name,
      args: canonicalJson(target.args ?? {}),
      principal: scope.principal.id,
    });
}

/** A round that carries state (verified first) or admits its call (a tool's budget): both wait before the handler runs. */
async function verifiedRound<T>(
  scope: RequestScope,
  bindOf: () => Record<string, string>,
  params: JsonObject,
  handler: (ctx: RequestContext) => T | Promise<T>,
  options: AskingOptions<T> | undefined,
): Promise<Asked<T>> {
  const previous = params.requestState === undefined ? FIRST_ROUND : await verifiedState(scope, params, bindOf);
  const fresh = readResponses(params);
  // Only now, with the state verified: a claim in state that is forged, altered, expired or bound to another call
  // was refused above (-32602), before anything was charged or ran.
  if (options?.admit && !(await claimsAdmission(scope, previous))) {
    const refusal = await options.admit();
    if (refusal !== undefined) return { kind: "done", value: refusal, retried: previous.continued };
  }
  return playRound(scope, bindOf, previous, fresh, handler, options);
}

/** Runs the handler once, from the top, with the answers so far; says how the round ended (see `roundEnd`). */
function playRound<T>(
  scope: RequestScope,
  bindOf: () => Record<string, string>,
  previous: PreviousRound,
  fresh: JsonObject,
  handler: (ctx: RequestContext) => T | Promise<T>,
  options: AskingOptions<T> | undefined,
): Asked<T> | Promise<Asked<T>> {
  const run = new Run();
  const round = new RoundAnswers(scope, previous, fresh, run);
  const state = Object.keys(previous.state).length ? structuredClone(previous.state) : {};
  const input = inputApi(round, scope.meta.clientCapabilities, state);
  const ended = runOnRequest(run, scope, input, handler, options);
  const answered = (end: RunEnd<T>) => roundEnd(scope, end, bindOf, previous, round, input.state, options);
  return ended instanceof Promise ? ended.then(answered) : answered(ended);
}

/**
 * Where the handler's `ctx.ask` finds its answers in this round (the verified state, or this request's answers), and
 * what the round keeps while its handler runs: every answer so far, and whether the round is single use. One object
 * per round, its methods the class's, its answers copied on first use: most calls never ask.
 */
class RoundAnswers implements AnswerSource {
  /**
   * Whether the round is single use. Why a round continued from single-use state stays single use: its answers
   * authorize a one-time action, and must not become replayable by travelling on in a later round's state.
   */
  singleUse: boolean;
  #answers: JsonObject | undefined;
  #consumed = false;

  constructor(
    private readonly scope: RequestScope,
    private readonly previous: PreviousRound,
    private readonly fresh: JsonObject,
    private readonly run: Run,
  ) {
    this.singleUse = previous.nonce !== undefined;
  }

  /** Every answer so far: those carried in verified state, then those this round accepted. */
  get answers(): JsonObject {
    this.#answers ??= { ...this.previous.answers };
    return this.#answers;
  }

  /** Fail before asking: a single-use round that nothing can consume would be replayable. */
  prepare(once: boolean): void {
    if (once) replayGuard(this.scope);
  }

  /**
   * Answers carried in verified state are final. A new answer counts when the previous round asked that
   * question, or when there was no previous round (a client may answer up front). Why the exception: single-use
   * questions authorize one-time actions, so their answers count only together with the signed state that asked.
   */
  answer(key: string, request: InputRequest, once: boolean): JsonObject | undefined {
    const { answers, previous, fresh } = this;
    if (Object.hasOwn(answers, key)) return answers[key] as JsonObject;
    const mustHaveBeenAsked = once || previous.continued;
    if (!Object.hasOwn(fresh, key) || (mustHaveBeenAsked && !Object.hasOwn(previous.asked, key))) return undefined;
    answers[key] = acceptAnswer(key, askedQuestion(request), fresh[key]);
    return answers[key] as JsonObject;
  }

  /** What this round cannot answer ends it: the client answers and retries. */
  async obtain(missing: Record<string, InputRequest>, once: boolean): Promise<never> {
    this.singleUse ||= once;
    return this.run.end({ kind: "asks", questions: missing });
  }

  /**
   * Why the single-use state is used up here, and not when it is verified: only now have its answers passed every
   * check, so a retry with a malformed answer (-32602) leaves the state good for the corrected retry.
   */
  async handedOver(): Promise<void> {
    const { nonce } = this.previous;
    if (nonce === undefined || this.#consumed) return;
    this.#consumed = true;
    const consumedNow = await nonceGuard(this.scope, nonce).consume(nonce, Date.now() + this.scope.config.limits.state.ttlMs);
    if (!consumedNow) throw rejectState(this.scope, "replay");
  }
}

/** What the round answers for how its run ended: the value, `input_required` with fresh state, or a task's takeover. */
function roundEnd<T>(
  scope: RequestScope,
  ended: RunEnd<T>,
  bindOf: () => Record<string, string>,
  previous: PreviousRound,
  round: RoundAnswers,
  state: JsonObject,
  options: AskingOptions<T> | undefined,
): Asked<T> | Promise<Asked<T>> {
  switch (ended.kind) {
    case "done":
      return { kind: "done", value: ended.value, retried: previous.continued };
    case "asks":
      return inputRequired(scope, bindOf(), { answers: round.answers, carried: previous.answers }, state, ended.questions, {
        singleUse: round.singleUse,
        admitted: options?.admit !== undefined,
      }).then((result) => ({ kind: "input_required", result }));
    case "hands-over":
      return { kind: "hands-over", answers: round.answers, state };
    case "cancelled":
      return { kind: "cancelled" };
    case "yields":
      throw new Error("A request's run cannot yield: only a task's checkpoints do");
  }
}

/** The previous round of a first call: none (shared by every first call, and never changed: frozen). */
const FIRST_ROUND: PreviousRound = Object.freeze({
  answers: Object.freeze({}),
  state: Object.freeze({}),
  asked: Object.freeze({}),
  continued: false,
});

async function verifiedState(scope: RequestScope, params: JsonObject, bindOf: () => Record<string, string>): Promise<PreviousRound> {
  const token = params.requestState;
  if (typeof token !== "string") throw invalidParams(INVALID_STATE_MESSAGE);
  const ring = await keyRing(scope.config);
  const opened = await open(ring, token, { purpose: PURPOSE, bind: bindOf(), maxLength: scope.config.limits.state.maxBytes });
  if (!opened.ok) throw rejectState(scope, opened.reason);
  const body = opened.body as StateBody;
  if (!isObject(body) || !isObject(body.answers) || !isObject(body.state) || !isObject(body.asked)) throw rejectState(scope, "malformed");
  if (body.nonce !== undefined && typeof body.nonce !== "string") throw rejectState(scope, "malformed");
  if (body.admitted !== undefined && typeof body.admitted !== "string") throw rejectState(scope, "malformed");
  // Why a look now (the state is used up only once its answers pass, in `handedOver`): a replay of state that was
  // used already is refused at once, whatever the handler would do first.
  if (body.nonce !== undefined && (await nonceGuard(scope, body.nonce).used(body.nonce))) throw rejectState(scope, "replay");
  return { ...body, continued: true };
}

/**
 * The replay guard, or a clear error when the Worker has no REPLAY_GUARD binding: without it single-use state
 * cannot be enforced, so single-use questions are refused rather than silently made replayable.
 */
function replayGuard(scope: RequestScope): NonNullable<ReplayGuardBindings["REPLAY_GUARD"]> {
  const guard = (scope.env as ReplayGuardBindings).REPLAY_GUARD;
  if (guard) return guard;
  log(scope, "error", "single-use input needs the REPLAY_GUARD binding", {});
  throw new RpcError(ErrorCode.InternalError, "Single-use input is unavailable: this server has no REPLAY_GUARD binding", undefined, 500);
}

/**
 * Whether this round continues a call that was admitted, and is the first round to claim so: the verified state
 * names the admission, and its id was never claimed before. Why once: state that is not single use may be sent
 * again and again within its lifetime, and each retry runs the tool; were the state's word enough, one charged call
 * would buy any number of uncharged runs. So a retry of the same state a second time (a network retry too) is
 * charged as a new call. Without REPLAY_GUARD no claim can be made once: every round is charged.
 */
async function claimsAdmission(scope: RequestScope, previous: PreviousRound): Promise<boolean> {
  const id = previous.admitted;
  if (id === undefined || !(scope.env as ReplayGuardBindings).REPLAY_GUARD) return false;
  // Remembered as long as the state naming it can be verified: its lifetime from now is at least as long.
  return nonceGuard(scope, id).consume(id, Date.now() + scope.config.limits.state.ttlMs);
}

/** The replay guard shard that holds `nonce`. */
const nonceGuard = (scope: RequestScope, nonce: string) => replayGuard(scope).getByName(nonce.slice(0, 2));

function rejectState(scope: RequestScope, reason: string): RpcError {
  log(scope, "warn", "requestState rejected", { reason });
  return invalidParams(INVALID_STATE_MESSAGE);
}

/** The answers of a request that brings none (most): one frozen object, only ever read. */
const NO_RESPONSES: JsonObject = Object.freeze({});

function readResponses(params: JsonObject): JsonObject {
  const responses = params.inputResponses;
  if (responses === undefined) return NO_RESPONSES;
  if (!isObject(responses)) throw invalidParams("Invalid params: inputResponses must be an object");
  return responses;
}

async function inputRequired(
  scope: RequestScope,
  bind: Record<string, string>,
  /** Every answer so far, and those of them that came in verified state (the rest came with this request). */
  { answers, carried }: { answers: JsonObject; carried: JsonObject },
  handlerState: JsonObject,
  pending: Record<string, InputRequest>,
  /** `admitted`: the call was admitted (`AskingOptions.admit`), by this round or by the claim it continued. */
  { singleUse, admitted }: { singleUse: boolean; admitted: boolean },
): Promise<JsonObject> {
  const body: StateBody = {
    answers,
    state: handlerState,
    asked: Object.fromEntries(Object.entries(pending).map(([key, request]) => [key, request.kind])),
  };
  if (singleUse) body.nonce = crypto.randomUUID();
  // A new id each round: each state buys its own next round once, never the next rounds of another.
  if (admitted) body.admitted = crypto.randomUUID();
  const ring = await keyRing(scope.config);
  const sealBody = (body: StateBody) => seal(ring, { purpose: PURPOSE, bind, ttlMs: scope.config.limits.state.ttlMs, body });
  const maxLength = scope.config.limits.state.maxBytes;
  const requestState = await sealBody(body);
  if (requestState.length > maxLength) {
    // Whose fault: the answers this request brought (a client error), or what the handler keeps (a server bug)?
    // Sealing once more without the new answers tells; this costs an HMAC, and only on this failure path.
    if ((await sealBody({ ...body, answers: carried })).length <= maxLength) {
      throw invalidParams(
        `Invalid inputResponses: the answers are too large to carry to the next round (requestState would be ${requestState.length} bytes, over limits.state.maxBytes, ${maxLength}); send shorter answers`,
      );
    }
    throw new Error(`requestState is ${requestState.length} bytes, over limits.state.maxBytes; keep ctx.state and answers small`);
  }
  const inputRequests = Object.fromEntries(Object.entries(pending).map(([key, request]) => [key, toWire(request)]));
  return { resultType: "input_required", inputRequests, requestState };
}
