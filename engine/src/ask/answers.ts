/**
 * @module ask/answers
 * The one answer validator. Every path that takes an answer to a question checks it here, the same way, before
 * anything keeps or consumes it: a multi round-trip retry (`inputResponses`), a task's `tasks/update`, and a 2025
 * client's response to a server-to-client request. A malformed answer is -32602 and changes nothing: the question
 * stays asked.
 *
 * What is checked: the shape the answer's kind has on the wire; that its text is well-formed Unicode; and, for an
 * accepted form, its content against the `requestedSchema` the client was shown (types, enums, lengths, bounds,
 * required fields). What is kept: only what the question defines (a form's own fields, a URL's action...), so a
 * client cannot grow stored or signed state with fields nobody reads. The handler's own zod schema parses the kept
 * content once more when the handler gets it (`typedAnswer`): it may hold checks the wire schema cannot say.
 */
import type * as z from "zod/mini";
import { illFormedTextAt, illFormedTextMessage } from "../util/encoding";
import { isObject } from "../wire/envelope";
import { invalidParams } from "../wire/errors";
import type { JsonObject } from "../wire/types";
import type { FormRequest, InputKind, InputRequest } from "./questions";
import { describeIssues, toElicitationSchema } from "./schema";

/** A question as every path can describe it: its kind, and for a form the schema the client was shown. */
export interface AskedQuestion {
  kind: InputKind;
  requestedSchema?: JsonObject;
}

export function askedQuestion(request: InputRequest): AskedQuestion {
  return request.kind === "form" ? { kind: "form", requestedSchema: toElicitationSchema(request.schema) } : { kind: request.kind };
}

/** The answer as kept (only what the question defines), or -32602 naming what is wrong with it. */
export function acceptAnswer(key: string, question: AskedQuestion, answer: unknown): JsonObject {
  const refuse = (problem: string) => invalidParams(`Invalid inputResponses: ${key}${problem}`);
  if (!isObject(answer)) throw refuse(": must be an object");
  const illFormed = illFormedTextAt(answer, key);
  if (illFormed !== undefined) throw invalidParams(`Invalid inputResponses: ${illFormedTextMessage(illFormed)}`);
  switch (question.kind) {
    case "form":
    case "url": {
      const { action, content } = answer;
      if (action !== "accept" && action !== "decline" && action !== "cancel")
        throw refuse('.action: must be "accept", "decline" or "cancel"');
      if (action !== "accept" || question.kind === "url") return { action };
      if (content !== undefined && !isObject(content)) throw refuse(".content: must be an object");
      const schema = question.requestedSchema ?? { properties: {} };
      const problem = formProblem((content ?? {}) as JsonObject, schema);
      if (problem) throw refuse(`.content.${problem}`);
      return { action, content: pick((content ?? {}) as JsonObject, Object.keys(schema.properties as JsonObject)) };
    }
    case "sampling": {
      const { role, content, model, stopReason } = answer;
      if (role !== "user" && role !== "assistant") throw refuse('.role: must be "user" or "assistant"');
      const blocks = Array.isArray(content) ? content : [content];
      if (blocks.length === 0 || !blocks.every((block) => isObject(block) && typeof block.type === "string"))
        throw refuse(".content: must be a content block or an array of them");
      if (typeof model !== "string") throw refuse(".model: must be a string");
      if (stopReason !== undefined && typeof stopReason !== "string") throw refuse(".stopReason: must be a string");
      return pick(answer, ["role", "content", "model", "stopReason"]);
    }
    case "roots": {
      const { roots } = answer;
      if (!Array.isArray(roots)) throw refuse(".roots: must be an array");
      return {
        roots: roots.map((root, index) => {
          if (!isObject(root) || typeof root.uri !== "string" || (root.name !== undefined && typeof root.name !== "string"))
            throw refuse(`.roots[${index}]: must be { uri: string, name?: string }`);
          return pick(root, ["uri", "name"]);
        }),
      };
    }
  }
}

/**
 * A kept answer as the handler gets it: an accepted form's content parsed by the form's own zod schema (defaults
 * applied, refinements checked; a refusal is -32602), anything else as kept.
 */
export function typedAnswer(key: string, request: InputRequest, answer: JsonObject): unknown {
  if (request.kind !== "form" || answer.action !== "accept") return answer;
  return { action: "accept", content: formContent(key, request, answer.content ?? {}) };
}

function formContent(key: string, request: FormRequest, content: unknown): unknown {
  const parsed = request.schema.safeParse(content);
  if (!parsed.success) throw invalidParams(`Invalid inputResponses: ${describeIssues(parsed.error as z.core.$ZodError, `${key}.content`)}`);
  return parsed.data;
}

function pick(object: JsonObject, names: readonly string[]): JsonObject {
  return Object.fromEntries(names.filter((name) => object[name] !== undefined).map((name) => [name, object[name]]));
}

/**
 * What is wrong with a form's content under its `requestedSchema` (`field: problem`), or undefined. The schema is
 * the restricted one elicitation allows (see `toElicitationSchema`): flat, with string, number, integer, boolean,
 * enum and multi-select fields. Lengths count UTF-16 units, as zod does.
 */
function formProblem(content: JsonObject, schema: JsonObject): string | undefined {
  const properties = (schema.properties ?? {}) as Record<string, JsonObject>;
  for (const name of (schema.required ?? []) as string[]) {
    if (content[name] === undefined) return `${name}: is required`;
  }
  for (const [name, field] of Object.entries(properties)) {
    const value = content[name];
    if (value === undefined) continue;
    const problem = fieldProblem(value, field);
    if (problem) return `${name}: ${problem}`;
  }
  return undefined;
}

function fieldProblem(value: unknown, field: JsonObject): string | undefined {
  switch (field.type) {
    case "string": {
      if (typeof value !== "string") return "must be a string";
      const choices = choicesOf(field);
      if (choices && !choices.includes(value)) return `must be one of ${choices.map((choice) => JSON.stringify(choice)).join(", ")}`;
      if (typeof field.minLength === "number" && value.length < field.minLength) return `must be at least ${field.minLength} characters`;
      if (typeof field.maxLength === "number" && value.length > field.maxLength) return `must be at most ${field.maxLength} characters`;
      if (typeof field.format === "string" && !FORMATS[field.format]?.(value)) return `must be a valid ${field.format}`;
      return undefined;
    }
    case "number":
    case "integer": {
      if (typeof value !== "number" || !Number.isFinite(value)) return "must be a number";
      if (field.type === "integer" && !Number.isInteger(value)) return "must be an integer";
      if (typeof field.minimum === "number" && value < field.minimum) return `must be at least ${field.minimum}`;
      if (typeof field.maximum === "number" && value > field.maximum) return `must be at most ${field.maximum}`;
      return undefined;
    }
    case "boolean":
      return typeof value === "boolean" ? undefined : "must be true or false";
    case "array": {
      if (!Array.isArray(value)) return "must be an array";
      if (typeof field.minItems === "number" && value.length < field.minItems) return `must have at least ${field.minItems} items`;
      if (typeof field.maxItems === "number" && value.length > field.maxItems) return `must have at most ${field.maxItems} items`;
      const choices = isObject(field.items) ? choicesOf(field.items) : undefined;
      const outside = value.find((item) => typeof item !== "string" || (choices !== undefined && !choices.includes(item)));
      return outside === undefined ? undefined : `holds ${JSON.stringify(outside)}, not one of the choices`;
    }
    default:
      return undefined;
  }
}

/** The allowed values of an enum field: `enum`, or the `const`s of a titled `oneOf`/`anyOf`. */
function choicesOf(field: JsonObject): unknown[] | undefined {
  if (Array.isArray(field.enum)) return field.enum;
  const titled = Array.isArray(field.oneOf) ? field.oneOf : Array.isArray(field.anyOf) ? field.anyOf : undefined;
  return titled?.map((option) => (isObject(option) ? option.const : undefined));
}

/** The string formats an elicitation schema may name. */
const FORMATS: Record<string, (value: string) => boolean> = {
  email: (value) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value),
  uri: (value) => URL.canParse(value),
  date: (value) => /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value)),
  "date-time": (value) => /^\d{4}-\d{2}-\d{2}T/.test(value) && !Number.isNaN(Date.parse(value)),
};
