/**
 * @module define/prompts
 * `definePrompt`, and the `prompts/list` and `prompts/get` methods.
 */
import type * as z from "zod/mini";
import type { InputApi } from "../ask/questions";
import { describeIssues, type ObjectSchema, toJsonSchema } from "../ask/schema";
import type { HandlerContext } from "../run/context";
import { type Asking, answerOf } from "../run/request";
import { memoize } from "../util/memo";
import { invalidParams } from "../wire/errors";
import type { Icon, JsonObject, PromptMessage } from "../wire/types";
import { namedCall, type Registry } from "./registry";
import type { Completer } from "./resources";

/**
 * The `ctx` a prompt's `get` receives: the same context a tool's handler gets (`env`, `principal`, `signal`...),
 * input API included, so a prompt may ask the user (`ctx.ask`) before it answers.
 *
 * @example
 * ```ts
 * export function introduceCaller(ctx: PromptContext): PromptMessage {
 *   return { role: "user", content: text(`I am ${ctx.principal.name ?? ctx.principal.id}.`) };
 * }
 * ```
 */
export type PromptContext = HandlerContext & InputApi;

/**
 * What a prompt's `get` returns: the messages the client puts in front of its model, and a description of them.
 *
 * @example
 * ```ts
 * export function askModel(question: string): PromptResult {
 *   return { description: "One question", messages: [{ role: "user", content: text(question) }] };
 * }
 * ```
 */
export interface PromptResult {
  /** What these messages are, for the user (for example "Review of 3 notes about invoices"). */
  description?: string;
  /** The messages, in order: text, images, audio or embedded resources, each from the user or the assistant. */
  messages: PromptMessage[];
}

/**
 * Everything `definePrompt` takes: the prompt's name, its string arguments as a zod object, optional completion,
 * and `get`. `Args` is the arguments' schema, so `get` receives them typed. Name it to write a function that builds
 * or wraps prompt declarations.
 *
 * @example
 * ```ts
 * export function teamPrompt<Args extends ObjectSchema>(definition: PromptDefinition<Args>): Prompt {
 *   return definePrompt({ ...definition, title: definition.title ?? `Team: ${definition.name}` });
 * }
 * ```
 */
export interface PromptDefinition<Args extends ObjectSchema> {
  /** Unique within the server; what `prompts/get` names. */
  name: string;
  /** A name for people (clients show it instead of `name`). */
  title?: string;
  /** What the prompt is for, as a client shows it in its prompt picker. */
  description?: string;
  /** Icons clients may show for the prompt. */
  icons?: Icon[];
  /** Prompt arguments are strings on the wire: declare each one as `z.string()` (or optional). */
  arguments?: Args;
  /** Completion for arguments, by argument name. */
  complete?: Record<string, Completer>;
  /** Builds the messages from the arguments, validated against `arguments` (a refusal is -32602 to the client). */
  get: (args: z.output<Args>, ctx: PromptContext) => Promise<PromptResult> | PromptResult;
}

/**
 * A declared prompt, its types erased, as `definePrompt` returns it and `ServerDefinition.prompts` takes it.
 *
 * @example
 * ```ts
 * export function prompts(): Prompt[] {
 *   return [
 *     definePrompt({
 *       name: "plan_trip",
 *       description: "Plan a trip around the weather.",
 *       arguments: z.strictObject({ city: z.string() }),
 *       get: ({ city }) => ({ messages: [{ role: "user", content: text(`Plan three days in ${city} around the forecast.`) }] }),
 *     }),
 *   ];
 * }
 * ```
 */
export type Prompt = PromptDefinition<ObjectSchema>;

/**
 * Declares a prompt: a template of messages the user picks in the client (often as a slash command), listed in
 * `prompts/list` with its arguments (names, descriptions and required flags read from the zod object), and built by
 * `get` on `prompts/get`. Arguments are strings on the wire, so declare each one as `z.string()` or
 * `z.optional(z.string())`.
 *
 * @param definition - The prompt: `name`, `get`, and optionally `title`, `description`, `icons`, `arguments`,
 *   `complete`.
 * @returns The prompt, for `ServerDefinition.prompts` (or the `prompts` of `declarations`).
 *
 * @example
 * ```ts
 * export const reviewCode = definePrompt({
 *   name: "review_code",
 *   title: "Review code",
 *   description: "Ask the model to review a piece of code.",
 *   arguments: z.strictObject({ code: z.string(), language: z.optional(z.string().check(z.describe("e.g. typescript"))) }),
 *   get: ({ code, language }) => ({
 *     messages: [{ role: "user", content: text(`Review this ${language ?? ""} code for bugs:\n\n${code}`) }],
 *   }),
 * });
 * ```
 */
export function definePrompt<Args extends ObjectSchema>(definition: PromptDefinition<Args>): Prompt {
  return definition as unknown as Prompt;
}

/** The `prompts/list` entry, with argument names, descriptions and required flags read from the zod schema. */
export const describePrompt = memoize((prompt: Prompt): JsonObject => {
  const listing: JsonObject = { name: prompt.name };
  if (prompt.title) listing.title = prompt.title;
  if (prompt.description) listing.description = prompt.description;
  if (prompt.icons) listing.icons = prompt.icons;
  if (prompt.arguments) {
    const schema = toJsonSchema(prompt.arguments, "input");
    const required = new Set((schema.required as string[] | undefined) ?? []);
    listing.arguments = Object.entries((schema.properties ?? {}) as Record<string, JsonObject>).map(([name, property]) => ({
      name,
      ...(typeof property.description === "string" ? { description: property.description } : {}),
      required: required.has(name),
    }));
  }
  return listing;
});

export async function getPrompt(prompts: Registry<Prompt>, params: JsonObject, asking: Asking): Promise<JsonObject> {
  const { item: prompt, args } = namedCall(prompts, params, "prompt");
  let parsedArgs: unknown = {};
  if (prompt.arguments) {
    const parsed = prompt.arguments.safeParse(args);
    if (!parsed.success) {
      throw invalidParams(`Invalid arguments for prompt ${prompt.name}: ${describeIssues(parsed.error as z.core.$ZodError)}`);
    }
    parsedArgs = parsed.data;
  }
  const asked = await asking.run({ method: "prompts/get", name: prompt.name, args }, params, async (ctx) =>
    prompt.get(parsedArgs as never, ctx),
  );
  return answerOf(asked) as unknown as JsonObject;
}
