/**
 * @module ask/schema
 * JSON Schema (2020-12) from zod, and readable messages from zod issues.
 */

import { en } from "zod/locales";
import * as z from "zod/mini";
import { memoize } from "../util/memo";
import { truncate } from "../wire/errors";
import type { JsonObject } from "../wire/types";

// English messages ("expected string, received number") instead of zod/mini's bare "Invalid input".
z.config(en());

/**
 * A zod object schema (`z.object`, `z.strictObject`, `z.looseObject` of `zod/mini`): what a tool's `input`, a
 * prompt's `arguments` and a form's fields are declared with. Name it for a generic helper over such schemas.
 *
 * @example
 * ```ts
 * export function reviewForm<S extends ObjectSchema>(schema: S): FormRequest<S> {
 *   return elicitForm("Please review these values before I save them.", schema);
 * }
 * ```
 */
export type ObjectSchema = z.ZodMiniObject;

/** Converts a zod schema to JSON Schema 2020-12. Call it once per schema and keep the result. */
export function toJsonSchema(schema: z.ZodMiniType, io: "input" | "output"): JsonObject {
  return z.toJSONSchema(schema, { io, target: "draft-2020-12" }) as JsonObject;
}

/**
 * Turns zod issues into a short message a model can act on, such as
 * `query: Too small: expected string to have >=1 characters`. At most five issues are listed.
 */
export function describeIssues(error: z.core.$ZodError, prefix = ""): string {
  const lines = error.issues.slice(0, 5).map((issue) => {
    const path = issue.path.map(String).join(".");
    const where = prefix && path ? `${prefix}.${path}` : prefix || path || "(root)";
    return `${truncate(where, 80)}: ${truncate(issue.message, 200)}`;
  });
  if (error.issues.length > 5) lines.push(`...and ${error.issues.length - 5} more`);
  return lines.join("; ");
}

/**
 * Options with display titles, for elicitation forms: `titledEnum({ red: "Red", blue: "Blue" })` is shown as a
 * titled single-select (`oneOf` of `const` + `title`); wrap it in `z.array()` for a titled multi-select. The
 * answer holds the value (`"red"`), never the title.
 *
 * @param options - Each value, with the title the user sees for it.
 * @returns A zod union of the values, typed as their string literals.
 *
 * @example
 * ```ts
 * export const pickColor = defineTool({
 *   name: "pick_color",
 *   description: "Ask the user for a color.",
 *   input: z.strictObject({}),
 *   async handler(_args, ctx) {
 *     const form = z.object({ color: titledEnum({ red: "Red", green: "Green", blue: "Blue" }) });
 *     const { choice } = await ctx.ask({ choice: elicitForm("Which color?", form) });
 *     return { content: [text(choice.action === "accept" ? `You chose ${choice.content.color}.` : "No color chosen.")] };
 *   },
 * });
 * ```
 */
export function titledEnum<const T extends string>(options: Record<T, string>) {
  const literals = Object.entries<string>(options).map(([value, title]) => z.literal(value as T).check(z.meta({ title })));
  return z.union(literals as [z.ZodMiniLiteral<T>, ...z.ZodMiniLiteral<T>[]]);
}

/** zod writes a union of titled literals as `anyOf`; the elicitation schema spells it `type: string` + `oneOf`. */
function titledSingleSelect(property: JsonObject): JsonObject {
  const options = property.anyOf ?? property.oneOf;
  if (!Array.isArray(options) || !options.every((option) => typeof option?.const === "string")) return property;
  const { anyOf: _anyOf, oneOf: _oneOf, ...rest } = property;
  return { ...rest, type: "string", oneOf: options.map((option) => ({ const: option.const, title: option.title ?? option.const })) };
}

/** Keywords each primitive type may carry in an elicitation `requestedSchema` (schema 2026-07-28). */
const ELICITATION_KEYWORDS: Record<string, readonly string[]> = {
  string: ["type", "title", "description", "minLength", "maxLength", "format", "default", "enum", "enumNames", "oneOf"],
  number: ["type", "title", "description", "minimum", "maximum", "default"],
  integer: ["type", "title", "description", "minimum", "maximum", "default"],
  boolean: ["type", "title", "description", "default"],
  array: ["type", "title", "description", "minItems", "maxItems", "items", "default"],
};

/**
 * Builds the flat `requestedSchema` of a form elicitation from a zod object: each property must be a string,
 * number, integer, boolean, enum or multi-select; keywords the restricted schema does not allow are dropped.
 * A nested object is a programming error and throws when the form is first asked.
 */
export const toElicitationSchema = memoize((schema: ObjectSchema): JsonObject => {
  // A form declared once (at module scope) is converted once.
  const json = toJsonSchema(schema, "input");
  const properties: JsonObject = {};
  for (const [name, raw] of Object.entries((json.properties ?? {}) as Record<string, JsonObject>)) {
    const property = titledSingleSelect(raw);
    const allowed = ELICITATION_KEYWORDS[String(property.type)];
    if (!allowed) throw new Error(`Elicitation field "${name}" must be a string, number, integer, boolean or enum`);
    properties[name] = Object.fromEntries(Object.entries(property).filter(([keyword]) => allowed.includes(keyword)));
  }
  const requestedSchema: JsonObject = { type: "object", properties };
  if (Array.isArray(json.required) && json.required.length > 0) requestedSchema.required = json.required;
  return requestedSchema;
});
