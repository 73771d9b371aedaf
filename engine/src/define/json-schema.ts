/**
 * @module define/json-schema
 * Tool inputs declared as raw JSON Schema 2020-12 (tools ported from other servers): `input: jsonSchema({...})`.
 * Validated with `@cfworker/json-schema`, which interprets schemas instead of generating code, so it runs where
 * `new Function` is forbidden (Workers). Only a server that calls `jsonSchema()` bundles the validator.
 */
import { Validator } from "@cfworker/json-schema";
import { truncate } from "../wire/errors";
import type { JsonObject } from "../wire/types";

/**
 * A tool input declared as JSON Schema, as `jsonSchema` returns it: the schema, listed verbatim in tools/list,
 * and its validator (`problems`), built on first use.
 *
 * @example
 * ```ts
 * export const orderNumber: JsonSchemaInput = jsonSchema({ type: "object", properties: { order: { type: "string" } } });
 * export const orderProblem: string | undefined = orderNumber.problems({ order: 12 }); // "/order: ..."
 * ```
 */
export interface JsonSchemaInput {
  /** The schema, as given. */
  readonly jsonSchema: JsonObject;
  /** Undefined when `value` is valid, else a short message (at most five problems) a model can act on. */
  problems(value: unknown): string | undefined;
}

/**
 * Declares a tool's input as a JSON Schema 2020-12 object (root `type: "object"`, as tools/list requires); the
 * handler's arguments are then plain JSON. For tools ported from other servers; a zod object gives typed
 * arguments instead. Validated with `@cfworker/json-schema`, which runs on Workers (no code generation); only a
 * server that calls `jsonSchema()` bundles it. Not supported by the validator: `$dynamicRef` / `$dynamicAnchor`.
 *
 * @param schema - The JSON Schema of the arguments; its root must be `type: "object"`.
 * @returns The input, for `ToolDefinition.input`. A call whose arguments fail it gets an `isError` result naming at
 *   most five problems.
 * @throws When the root is not `type: "object"`.
 *
 * @example
 * ```ts
 * export const lookupOrder = defineTool({
 *   name: "lookup_order",
 *   description: "Look up an order by its six-digit number.",
 *   input: jsonSchema({
 *     type: "object",
 *     properties: { order: { type: "string", pattern: "^[0-9]{6}$" } },
 *     required: ["order"],
 *     additionalProperties: false,
 *   }),
 *   handler: (args) => ({ content: [text(`Order ${String(args.order)} is on its way.`)] }),
 * });
 * ```
 */
export function jsonSchema(schema: JsonObject): JsonSchemaInput {
  if (schema.type !== "object") throw new Error('A JSON Schema tool input must have type "object" at its root');
  let validator: Validator | undefined;
  return {
    jsonSchema: schema,
    problems(value) {
      // Why "2020-12" and no short-circuit: the library defaults to draft 2019-09 (ignoring `$schema`) and one error.
      validator ??= new Validator(schema as never, "2020-12", false);
      const outcome = validator.validate(value);
      if (outcome.valid) return undefined;
      const lines = outcome.errors
        .slice(0, 5)
        .map((problem) => `${truncate(problem.instanceLocation, 80)}: ${truncate(problem.error, 200)}`);
      if (outcome.errors.length > 5) lines.push(`...and ${outcome.errors.length - 5} more`);
      return lines.join("; ");
    },
  };
}
