/**
 * @module rounds
 * Runs a handler that may ask for input (see `input.ts`) for one round of a multi round-trip request: verifies
 * the incoming `requestState`, merges the new `inputResponses`, replays the handler, and either returns its value
 * or ends the round with an `input_required` result carrying freshly signed state.
 */
import type * as z from "zod/mini";
import type { RequestScope } from "../define/context";
import { describeIssues } from "../define/schema";
import { illFormedTextAt, illFormedTextMessage } from "../encoding";
import { log } from "../log";
import { isObject } from "../protocol/envelope";
import { ErrorCode, invalidParams, RpcError } from "../protocol/errors";
import type { JsonObject } from "../protocol/wire";
import {
  clientSupports,
  type FormRequest,
  type InputApi,
  type InputKind,
  type InputRequest,
  type RoundOutcome,
  type RoundTarget,
  requireSupport,
  responseSchemas,
  toWire,
} from "./ask";
import { keyRing } from "./keys";
import { canonicalJson, open, seal } from "./state-token";

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

/** Thrown by `ask` to end the round; the engine catches it, handlers should not. */
class InputRequired extends Error {}

export async function runRound<T>(
  scope: RequestScope,
  target: RoundTarget,
  params: JsonObject,
  handler: (input: InputApi) => Promise<T>,
): Promise<RoundOutcome<T>> {
  // The binding holds the arguments as canonical JSON (the state's MAC covers them through the binding tag); only
  // requests that carry or mint state pay for it.
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
  const asked = new Set<string>();
  let pending: Record<string, InputRequest> | undefined;
  let singleUse = false;

  /**
   * The answer to `key`, if the client gave one we may use. Answers carried in verified state are final. A new
   * answer counts when the previous round asked that question, or when there was no previous round (a client may
   * answer up front). Why the exception: single-use questions authorize one-time actions, so their answers count
   * only together with the signed state that asked them.
   */
  const answerFor = (key: string, request: InputRequest, once: boolean): unknown => {
    if (Object.hasOwn(answers, key)) return answers[key];
    const mustHaveBeenAsked = once || previous.continued;
    if (!Object.hasOwn(fresh, key) || (mustHaveBeenAsked && !Object.hasOwn(previous.asked, key))) return undefined;
    const parsed = responseSchemas()[request.kind].safeParse(fresh[key]);
    if (!parsed.success) throw invalidParams(`Invalid inputResponses: ${describeIssues(parsed.error, key)}`);
    answers[key] = storedAnswer(key, request, parsed.data as JsonObject);
    return answers[key];
  };

  const input: InputApi = {
    state: Object.keys(previous.state).length ? structuredClone(previous.state) : {},
    supports: (kind, options) => clientSupports(scope.meta.clientCapabilities, kind, options),
    async ask(requests, options) {
      const once = options?.singleUse === true;
      // Fail before asking: a single-use round that nothing can consume would be replayable.
      if (once) replayGuard(scope);
      const missing: Record<string, InputRequest> = {};
      for (const [key, request] of Object.entries(requests)) {
        if (asked.has(key)) throw new Error(`Input key "${key}" was asked twice in one call`);
        asked.add(key);
        if (answerFor(key, request, once) !== undefined) continue;
        requireSupport(scope.meta.clientCapabilities, request);
        missing[key] = request;
      }
      if (Object.keys(missing).length > 0) {
        pending = missing;
        singleUse ||= once;
        throw new InputRequired();
      }
      return Object.fromEntries(Object.entries(requests).map(([key, request]) => [key, typedAnswer(key, request, answers[key])])) as never;
    },
  };

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
  const opened = await open(ring, token, { purpose: PURPOSE, bind: bindOf(), maxLength: scope.config.state.maxLength });
  if (!opened.ok) throw rejectState(scope, opened.reason);
  const body = opened.body as StateBody;
  if (!isObject(body) || !isObject(body.answers) || !isObject(body.state) || !isObject(body.asked)) throw rejectState(scope, "malformed");
  // Why: state that authorizes a one-time action (a deletion) must not work twice, even inside its expiry.
  if (typeof body.nonce === "string") {
    const guard = replayGuard(scope).getByName(body.nonce.slice(0, 2));
    if (!(await guard.consume(body.nonce, Date.now() + scope.config.state.ttlMs))) throw rejectState(scope, "replay");
  }
  return { ...body, continued: true };
}

/**
 * The replay guard, or a clear error when the Worker has no REPLAY_GUARD binding: without it single-use state
 * cannot be enforced, so single-use questions are refused rather than silently made replayable.
 */
function replayGuard(scope: RequestScope): NonNullable<RequestScope["env"]["REPLAY_GUARD"]> {
  const guard = scope.env.REPLAY_GUARD;
  if (guard) return guard;
  log(scope, "error", "single-use input needs the REPLAY_GUARD binding", {});
  throw new RpcError(ErrorCode.InternalError, "Single-use input is unavailable: this server has no REPLAY_GUARD binding", undefined, 500);
}

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

/**
 * The part of a fresh answer that the next round's state carries: only what the question defines. A form keeps its
 * action and, when accepted, the values of its own fields, once its schema accepts them (so a bad answer is refused
 * in the round it arrives); a URL answer keeps its action; sampling and roots answers keep the spec's fields.
 * Why: the state travels back and forth, and fields nobody reads would let a client grow it past STATE_MAX_BYTES.
 * Form values are kept as sent, not as parsed: `typedAnswer` parses them again in the round that returns them.
 */
function storedAnswer(key: string, request: InputRequest, answer: JsonObject): JsonObject {
  switch (request.kind) {
    case "form": {
      if (answer.action !== "accept") return { action: answer.action };
      const content = (answer.content ?? {}) as JsonObject;
      formContent(key, request, content);
      return { action: "accept", content: pick(content, Object.keys(request.schema.shape)) };
    }
    case "url":
      return { action: answer.action };
    case "sampling":
      return pick(answer, ["role", "content", "model", "stopReason"]);
    case "roots":
      return { roots: (answer.roots as JsonObject[]).map((root) => pick(root, ["uri", "name"])) };
  }
}

function pick(object: JsonObject, names: readonly string[]): JsonObject {
  return Object.fromEntries(names.filter((name) => object[name] !== undefined).map((name) => [name, object[name]]));
}

/** Shapes a stored answer for the handler; accepted form content is checked against the form's own schema. */
export function typedAnswer(key: string, request: InputRequest, answer: unknown): unknown {
  // Why: an answer is handed to the handler, which may store it, and may travel in signed state; text that is not
  // well-formed would not survive either as sent.
  const illFormed = illFormedTextAt(answer, key);
  if (illFormed !== undefined) throw invalidParams(`Invalid inputResponses: ${illFormedTextMessage(illFormed)}`);
  if (request.kind !== "form") return answer;
  const { action, content } = answer as { action: string; content?: unknown };
  if (action !== "accept") return { action };
  return { action, content: formContent(key, request, content ?? {}) };
}

/** Accepted form content parsed by the form's own schema; content it refuses is -32602. */
function formContent(key: string, request: FormRequest, content: unknown): unknown {
  const parsed = request.schema.safeParse(content);
  if (!parsed.success) throw invalidParams(`Invalid inputResponses: ${describeIssues(parsed.error as z.core.$ZodError, `${key}.content`)}`);
  return parsed.data;
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
  const sealBody = (body: StateBody) => seal(ring, { purpose: PURPOSE, bind, ttlMs: scope.config.state.ttlMs, body });
  const { maxLength } = scope.config.state;
  const requestState = await sealBody(body);
  if (requestState.length > maxLength) {
    // Whose fault: the answers this request brought (a client error), or what the handler keeps (a server bug)?
    // Sealing once more without the new answers tells; this costs an HMAC, and only on this failure path.
    if ((await sealBody({ ...body, answers: carried })).length <= maxLength) {
      throw invalidParams(
        `Invalid inputResponses: the answers are too large to carry to the next round (requestState would be ${requestState.length} bytes, over STATE_MAX_BYTES ${maxLength}); send shorter answers`,
      );
    }
    throw new Error(`requestState is ${requestState.length} bytes, over STATE_MAX_BYTES; keep ctx.state and answers small`);
  }
  const inputRequests = Object.fromEntries(Object.entries(pending).map(([key, request]) => [key, toWire(request)]));
  return { resultType: "input_required", inputRequests, requestState };
}
