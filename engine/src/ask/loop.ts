/**
 * @module ask/loop
 * The one ask loop behind `ctx.ask()`, whichever path runs the handler. A handler asks for questions by key and
 * gets typed answers back; where the answers come from is the path's `AnswerSource`:
 *
 *   - a 2026-07-28 multi round-trip request (`modern/rounds.ts`): answers in the verified `requestState` or in this
 *     retry's `inputResponses`; missing ones end the round with `input_required`;
 *   - a task run (`tasks/answers.ts`): answers the task received with `tasks/update`; missing ones end the run, and
 *     the task waits in `input_required`;
 *   - a 2025 session (`legacy/live-answers.ts`): missing answers are asked as server-to-client requests, and the
 *     handler waits for them in place.
 *
 * The loop is the same for all three: each key once per call, never asking what the client did not declare
 * (-32021), every answer checked by `answers.ts` and parsed by the form's own schema before the handler sees it,
 * and only then told to the source (which consumes single-use state: validate, then consume).
 */
import type { ClientCapabilities, JsonObject } from "../wire/types";
import { typedAnswer } from "./answers";
import {
  type Answers,
  type AskOptions,
  clientSupports,
  type InputApi,
  type InputKind,
  type InputRequest,
  requireSupport,
  type SamplingNeeds,
} from "./questions";

export interface AnswerSource {
  /** Before asking: a single-use question needs the replay guard, and fails here, before it is asked, without one. */
  prepare?(singleUse: boolean): void;
  /** The kept answer to `key` this run may use (checked by `acceptAnswer` already), or undefined. */
  answer(key: string, request: InputRequest, singleUse: boolean): JsonObject | undefined;
  /**
   * Gets the answers to the questions still missing: returns them, kept (2025: asked and awaited), or ends the run
   * with them as questions (`EndRun`; multi round-trip requests and tasks).
   */
  obtain(missing: Record<string, InputRequest>, singleUse: boolean): Promise<Record<string, JsonObject>>;
  /** Every answer of one `ask` passed its checks and is about to reach the handler. */
  handedOver?(): Promise<void>;
}

/** The `ask`, `state` and `supports` of a handler's context, over one source of answers. */
export function inputApi(source: AnswerSource, capabilities: ClientCapabilities, state: JsonObject): InputApi {
  return new AskLoop(source, capabilities, state);
}

/** One object per run, its methods the class's: most calls never ask, and pay for no closure of the loop's. */
class AskLoop implements InputApi {
  /** The keys asked so far in this call; made on the first ask. */
  #asked: Set<string> | undefined;

  constructor(
    private readonly source: AnswerSource,
    private readonly capabilities: ClientCapabilities,
    public state: JsonObject,
  ) {}

  supports(kind: InputKind, options?: SamplingNeeds): boolean {
    return clientSupports(this.capabilities, kind, options);
  }

  async ask<R extends Record<string, InputRequest>>(requests: R, options?: AskOptions): Promise<Answers<R>> {
    const { source, capabilities } = this;
    const once = options?.singleUse === true;
    source.prepare?.(once);
    const kept: Record<string, JsonObject> = {};
    const missing: Record<string, InputRequest> = {};
    this.#asked ??= new Set();
    for (const [key, request] of Object.entries(requests)) {
      if (this.#asked.has(key)) throw new Error(`Input key "${key}" was asked twice in one call`);
      this.#asked.add(key);
      const answer = source.answer(key, request, once);
      if (answer !== undefined) kept[key] = answer;
      else {
        // The server MUST NOT ask what the client did not declare: -32021, before anything is asked.
        requireSupport(capabilities, request);
        missing[key] = request;
      }
    }
    if (Object.keys(missing).length > 0) Object.assign(kept, await source.obtain(missing, once));
    const answers = Object.fromEntries(Object.entries(requests).map(([key, request]) => [key, typedAnswer(key, request, kept[key]!)]));
    await source.handedOver?.();
    return answers as Answers<R>;
  }
}
