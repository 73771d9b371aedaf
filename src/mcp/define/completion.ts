/**
 * @module completion
 * `completion/complete`: suggestions for a prompt argument or a resource-template variable.
 */
import * as z from "zod/mini";
import { handlerContext } from "../handler/context";
import { type RequestScope, requestChannel } from "../handler/request";
import { describeIssues } from "../handler/schema";
import { lazy } from "../util/memo";
import { invalidParams, truncate } from "../wire/errors";
import type { JsonObject } from "../wire/types";
import type { Prompt } from "./prompts";
import type { Registry } from "./registry";
import type { Completer, ResourceIndex } from "./resources";

const MAX_VALUES = 100;

// `context.arguments` is an object of strings: `z.catchall(z.object({}), z.string())` checks it as z.record would, with
// the same messages, and leaves zod's record type out of the bundle unless an app uses one (about 0.5 KiB gzip).
const completeParams = lazy(() =>
  z.looseObject({
    ref: z.union([
      z.looseObject({ type: z.literal("ref/prompt"), name: z.string() }),
      z.looseObject({ type: z.literal("ref/resource"), uri: z.string() }),
    ]),
    argument: z.looseObject({ name: z.string(), value: z.string() }),
    context: z.optional(z.looseObject({ arguments: z.optional(z.catchall(z.object({}), z.string())) })),
  }),
);

export async function complete(
  prompts: Registry<Prompt>,
  resources: ResourceIndex,
  params: JsonObject,
  scope: RequestScope,
): Promise<JsonObject> {
  const parsed = completeParams().safeParse(params);
  if (!parsed.success) throw invalidParams(`Invalid params: ${describeIssues(parsed.error as z.core.$ZodError)}`);
  const { ref, argument, context } = parsed.data;
  let completers: Record<string, Completer> | undefined;
  if (ref.type === "ref/prompt") {
    const prompt = prompts.get(ref.name);
    if (!prompt) throw invalidParams(`Unknown prompt: ${truncate(ref.name, 128)}`);
    completers = prompt.complete;
  } else {
    const template = resources.template(ref.uri);
    if (!template) throw invalidParams("Unknown resource template", { uri: truncate(ref.uri, 2048) });
    completers = template.complete;
  }
  const completer = completers && Object.hasOwn(completers, argument.name) ? completers[argument.name] : undefined;
  const values = completer
    ? await completer(argument.value, { arguments: context?.arguments ?? {}, ctx: handlerContext(requestChannel(scope)) })
    : [];
  return { completion: { values: values.slice(0, MAX_VALUES), total: values.length, hasMore: values.length > MAX_VALUES } };
}
