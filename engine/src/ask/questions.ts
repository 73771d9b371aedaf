/**
 * @module ask/questions
 * Multi round-trip requests (MRTR): how a handler asks the client for input and gets the answers back.
 *
 * A handler calls `ctx.ask({ key: request, ... })` and awaits the answers as if they were local. When an answer
 * is missing, the engine ends this round with `resultType: "input_required"`, the questions, and a signed
 * `requestState` that carries the answers so far and the handler's own `ctx.state`. The client retries the same
 * request (new id) with the answers; the engine verifies the state and runs the handler again from the top, and
 * this time `ask` returns. So: keep side effects after the last `ask`, and keep values that must not change
 * between rounds in `ctx.state`.
 */
import type * as z from "zod/mini";
import { isObject } from "../wire/envelope";
import { ErrorCode, RpcError } from "../wire/errors";
import type { ClientCapabilities, JsonObject } from "../wire/types";
import { type ObjectSchema, toElicitationSchema } from "./schema";

/**
 * The four kinds of question a handler can ask, as `ctx.supports(kind)` takes them: `"form"` and `"url"`
 * (elicitation), `"sampling"` (the client's model) and `"roots"` (the client's workspace folders). A client
 * answers only the kinds it declared; asking another is -32021.
 *
 * @example
 * ```ts
 * export function missingKinds(ctx: ToolContext, needed: InputKind[]): InputKind[] {
 *   return needed.filter((kind) => !ctx.supports(kind));
 * }
 * ```
 */
export type InputKind = "form" | "url" | "sampling" | "roots";

/**
 * A form question, as `elicitForm` builds it: a message and a flat zod object whose fields the user fills in. `S`
 * is the schema, so the answer's `content` is typed by it.
 *
 * @example
 * ```ts
 * export function reviewForm<S extends ObjectSchema>(schema: S): FormRequest<S> {
 *   return elicitForm("Please review these values before I save them.", schema);
 * }
 * ```
 */
export interface FormRequest<S extends ObjectSchema = ObjectSchema> {
  kind: "form";
  /** What to ask, shown to the user above the form. */
  message: string;
  /** The form's fields: string, number, integer, boolean, enum and multi-select ones. */
  schema: S;
}

/**
 * A URL question, as `elicitUrl` builds it: the client offers to open `url`, outside the conversation.
 *
 * @example
 * ```ts
 * export const signInPage: UrlRequest = elicitUrl("Sign in to the billing portal.", "https://billing.example/login");
 * ```
 */
export interface UrlRequest {
  kind: "url";
  /** Why the user should go there, shown with the link. */
  message: string;
  /** The page to open. */
  url: string;
}

/**
 * A sampling question, as `sample` builds it: a completion asked of the client's model.
 *
 * @example
 * ```ts
 * export const haikuParams: SamplingParams = {
 *   messages: [{ role: "user", content: { type: "text", text: "Write a haiku about rain." } }],
 *   maxTokens: 100,
 *   systemPrompt: "You write short poems.",
 *   temperature: 0.8,
 * };
 * export const haiku: SamplingRequest = sample(haikuParams);
 * ```
 */
export interface SamplingRequest {
  kind: "sampling";
  /** The messages and settings of the completion. */
  params: SamplingParams;
}

/**
 * A roots question, as `listRoots` builds it: the client's workspace folders.
 *
 * @example
 * ```ts
 * export const roots: RootsRequest = listRoots();
 * ```
 */
export interface RootsRequest {
  kind: "roots";
}

/**
 * Any question `ctx.ask` takes: a form, a URL, a sampling request or a roots request.
 *
 * @example
 * ```ts
 * export function feedbackQuestion(ctx: ToolContext): InputRequest {
 *   return ctx.supports("form")
 *     ? elicitForm("How did it go?", z.object({ stars: z.int().check(z.minimum(1), z.maximum(5)) }))
 *     : elicitUrl("Tell us how it went.", "https://example.com/feedback");
 * }
 * ```
 */
export type InputRequest = FormRequest | UrlRequest | SamplingRequest | RootsRequest;

/**
 * One block of a sampling message or answer: text, an image or audio (base64 `data`), or a block of another type
 * (tool use and tool results, with `sampling.tools`). Read the text of an answer with `samplingText`.
 *
 * @example
 * ```ts
 * export function textOf(content: SamplingContent | SamplingContent[]): string {
 *   return (Array.isArray(content) ? content : [content]).map((block) => (block.type === "text" ? String(block.text) : "")).join("");
 * }
 * ```
 */
export type SamplingContent =
  | { type: "text"; text: string }
  | { type: "image" | "audio"; data: string; mimeType: string }
  | ({ type: string } & JsonObject);

/**
 * What `sample` asks the client's model for (`sampling/createMessage`): the conversation and at most how many tokens
 * to answer with, and optionally a system prompt, temperature, stop sequences and model preferences.
 *
 * @example
 * ```ts
 * export const haikuParams: SamplingParams = {
 *   messages: [{ role: "user", content: { type: "text", text: "Write a haiku about rain." } }],
 *   maxTokens: 100,
 *   systemPrompt: "You write short poems.",
 *   temperature: 0.8,
 * };
 * export const haiku: SamplingRequest = sample(haikuParams);
 * ```
 */
export interface SamplingParams {
  /** The conversation so far; the model answers the last message. */
  messages: { role: "user" | "assistant"; content: SamplingContent | SamplingContent[] }[];
  /** The most tokens the answer may take. */
  maxTokens: number;
  /** A system prompt; the client may change or ignore it. */
  systemPrompt?: string;
  /** Sampling temperature. */
  temperature?: number;
  /** Sequences that end the answer. */
  stopSequences?: string[];
  /** Hints for the client's choice of model (`hints`, `costPriority`, `speedPriority`, `intelligencePriority`). */
  modelPreferences?: JsonObject;
  /** Context from the client's servers to include: other than `"none"` needs the client's `sampling.context`. */
  includeContext?: "none" | "thisServer" | "allServers";
  /** Provider-specific metadata, passed through. */
  metadata?: JsonObject;
  /** Asking with tools requires the client's `sampling.tools` capability. */
  tools?: JsonObject[];
  /** How the model may use `tools`. */
  toolChoice?: JsonObject;
}

/**
 * The answer to a form: `accept` with the `content` the user entered (parsed by the form's zod schema, defaults
 * applied), or `decline` (the user said no) or `cancel` (the user dismissed it), without content.
 *
 * @example
 * ```ts
 * export function acceptedName(answer: FormAnswer<{ name: string }>): string {
 *   return answer.action === "accept" ? answer.content.name : "stranger";
 * }
 * ```
 */
export type FormAnswer<T> = { action: "accept"; content: T } | { action: "decline" | "cancel" };

/**
 * The answer to a URL question: `accept` means only that the user agreed to open the page, not that they did what
 * it asks; check that yourself (for example on the next call).
 *
 * @example
 * ```ts
 * export function wentThere(answer: UrlAnswer): boolean {
 *   return answer.action === "accept"; // the user agreed to open the page; what happened there is not known
 * }
 * ```
 */
export type UrlAnswer = { action: "accept" | "decline" | "cancel" };

/**
 * The answer to a sampling question: the model's message, and which model wrote it.
 *
 * @example
 * ```ts
 * export function byline(answer: SamplingAnswer): string {
 *   return `${samplingText(answer)}\n(written by ${answer.model})`;
 * }
 * ```
 */
export interface SamplingAnswer {
  /** Normally `"assistant"`. */
  role: "user" | "assistant";
  /** The answer's blocks; `samplingText` reads their text. */
  content: SamplingContent | SamplingContent[];
  /** The model the client used. */
  model: string;
  /** Why the answer ended, such as `endTurn` or `maxTokens`. */
  stopReason?: string;
}

/**
 * The answer to a roots question: the client's workspace folders (`file://` URIs, usually), each maybe named.
 *
 * @example
 * ```ts
 * export function rootUris(answer: RootsAnswer): string[] {
 *   return answer.roots.map((root) => root.uri);
 * }
 * ```
 */
export interface RootsAnswer {
  /** The folders; empty when the client shares none. */
  roots: { uri: string; name?: string }[];
}

/**
 * The answer type of one question type: `FormAnswer` of the form's output, `UrlAnswer`, `SamplingAnswer` or `RootsAnswer`.
 *
 * @example
 * ```ts
 * export const signUpQuestions = { profile: elicitForm("Your name?", z.object({ name: z.string() })), folders: listRoots() };
 * export function signUpSummary(answers: Answers<typeof signUpQuestions>): string {
 *   const profile: AnswerOf<typeof signUpQuestions.profile> = answers.profile;
 *   const name = profile.action === "accept" ? profile.content.name : "someone";
 *   return `${name}, with ${answers.folders.roots.length} folder(s)`;
 * }
 * ```
 */
export type AnswerOf<R> =
  R extends FormRequest<infer S>
    ? FormAnswer<z.output<S>>
    : R extends UrlRequest
      ? UrlAnswer
      : R extends SamplingRequest
        ? SamplingAnswer
        : R extends RootsRequest
          ? RootsAnswer
          : never;

/**
 * What `ctx.ask(questions)` resolves to: the answer of each question, under the question's key, typed by it.
 *
 * @example
 * ```ts
 * export const signUpQuestions = { profile: elicitForm("Your name?", z.object({ name: z.string() })), folders: listRoots() };
 * export function signUpSummary(answers: Answers<typeof signUpQuestions>): string {
 *   const profile: AnswerOf<typeof signUpQuestions.profile> = answers.profile;
 *   const name = profile.action === "accept" ? profile.content.name : "someone";
 *   return `${name}, with ${answers.folders.roots.length} folder(s)`;
 * }
 * ```
 */
export type Answers<R extends Record<string, InputRequest>> = { [K in keyof R]: AnswerOf<R[K]> };

/**
 * A form question for `ctx.ask`: the client shows the user `message` and a form built from `schema`, a flat zod
 * object of string, number, integer, boolean, enum (`z.enum`, `titledEnum`) and multi-select fields (a nested
 * object throws when the form is first asked). The answer is checked against the form, then parsed by `schema`
 * itself, before the handler gets it. Never ask for passwords, tokens or other secrets in a form.
 *
 * @param message - What to ask, shown above the form.
 * @param schema - The form's fields, with `z.describe` texts and defaults where they help.
 * @returns The question; needs the client's `elicitation.form` capability (`ctx.supports("form")`).
 *
 * @example
 * ```ts
 * export const deleteFile = defineTool({
 *   name: "delete_file",
 *   description: "Delete a file. The user is asked to confirm first.",
 *   input: z.strictObject({ path: z.string() }),
 *   async handler({ path }, ctx) {
 *     const { confirm } = await ctx.ask(
 *       { confirm: elicitForm(`Delete ${path}? This cannot be undone.`, z.object({ delete: z.boolean() })) },
 *       { singleUse: true },
 *     );
 *     if (confirm.action !== "accept" || !confirm.content.delete) return { content: [text(`Kept ${path}.`)] };
 *     // ...delete the file: only after the last ask, since every round runs the handler from the top.
 *     return { content: [text(`Deleted ${path}.`)] };
 *   },
 * });
 * ```
 */
export const elicitForm = <S extends ObjectSchema>(message: string, schema: S): FormRequest<S> => ({
  kind: "form",
  message,
  schema,
});
/**
 * A URL question for `ctx.ask`: the client offers the user to open `url` (out of band: a sign-in, a payment, a
 * consent page), where what happens stays between the user and that page. `accept` only means the user agreed to
 * go there.
 *
 * @param message - Why the user should go there.
 * @param url - The page to open.
 * @returns The question; needs the client's `elicitation.url` capability (`ctx.supports("url")`).
 *
 * @example
 * ```ts
 * export const connectCalendar = defineTool({
 *   name: "connect_calendar",
 *   description: "Connect the user's calendar.",
 *   input: z.strictObject({}),
 *   async handler(_args, ctx) {
 *     const { visit } = await ctx.ask({ visit: elicitUrl("Connect your calendar, then come back.", "https://calendar.example/connect") });
 *     return visit.action === "accept" ? { content: [text("Connecting; try again in a minute.")] } : toolError("The user declined.");
 *   },
 * });
 * ```
 */
export const elicitUrl = (message: string, url: string): UrlRequest => ({ kind: "url", message, url });
/**
 * A sampling question for `ctx.ask`: the client's model writes a message (deprecated in 2026-07-28, still
 * served). Asking with `tools` needs the client's `sampling.tools`; with `includeContext` other than `"none"`,
 * `sampling.context`. Branch on `ctx.supports("sampling")` and degrade when the client offers none.
 *
 * @param params - The conversation (`messages`), `maxTokens`, and optional settings.
 * @returns The question; needs the client's `sampling` capability.
 *
 * @example
 * ```ts
 * export const summarize = defineTool({
 *   name: "summarize",
 *   description: "Summarize a text with the client's model.",
 *   input: z.strictObject({ text: z.string() }),
 *   async handler(args, ctx) {
 *     if (!ctx.supports("sampling")) return toolError("This client offers no model to summarize with.");
 *     const { summary } = await ctx.ask({
 *       summary: sample({ messages: [{ role: "user", content: { type: "text", text: `Summarize:\n\n${args.text}` } }], maxTokens: 300 }),
 *     });
 *     return { content: [text(samplingText(summary))] };
 *   },
 * });
 * ```
 */
export const sample = (params: SamplingParams): SamplingRequest => ({ kind: "sampling", params });
/**
 * A roots question for `ctx.ask`: the client's workspace folders, for a tool that works on the user's files
 * (deprecated in 2026-07-28, still served).
 *
 * @returns The question; needs the client's `roots` capability (`ctx.supports("roots")`).
 *
 * @example
 * ```ts
 * export const workspace = defineTool({
 *   name: "workspace",
 *   description: "Name the user's workspace folders.",
 *   input: z.strictObject({}),
 *   async handler(_args, ctx) {
 *     if (!ctx.supports("roots")) return { content: [text("The client shares no workspace folders.")] };
 *     const { folders } = await ctx.ask({ folders: listRoots() });
 *     return { content: [text(folders.roots.map((root) => root.name ?? root.uri).join("\n"))] };
 *   },
 * });
 * ```
 */
export const listRoots = (): RootsRequest => ({ kind: "roots" });

/**
 * The text of a sampling answer, whether its content is one block or several: the text blocks joined, the others
 * left out.
 *
 * @param answer - The answer to a `sample` question.
 * @returns Its text; `""` when it has no text block.
 *
 * @example
 * ```ts
 * export const summarize = defineTool({
 *   name: "summarize",
 *   description: "Summarize a text with the client's model.",
 *   input: z.strictObject({ text: z.string() }),
 *   async handler(args, ctx) {
 *     if (!ctx.supports("sampling")) return toolError("This client offers no model to summarize with.");
 *     const { summary } = await ctx.ask({
 *       summary: sample({ messages: [{ role: "user", content: { type: "text", text: `Summarize:\n\n${args.text}` } }], maxTokens: 300 }),
 *     });
 *     return { content: [text(samplingText(summary))] };
 *   },
 * });
 * ```
 */
export function samplingText(answer: SamplingAnswer): string {
  const blocks = Array.isArray(answer.content) ? answer.content : [answer.content];
  return blocks.map((block) => (block.type === "text" && typeof block.text === "string" ? block.text : "")).join("");
}

/**
 * The options of one `ctx.ask`.
 *
 * @example
 * ```ts
 * export async function confirmOnce(ctx: ToolContext, question: string): Promise<boolean> {
 *   const options: AskOptions = { singleUse: true }; // the answer authorizes one action, never a replay of it
 *   const { ok } = await ctx.ask({ ok: elicitForm(question, z.object({ confirm: z.boolean() })) }, options);
 *   return ok.action === "accept" && ok.content.confirm;
 * }
 * ```
 */
export interface AskOptions {
  /**
   * Makes the round's signed state valid for one retry only: pass it to the `ask` whose answer authorizes a write or
   * another side effect (a confirmed deletion), so replaying the same retry cannot do it twice. Needs the
   * REPLAY_GUARD binding; without it, a single-use `ask` is refused with an error naming the binding. Default
   * `false`.
   *
   * @see docs/security.md
   */
  singleUse?: boolean;
}

/**
 * The input side of a handler's `ctx` (tools, prompts, resource reads): `ask` questions, keep `state` between
 * rounds, and check what the client `supports`. On 2026-07-28 a question ends the round (`input_required`), and the
 * client's retry runs the handler again from the top, this time with the answers; in a 2025 session the engine
 * sends real requests and waits; in a task the task waits in `input_required`. So keep side effects after the last
 * `ask`, and values that must stay the same between rounds in `state`.
 *
 * @example
 * ```ts
 * export async function askForName(input: InputApi): Promise<string | undefined> {
 *   if (!input.supports("form")) return undefined;
 *   const { who } = await input.ask({ who: elicitForm("What should I call you?", z.object({ name: z.string() })) });
 *   return who.action === "accept" ? who.content.name : undefined;
 * }
 * ```
 */
export interface InputApi {
  /**
   * Asks the client for every entry at once and resolves with all the answers. Keys name the questions and
   * must be unique within one call of the handler. `singleUse` makes the round's state valid for one retry only.
   * Asking what the client did not declare is -32021 (see `supports`).
   */
  ask<R extends Record<string, InputRequest>>(requests: R, options?: AskOptions): Promise<Answers<R>>;
  /** The handler's own values, carried (signed, not encrypted) from round to round. Must be JSON. */
  state: JsonObject;
  /** Whether this request's client declared what `kind` needs; branch on it to degrade gracefully. */
  supports(kind: InputKind, options?: SamplingNeeds): boolean;
}

/**
 * What a sampling question needs beyond `sampling` itself (spec 2026-07-28, ClientCapabilities.sampling), as the
 * second argument of `ctx.supports("sampling", { samplingTools: true })`: check before asking with `tools` or
 * `includeContext`.
 */
export interface SamplingNeeds {
  /** Asking with `tools` needs `sampling.tools`. */
  samplingTools?: boolean;
  /** Asking with `includeContext` other than "none" needs `sampling.context`. */
  samplingContext?: boolean;
}

/** What one sampling request needs, read from its parameters. */
export function samplingNeeds(params: SamplingParams): SamplingNeeds {
  return {
    samplingTools: params.tools !== undefined,
    samplingContext: params.includeContext !== undefined && params.includeContext !== "none",
  };
}

/** What the client must have declared for each kind, as `requiredCapabilities` reports it. */
export function requiredCapability(kind: InputKind, needs: SamplingNeeds = {}): ClientCapabilities {
  switch (kind) {
    case "form":
      return { elicitation: { form: {} } };
    case "url":
      return { elicitation: { url: {} } };
    case "sampling":
      return { sampling: { ...(needs.samplingTools && { tools: {} }), ...(needs.samplingContext && { context: {} }) } };
    case "roots":
      return { roots: {} };
  }
}

export function clientSupports(capabilities: ClientCapabilities, kind: InputKind, needs: SamplingNeeds = {}): boolean {
  // Why isObject: capabilities are client input; `{"elicitation": null}` declares nothing.
  const { elicitation, sampling, roots } = capabilities as Record<string, unknown>;
  switch (kind) {
    case "form":
      // `elicitation: {}` counts as form support; a client that lists only `url` does not support forms.
      return isObject(elicitation) && (isObject(elicitation.form) || elicitation.url === undefined);
    case "url":
      return isObject(elicitation) && isObject(elicitation.url);
    case "sampling":
      return (
        isObject(sampling) && (!needs.samplingTools || isObject(sampling.tools)) && (!needs.samplingContext || isObject(sampling.context))
      );
    case "roots":
      return isObject(roots);
  }
}

/** Throws -32021 unless the client declared what this question needs (the server MUST NOT ask otherwise). */
export function requireSupport(capabilities: ClientCapabilities, request: InputRequest): void {
  const needs = request.kind === "sampling" ? samplingNeeds(request.params) : {};
  if (!clientSupports(capabilities, request.kind, needs)) throw missingCapability(request.kind, needs);
}

export function missingCapability(kind: InputKind, needs: SamplingNeeds = {}): RpcError {
  const required = requiredCapability(kind, needs);
  // The label names the innermost capabilities required: `elicitation.url`, `sampling.context`, `roots`, ...
  const label = Object.entries(required)
    .flatMap(([name, sub]) => {
      const parts = Object.keys(sub as JsonObject);
      return parts.length ? parts.map((part) => `${name}.${part}`) : [name];
    })
    .join(", ");
  return new RpcError(ErrorCode.MissingRequiredClientCapability, `Missing required client capability: ${label}`, {
    requiredCapabilities: required,
  });
}

/** The wire form of one question, as it appears in `inputRequests`. */
export function toWire(request: InputRequest): JsonObject {
  switch (request.kind) {
    case "form":
      return {
        method: "elicitation/create",
        params: { mode: "form", message: request.message, requestedSchema: toElicitationSchema(request.schema) },
      };
    case "url":
      return { method: "elicitation/create", params: { mode: "url", message: request.message, url: request.url } };
    case "sampling":
      return { method: "sampling/createMessage", params: request.params as unknown as JsonObject };
    case "roots":
      return { method: "roots/list", params: {} };
  }
}
