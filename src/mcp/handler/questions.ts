/**
 * @module input
 * Multi round-trip requests (MRTR): how a handler asks the client for input and gets the answers back.
 *
 * A handler calls `ctx.ask({ key: request, ... })` and awaits the answers as if they were local. When an answer
 * is missing, the engine ends this round with `resultType: "input_required"`, the questions, and a signed
 * `requestState` that carries the answers so far and the handler's own `ctx.state`. The client retries the same
 * request (new id) with the answers; the engine verifies the state and runs the handler again from the top, and
 * this time `ask` returns. So: keep side effects after the last `ask`, and keep values that must not change
 * between rounds in `ctx.state`.
 */
import * as z from "zod/mini";
import { lazy } from "../util/memo";
import { isObject } from "../wire/envelope";
import { ErrorCode, RpcError } from "../wire/errors";
import type { ClientCapabilities, JsonObject } from "../wire/types";
import { type ObjectSchema, toElicitationSchema } from "./schema";

export type InputKind = "form" | "url" | "sampling" | "roots";

export interface FormRequest<S extends ObjectSchema = ObjectSchema> {
  kind: "form";
  message: string;
  schema: S;
}
export interface UrlRequest {
  kind: "url";
  message: string;
  url: string;
}
export interface SamplingRequest {
  kind: "sampling";
  params: SamplingParams;
}
export interface RootsRequest {
  kind: "roots";
}
export type InputRequest = FormRequest | UrlRequest | SamplingRequest | RootsRequest;

export type SamplingContent =
  | { type: "text"; text: string }
  | { type: "image" | "audio"; data: string; mimeType: string }
  | ({ type: string } & JsonObject);

export interface SamplingParams {
  messages: { role: "user" | "assistant"; content: SamplingContent | SamplingContent[] }[];
  maxTokens: number;
  systemPrompt?: string;
  temperature?: number;
  stopSequences?: string[];
  modelPreferences?: JsonObject;
  includeContext?: "none" | "thisServer" | "allServers";
  metadata?: JsonObject;
  /** Asking with tools requires the client's `sampling.tools` capability. */
  tools?: JsonObject[];
  toolChoice?: JsonObject;
}

export type FormAnswer<T> = { action: "accept"; content: T } | { action: "decline" | "cancel" };
export type UrlAnswer = { action: "accept" | "decline" | "cancel" };
export interface SamplingAnswer {
  role: "user" | "assistant";
  content: SamplingContent | SamplingContent[];
  model: string;
  stopReason?: string;
}
export interface RootsAnswer {
  roots: { uri: string; name?: string }[];
}

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

export type Answers<R extends Record<string, InputRequest>> = { [K in keyof R]: AnswerOf<R[K]> };

/** Ask the user to fill a flat form (string, number, integer, boolean and enum fields). Never ask for secrets. */
export const elicitForm = <S extends ObjectSchema>(message: string, schema: S): FormRequest<S> => ({
  kind: "form",
  message,
  schema,
});
/** Send the user to a URL (out of band); `accept` only means the user agreed to go there. */
export const elicitUrl = (message: string, url: string): UrlRequest => ({ kind: "url", message, url });
/** Ask the client's model for a completion (deprecated in 2026-07-28 but still served). */
export const sample = (params: SamplingParams): SamplingRequest => ({ kind: "sampling", params });
/** Ask for the client's roots (deprecated in 2026-07-28 but still served). */
export const listRoots = (): RootsRequest => ({ kind: "roots" });

/** The text of a sampling answer, whether its content is one block or several. */
export function samplingText(answer: SamplingAnswer): string {
  const blocks = Array.isArray(answer.content) ? answer.content : [answer.content];
  return blocks.map((block) => (block.type === "text" && typeof block.text === "string" ? block.text : "")).join("");
}

export interface InputApi {
  /**
   * Asks the client for every entry at once and resolves with all the answers. Keys name the questions and
   * must be unique within one call of the handler. `singleUse` makes the round's state valid for one retry only.
   */
  ask<R extends Record<string, InputRequest>>(requests: R, options?: { singleUse?: boolean }): Promise<Answers<R>>;
  /** The handler's own values, carried (signed, not encrypted) from round to round. Must be JSON. */
  state: JsonObject;
  /** Whether this request's client declared what `kind` needs; branch on it to degrade gracefully. */
  supports(kind: InputKind, options?: SamplingNeeds): boolean;
}

export interface RoundTarget {
  method: "tools/call" | "prompts/get" | "resources/read";
  /** Tool or prompt name, or resource URI. */
  name: string;
  /** The request's arguments exactly as sent; the state is bound to their digest. */
  args: unknown;
}

/**
 * How one call of an interactive handler ended: with its value, or (2026-07-28) with an `input_required` result
 * that ends this round. `retried` is true when the call continued an earlier round.
 */
export type RoundOutcome<T> = { kind: "complete"; value: T; retried: boolean } | { kind: "input_required"; result: JsonObject };

/** Runs an interactive handler for one request; the era decides how questions reach the client. */
export type InputRunner = <T>(
  target: RoundTarget,
  params: JsonObject,
  handler: (input: InputApi) => Promise<T>,
) => Promise<RoundOutcome<T>>;

/** What a sampling question needs beyond `sampling` itself (spec 2026-07-28, ClientCapabilities.sampling). */
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

/** The shape each kind of answer must have; a malformed answer is a protocol error (-32602). */
export const responseSchemas = lazy((): Record<InputKind, z.ZodMiniType> => {
  const elicitResponse = z.looseObject({
    action: z.enum(["accept", "decline", "cancel"]),
    content: z.optional(z.record(z.string(), z.unknown())),
  });
  const contentBlock = z.looseObject({ type: z.string() });
  return {
    form: elicitResponse,
    url: elicitResponse,
    sampling: z.looseObject({
      role: z.enum(["user", "assistant"]),
      content: z.union([contentBlock, z.array(contentBlock)]),
      model: z.string(),
      stopReason: z.optional(z.string()),
    }),
    roots: z.looseObject({ roots: z.array(z.looseObject({ uri: z.string(), name: z.optional(z.string()) })) }),
  };
});
