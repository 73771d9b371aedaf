/**
 * @module json-schema
 * Tool inputs declared as raw JSON Schema 2020-12 (tools ported from other servers), validated with
 * `@cfworker/json-schema`: it interprets schemas instead of generating code, so it runs where `new Function` is
 * forbidden (Workers). Loaded on the first call of such a tool: servers that declare none never load it.
 */
import { truncate } from "../protocol/errors";
import type { JsonObject } from "../protocol/wire";

/** A tool's input as a JSON Schema object (root `type: "object"`, as tools/list requires); listed verbatim. */
export type JsonSchemaInput = { type: "object" } & JsonObject;

type Validator = { validate(value: unknown): { valid: boolean; errors: { instanceLocation: string; error: string }[] } };
const validators = new WeakMap<JsonSchemaInput, Validator>();

/** Why "2020-12" and no short-circuit: the library defaults to draft 2019-09 (ignoring `$schema`) and to one error. */
async function validatorFor(schema: JsonSchemaInput): Promise<Validator> {
  let validator = validators.get(schema);
  if (!validator) {
    const { Validator } = await import("@cfworker/json-schema");
    validator = new Validator(schema as never, "2020-12", false) as Validator;
    validators.set(schema, validator);
  }
  return validator;
}

/** Undefined when `value` is valid, else a short message (at most five problems) a model can act on. */
export async function jsonSchemaProblems(schema: JsonSchemaInput, value: unknown): Promise<string | undefined> {
  const outcome = (await validatorFor(schema)).validate(value);
  if (outcome.valid) return undefined;
  const lines = outcome.errors.slice(0, 5).map((problem) => `${truncate(problem.instanceLocation, 80)}: ${truncate(problem.error, 200)}`);
  if (outcome.errors.length > 5) lines.push(`...and ${outcome.errors.length - 5} more`);
  return lines.join("; ");
}

/** Startup check of a raw input schema: an object schema, as tools/list requires. */
export function checkJsonSchemaInput(tool: string, schema: JsonObject): void {
  if (schema.type !== "object") throw new Error(`Tool "${tool}": a JSON Schema input must have type "object" at its root`);
}
