/**
 * @module testing/rounds
 * Multi round-trip requests (2026-07-28) from the client's side: while the server answers `input_required`, answer
 * its questions and send the same request again with `inputResponses` and the `requestState` it gave (never one of
 * our own), a bounded number of times.
 */
import { answerQuestion } from "./answers";
import type { Call, ClientSetup } from "./channel";
import { McpClientError } from "./errors";
import { sendModern } from "./modern";
import { isObject, type Json } from "./wire";

/** Sends `method` and retries it with answers until the result is no longer `input_required`. */
export async function withRounds(setup: ClientSetup, method: string, params: Json, call: Call): Promise<Json> {
  const maxRounds = call.options.maxRounds ?? setup.maxRounds;
  let retry = params;
  for (let round = 1; ; round++) {
    const result = await sendModern(setup, method, retry, call);
    if (result.resultType !== "input_required") return result;
    const asked = isObject(result.inputRequests) ? result.inputRequests : undefined;
    const state = result.requestState;
    if (!asked && typeof state !== "string") {
      throw new McpClientError("protocol", `${call.label}: an input_required result with neither inputRequests nor requestState`);
    }
    if (round > maxRounds) {
      const keys = asked ? Object.keys(asked).join(", ") : "(no questions, only requestState)";
      throw new McpClientError(
        "rounds",
        `${call.label}: still input_required after ${maxRounds} rounds of answers (last asked: ${keys}); pass a higher maxRounds if the tool really asks that often`,
      );
    }
    const inputResponses = asked ? await answerAll(asked, call, round) : undefined;
    retry = {
      ...params,
      ...(inputResponses && { inputResponses }),
      // Only the state the server gave: a retry without one must not carry one.
      ...(typeof state === "string" && { requestState: state }),
    };
  }
}

/** The answers to one round of questions (`inputRequests`, by key), in the order the server listed them. */
export async function answerAll(requests: Json, call: Call, round: number, task?: Json): Promise<Json> {
  const answers: Json = {};
  for (const [key, request] of Object.entries(requests)) {
    if (!isObject(request) || typeof request.method !== "string") {
      throw new McpClientError("protocol", `${call.label}: input request ${JSON.stringify(key)} is not a { method, params } object`);
    }
    const params = isObject(request.params) ? request.params : {};
    answers[key] = await answerQuestion(
      { key, method: request.method, params, asker: call.label, round, ...(task && { task }) },
      call.layers,
    );
  }
  return answers;
}
