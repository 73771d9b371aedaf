/**
 * @module testing/answers
 * How the client answers the questions a tool, prompt or resource asks (elicitation, sampling, roots), the same
 * way in every path: from a scripted answer (by the question's key, or the next one of a queue) or from a handler
 * for its kind. A question nothing answers is a test failure that names it.
 */
import { McpClientError } from "./errors";
import { isObject, type Json } from "./wire";

/**
 * The answer to `elicitation/create`: what the user did with the form (or the URL), and the form's values.
 *
 * @example
 * const confirmed: ElicitAnswer = { action: "accept", content: { delete: true } }; // the same as accept({ delete: true })
 */
export interface ElicitAnswer {
  action: "accept" | "decline" | "cancel";
  /** The form's values; only with `accept` of a form. */
  content?: Record<string, unknown>;
}

/**
 * The answer to `sampling/createMessage`: the message the client's model wrote.
 *
 * @example
 * const answer: SampleAnswer = { role: "assistant", content: { type: "text", text: "Done." }, model: "test-model" };
 */
export interface SampleAnswer {
  role: "assistant" | "user";
  content: Json;
  model: string;
  stopReason?: string;
}

/**
 * The answer to `roots/list`: the client's workspace roots.
 *
 * @example
 * const answer: RootsAnswer = { roots: [{ uri: "file:///home/me/garden", name: "garden" }] }; // roots({ uri: ..., name: ... })
 */
export interface RootsAnswer {
  roots: { uri: string; name?: string }[];
}

/**
 * Any answer the client gives: to an elicitation, a sampling request or a roots request.
 *
 * @example
 * const script: Answer[] = [accept({ delete: true }), sampled("A summary."), roots("file:///work")];
 */
export type Answer = ElicitAnswer | SampleAnswer | RootsAnswer;

/**
 * A question as the client received it, with where it came from: what a handler or a scripted function is given.
 *
 * @example
 * const client = await connect(app, {
 *   onElicit: (params, question) => (question.key === "confirm" && question.round === 1 ? accept({ delete: true }) : decline()),
 * });
 */
export interface Question {
  /** The key the server gave it (2026-07-28 rounds and tasks). A 2025 server-to-client request has none. */
  key?: string;
  /** `elicitation/create`, `sampling/createMessage` or `roots/list`. */
  method: string;
  /** The question's params as sent: `message` and `requestedSchema` of a form, `messages` and `maxTokens` of sampling... */
  params: Json;
  /** The request that asked, e.g. `tools/call delete_note`. */
  asker: string;
  /** Which round of questions this is: 1 for the first `input_required` result (or task question, or 2025 request). */
  round: number;
  /** The task that asked, as `tasks/get` returned it while it waited (Tasks extension only). */
  task?: Json;
}

/**
 * A handler for one kind of question: gets its params and the question, returns (or resolves to) the answer.
 *
 * @example
 * const onElicit: Handler<ElicitAnswer> = (params) => (String(params.message).startsWith("Delete") ? accept({ delete: true }) : decline());
 */
export type Handler<A extends Answer> = (params: Json, question: Question) => A | Promise<A>;

/**
 * A scripted answer: the answer itself, or a function of the question that returns it.
 *
 * @example
 * const answers: Script = { confirm: accept({ delete: true }), summary: (question) => sampled(`Asked in round ${question.round}`) };
 */
export type ScriptedAnswer = Answer | ((question: Question) => Answer | Promise<Answer>);

/**
 * Scripted answers: a map by question key (used every time that key is asked; 2026-07-28 and tasks only, since
 * 2025 requests carry no key), or a queue (an array), answered in the order questions arrive and used up as it goes.
 *
 * @example
 * const byKey = await connect(app, { answers: { details: accept({ audience: "team", length: "short" }), save: accept({ save: true }) } });
 * const inOrder = await connect(app, { era: "2025", answers: [accept({ delete: true }), decline()] });
 */
export type Script = Record<string, ScriptedAnswer> | ScriptedAnswer[];

/**
 * What answers questions: scripts first, then the handler of the question's kind. The client's answerers
 * (`connect` options) come after a call's own (its `CallOptions`).
 *
 * @example
 * const client = await connect(app, { onSample: () => sampled("A summary."), answers: { confirm: accept({ delete: true }) } });
 * await client.callTool("delete_note", args, { answers: { confirm: decline() } }); // this call declines
 */
export interface Answerers {
  answers?: Script;
  onElicit?: Handler<ElicitAnswer>;
  onSample?: Handler<SampleAnswer>;
  onRoots?: Handler<RootsAnswer>;
}

const HANDLER_OF: Record<string, "onElicit" | "onSample" | "onRoots"> = {
  "elicitation/create": "onElicit",
  "sampling/createMessage": "onSample",
  "roots/list": "onRoots",
};

/** One layer of answerers (a call's, or the client's), with its own copy of any queue so that using it up is local. */
export class AnswerLayer {
  private readonly byKey?: Record<string, ScriptedAnswer>;
  private readonly queue?: ScriptedAnswer[];

  constructor(private readonly answerers: Answerers = {}) {
    const script = answerers.answers;
    if (Array.isArray(script)) this.queue = [...script];
    else if (script) this.byKey = script;
  }

  /** Whether this layer has a map keyed by question (which a 2025 request can never match). */
  get keyed(): boolean {
    return this.byKey !== undefined;
  }

  /** This layer's answer to `question`, or undefined when it has none. */
  async answer(question: Question): Promise<Answer | undefined> {
    const scripted =
      question.key !== undefined && this.byKey && Object.hasOwn(this.byKey, question.key)
        ? this.byKey[question.key]
        : this.queue?.length
          ? this.queue.shift()
          : undefined;
    if (scripted !== undefined) return typeof scripted === "function" ? scripted(question) : scripted;
    const kind = HANDLER_OF[question.method];
    const handler = kind && (this.answerers[kind] as Handler<Answer> | undefined);
    return handler ? handler(question.params, question) : undefined;
  }
}

/** The answer to `question` from the first layer that has one; a question none answers fails, naming it. */
export async function answerQuestion(question: Question, layers: AnswerLayer[]): Promise<Answer> {
  for (const layer of layers) {
    const answer = await layer.answer(question);
    if (answer !== undefined) return answer;
  }
  throw unanswered(
    question,
    layers.some((layer) => layer.keyed),
  );
}

function unanswered(question: Question, keyed: boolean): McpClientError {
  const handler = HANDLER_OF[question.method];
  const about = whatItAsks(question.params);
  const asked = `${question.method} from ${question.asker}${about ? `: ${JSON.stringify(about)}` : ""}`;
  const how = !handler
    ? "the test client knows no such question"
    : question.key !== undefined
      ? `give the client or the call answers: { ${JSON.stringify(question.key)}: ... } or an ${handler} handler`
      : `2025 requests carry no question key, so give an ${handler} handler or an answers queue (an array)${keyed ? "; answers by key cannot match" : ""}`;
  const named = question.key === undefined ? `the ${asked}` : `question ${JSON.stringify(question.key)} (${asked})`;
  return new McpClientError("unanswered", `No answer for ${named}: ${how}`, {
    ...(question.key !== undefined && { key: question.key }),
    method: question.method,
    params: question.params,
  });
}

/** A short text that says what a question asks: a form's message, or the first text of a sampling request. */
function whatItAsks(params: Json): string | undefined {
  if (typeof params.message === "string") return params.message.slice(0, 120);
  const first = Array.isArray(params.messages) ? params.messages[0] : undefined;
  const content = isObject(first) && isObject(first.content) ? first.content : undefined;
  return typeof content?.text === "string" ? content.text.slice(0, 120) : undefined;
}

/**
 * An accepted elicitation: the form's values, or nothing for a URL elicitation.
 *
 * @param content the form's values, as its `requestedSchema` names them
 * @example
 * const client = await connect(app, { answers: { confirm: accept({ delete: true }) } });
 */
export function accept(content?: Record<string, unknown>): ElicitAnswer {
  return content === undefined ? { action: "accept" } : { action: "accept", content };
}

/**
 * A declined elicitation: the user said no.
 *
 * @example
 * const result = await client.callTool("delete_note", args, { answers: { confirm: decline() } });
 */
export function decline(): ElicitAnswer {
  return { action: "decline" };
}

/**
 * A cancelled elicitation: the user dismissed the form without answering.
 *
 * @example
 * const result = await client.callTool("draft_note", args, { answers: { details: cancel() } });
 */
export function cancel(): ElicitAnswer {
  return { action: "cancel" };
}

/**
 * A sampling answer: the client's model "wrote" `text`.
 *
 * @param text what the model answers
 * @param model the model's name, as the server sees it (default `test-model`)
 * @example
 * const client = await connect(app, { onSample: () => sampled("Two notes about the garden.") });
 */
export function sampled(text: string, model = "test-model"): SampleAnswer {
  return { role: "assistant", content: { type: "text", text }, model, stopReason: "endTurn" };
}

/**
 * A `roots/list` answer: the client's workspace roots.
 *
 * @param entries each root, as a `file://` URI or `{ uri, name }`
 * @example
 * const client = await connect(app, { onRoots: () => roots({ uri: "file:///home/me/garden", name: "garden" }) });
 */
export function roots(...entries: (string | { uri: string; name?: string })[]): RootsAnswer {
  return { roots: entries.map((entry) => (typeof entry === "string" ? { uri: entry } : entry)) };
}
