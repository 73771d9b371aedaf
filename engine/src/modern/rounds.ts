/**
 * @module rounds
 * Runs a handler that may ask for input (see `input.ts`) for one round of a multi round-trip request: verifies
 * the incoming `requestState`, merges the new `inputResponses`, replays the handler, and either returns its value
 * or ends the round with an `input_required` result carrying freshly signed state.
 */

import { acceptAnswer, askedQuestion } from "../ask/answers";
import { type AnswerSource, inputApi } from "../ask/loop";
import { type InputApi, type InputKind, type InputRequest, type RoundOutcome, type RoundTarget, toWire } from "../ask/questions";
import { keyRing } from "../config/key-ring";
import { canonicalJson, open, seal } from "../config/signing";
import { EndRun } from "../run/end";
import type { RequestScope } from "../run/request";
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
}

/** The previous round as the verified state tells it (empty on a first call, when `continued` is false). */
interface PreviousRound extends StateBody {
  continued: boolean;
}

/** Thrown by `ask` to end the round with its questions (see handler/run.ts). */
class InputRequired extends EndRun {}

export async function runRound<T>(
  scope: RequestScope,
  target: RoundTarget,
  params: JsonObject,
  handler: (input: InputApi) => Promise<T>,
): Promise<RoundOutcome<T>> {
  // The binding holds the arguments as canonical JSON (the state's one MAC covers them); only requests that carry
  // or mint state pay for it.
  let bind: Record<string, string> | undefined;
  const bindOf = () =>
    (bind ??= {
      method: target.method,
      name: target.name,
      args: canonicalJson(target.args ?? {}),
      principal: scope.principal.id,
    });
  const previous = await verifiedState(scope, params, bindOf);
  const fresh = readResponses(params);
  const answers: JsonObject = { ...previous.answers };
  let pending: Record<string, InputRequest> | undefined;
  // Why a round continued from single-use state stays single use: its answers authorize a one-time action, and
  // must not become replayable by travelling on in a later round's state.
  let singleUse = previous.nonce !== undefined;
  let consumed = false;

  const source: AnswerSource = {
    // Fail before asking: a single-use round that nothing can consume would be replayable.
    prepare: (once) => {
      if (once) replayGuard(scope);
    },
    /**
     * Answers carried in verified state are final. A new answer counts when the previous round asked that question,
     * or when there was no previous round (a client may answer up front). Why the exception: single-use questions
     * authorize one-time actions, so their answers count only together with the signed state that asked them.
     */
    answer(key, request, once) {
      if (Object.hasOwn(answers, key)) return answers[key] as JsonObject;
      const mustHaveBeenAsked = once || previous.continued;
      if (!Object.hasOwn(fresh, key) || (mustHaveBeenAsked && !Object.hasOwn(previous.asked, key))) return undefined;
      answers[key] = acceptAnswer(key, askedQuestion(request), fresh[key]);
      return answers[key] as JsonObject;
    },
    async obtain(missing, once) {
      pending = missing;
      singleUse ||= once;
      throw new InputRequired();
    },
    // Why the single-use state is used up here, and not when it is verified: only now have its answers passed
    // every check, so a retry with a malformed answer (-32602) leaves the state good for the corrected retry.
    async handedOver() {
      if (previous.nonce === undefined || consumed) return;
      consumed = true;
      const consumedNow = await nonceGuard(scope, previous.nonce).consume(previous.nonce, Date.now() + scope.config.limits.state.ttlMs);
      if (!consumedNow) throw rejectState(scope, "replay");
    },
  };
  const input = inputApi(source, scope.meta.clientCapabilities, Object.keys(previous.state).length ? structuredClone(previous.state) : {});

  let value: T;
  try {
    value = await handler(input);
  } catch (error) {
    if (!(error instanceof InputRequired) && !pending) throw error;
  }
  // A handler that swallowed the InputRequired signal still ends the round with the questions it asked.
  if (pending)
    return {
      kind: "input_required",
      result: await inputRequired(scope, bindOf(), { answers, carried: previous.answers }, input.state, pending, singleUse),
    };
  return { kind: "complete", value: value!, retried: typeof params.requestState === "string" };
}

async function verifiedState(scope: RequestScope, params: JsonObject, bindOf: () => Record<string, string>): Promise<PreviousRound> {
  const token = params.requestState;
  if (token === undefined) return { answers: {}, state: {}, asked: {}, continued: false };
  if (typeof token !== "string") throw invalidParams(INVALID_STATE_MESSAGE);
  const ring = await keyRing(scope.config);
  const opened = await open(ring, token, { purpose: PURPOSE, bind: bindOf(), maxLength: scope.config.limits.state.maxBytes });
  if (!opened.ok) throw rejectState(scope, opened.reason);
  const body = opened.body as StateBody;
  if (!isObject(body) || !isObject(body.answers) || !isObject(body.state) || !isObject(body.asked)) throw rejectState(scope, "malformed");
  if (body.nonce !== undefined && typeof body.nonce !== "string") throw rejectState(scope, "malformed");
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

/** The replay guard shard that holds `nonce`. */
const nonceGuard = (scope: RequestScope, nonce: string) => replayGuard(scope).getByName(nonce.slice(0, 2));

function rejectState(scope: RequestScope, reason: string): RpcError {
  log(scope, "warn", "requestState rejected", { reason });
  return invalidParams(INVALID_STATE_MESSAGE);
}

function readResponses(params: JsonObject): JsonObject {
  const responses = params.inputResponses;
  if (responses === undefined) return {};
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
  singleUse: boolean,
): Promise<JsonObject> {
  const body: StateBody = {
    answers,
    state: handlerState,
    asked: Object.fromEntries(Object.entries(pending).map(([key, request]) => [key, request.kind])),
  };
  if (singleUse) body.nonce = crypto.randomUUID();
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
