/**
 * @module define/completion
 * `completion/complete`: suggestions for a prompt argument or a resource-template variable.
 */
import * as z from "zod/mini";
import { describeIssues } from "../ask/schema";
import { handlerContext } from "../run/context";
import { runUntilEnd } from "../run/end";
import { type RequestScope, requestChannel } from "../run/request";
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
    ref: z.looseObject({ type: z.enum(["ref/prompt", "ref/resource"]) }),
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
  // Which member names the target depends on the type; checked here rather than by a zod union, whose refusal says
  // only "Invalid input" (and which would bundle zod's union type for this one check).
  const target = ref.type === "ref/prompt" ? "name" : "uri";
  const named = ref[target];
  if (typeof named !== "string") throw invalidParams(`Invalid params: ref.${target}: a ${ref.type} reference needs a string ${target}`);
  let completers: Record<string, Completer> | undefined;
  if (ref.type === "ref/prompt") {
    const prompt = prompts.get(named);
    if (!prompt) throw invalidParams(`Unknown prompt: ${truncate(named, 128)}`);
    completers = prompt.complete;
  } else {
    const template = resources.template(named);
    if (!template) throw invalidParams("Unknown resource template", { uri: truncate(named, 2048) });
    completers = template.complete;
  }
  const completer = completers && Object.hasOwn(completers, argument.name) ? completers[argument.name] : undefined;
  // A completer cannot ask; its run ends early only when cancelled, and then completes nothing.
  const ended = completer
    ? await runUntilEnd(async (end) =>
        completer(argument.value, { arguments: context?.arguments ?? {}, ctx: handlerContext(requestChannel(scope, end)) }),
      )
    : undefined;
  const values = ended?.kind === "done" ? ended.value : [];
  return { completion: { values: values.slice(0, MAX_VALUES), total: values.length, hasMore: values.length > MAX_VALUES } };
}
