/**
 * @module prompts
 * `definePrompt`, and the `prompts/list` and `prompts/get` methods.
 */
import type * as z from "zod/mini";
import { type HandlerContext, handlerContext } from "../handler/context";
import type { InputApi } from "../handler/questions";
import { type RequestScope, requestChannel } from "../handler/request";
import { describeIssues, type ObjectSchema, toJsonSchema } from "../handler/schema";
import { memoize } from "../util/memo";
import { isObject } from "../wire/envelope";
import { invalidParams, truncate } from "../wire/errors";
import type { Icon, JsonObject, PromptMessage } from "../wire/types";
import type { Registry } from "./registry";
import type { Completer } from "./resources";

export type PromptContext = HandlerContext & InputApi;

export interface PromptResult {
  description?: string;
  messages: PromptMessage[];
}

export interface PromptDefinition<Args extends ObjectSchema> {
  name: string;
  title?: string;
  description?: string;
  icons?: Icon[];
  /** Prompt arguments are strings on the wire: declare each one as `z.string()` (or optional). */
  arguments?: Args;
  /** Completion for arguments, by argument name. */
  complete?: Record<string, Completer>;
  get: (args: z.output<Args>, ctx: PromptContext) => Promise<PromptResult> | PromptResult;
}

export type Prompt = PromptDefinition<ObjectSchema>;

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

export async function getPrompt(prompts: Registry<Prompt>, params: JsonObject, scope: RequestScope): Promise<JsonObject> {
  const name = params.name;
  if (typeof name !== "string") throw invalidParams('Invalid params: "name" must be a string');
  const prompt = prompts.get(name);
  if (!prompt) throw invalidParams(`Unknown prompt: ${truncate(name, 128)}`);
  const args = params.arguments ?? {};
  if (!isObject(args)) throw invalidParams('Invalid params: "arguments" must be an object');
  let parsedArgs: unknown = {};
  if (prompt.arguments) {
    const parsed = prompt.arguments.safeParse(args);
    if (!parsed.success) {
      throw invalidParams(`Invalid arguments for prompt ${name}: ${describeIssues(parsed.error as z.core.$ZodError)}`);
    }
    parsedArgs = parsed.data;
  }
  const outcome = await scope.runWithInput({ method: "prompts/get", name, args }, params, (input) =>
    Promise.resolve(prompt.get(parsedArgs as never, handlerContext(requestChannel(scope), input))),
  );
  return outcome.kind === "input_required" ? outcome.result : (outcome.value as unknown as JsonObject);
}
