/**
 * @module define/tools
 * `defineTool`, and the `tools/list` and `tools/call` methods.
 */
import type * as z from "zod/mini";
import type { InputApi } from "../ask/questions";
import { describeIssues, type ObjectSchema, toJsonSchema } from "../ask/schema";
import type { HandlerContext } from "../run/context";
import { isRunEnding } from "../run/end";
import { type Asked, type Asking, answerOf, type RequestScope } from "../run/request";
import { illFormedTextAt, illFormedTextMessage } from "../util/encoding";
import { describeError, type LogScope, log } from "../util/log";
import { memoize } from "../util/memo";
import { isObject } from "../wire/envelope";
import { ErrorCode, INTERNAL_ERROR_MESSAGE, RpcError } from "../wire/errors";
import type { TaskSupport } from "../wire/tasks";
import type { ContentBlock, Icon, JsonObject, ToolAnnotations } from "../wire/types";
import { checkBudget, type ToolBudget } from "./budget";
import { text } from "./content";
import type { JsonSchemaInput } from "./json-schema";
import { namedCall, type Registry } from "./registry";
import type { View } from "./views";

/**
 * The `ctx` a tool's handler gets: the request's context (`env`, `principal`, `signal`, `progress`, `log`,
 * `publish`, `checkpoint`...) and the input API (`ask`, `state`, `supports`). Name it in helpers that handlers call.
 * The same `ctx` serves every path a call can take (a 2026-07-28 request, a 2025 session, a task), so a handler
 * never needs to know which one it is on.
 *
 * @example
 * ```ts
 * export async function fetchJson(ctx: ToolContext, url: string): Promise<unknown> {
 *   ctx.progress(0, 1, `Fetching ${url}`);
 *   const response = await fetch(url, { signal: ctx.signal });
 *   ctx.progress(1, 1);
 *   return response.json();
 * }
 * ```
 */
export type ToolContext = HandlerContext & InputApi;

/**
 * What a tool's `input` may be: a zod object (`z.strictObject({...})`, whose output types the handler's arguments),
 * or `jsonSchema({...})` (a JSON Schema 2020-12 object; the arguments are then plain JSON).
 *
 * @example
 * ```ts
 * export const orderInput: ToolInput = jsonSchema({
 *   type: "object",
 *   properties: { order: { type: "string", pattern: "^[0-9]{6}$" } },
 *   required: ["order"],
 * });
 * ```
 */
export type ToolInput = ObjectSchema | JsonSchemaInput;
type ArgsOf<In extends ToolInput> = In extends ObjectSchema ? z.output<In> : JsonObject;

/**
 * What a tool's handler returns. `content` is what the model reads; `structuredContent` is the data, typed by the
 * tool's `output` schema, checked against it before it is sent, and also sent as a JSON text block for clients that
 * ignore it. A failure the model should read and act on is a result with `isError: true` (see `toolError`), not an
 * exception: an exception reaches the client as a generic error with a reference, and its detail goes to the log.
 *
 * @example
 * ```ts
 * export function itemsResult(items: string[]): ToolResult<{ items: string[] }> {
 *   return { content: [text(`${items.length} item(s)`)], structuredContent: { items } };
 * }
 * ```
 */
export interface ToolResult<Structured = unknown> {
  /** Text, images, audio, resource links and embedded resources, in order. Default: none. */
  content?: ContentBlock[];
  /** Required when the tool declares `output`; checked against it before it is sent. */
  structuredContent?: Structured;
  /** The call failed; `content` says why, for the model to correct its call or tell the user. */
  isError?: boolean;
  /** Metadata for the client, sent as the result's `_meta`. */
  _meta?: JsonObject;
}

/**
 * Everything `defineTool` takes: the tool's name and description, its input (and output) schema, hints, and the
 * handler. `In` and `Out` are the schemas, so the handler's arguments and `structuredContent` are typed by them.
 * Name it to write a function that builds or wraps tool declarations.
 *
 * @example
 * ```ts
 * export function adminTool<In extends ToolInput, Out extends z.ZodMiniType | undefined = undefined>(
 *   definition: ToolDefinition<In, Out>,
 * ): Tool {
 *   return defineTool({ ...definition, scopes: ["admin", ...(definition.scopes ?? [])] });
 * }
 * ```
 */
export interface ToolDefinition<In extends ToolInput, Out extends z.ZodMiniType | undefined> {
  /** 1-128 characters of A-Z a-z 0-9 _ - . ; unique within the server. */
  name: string;
  /** A name for people (clients show it instead of `name`). */
  title?: string;
  /** What the tool does, written for the model that decides whether to call it. */
  description: string;
  /**
   * Arguments; `z.strictObject` refuses unknown keys, which catches misspelled arguments. Or `jsonSchema({...})`:
   * a JSON Schema 2020-12 object, listed verbatim and validated with `@cfworker/json-schema` (no `$dynamicRef`).
   */
  input: In;
  /** Shape of `structuredContent`, when the tool returns structured data. */
  output?: Out;
  /** Hints for the client (read-only, destructive, idempotent, open world). Hints only: nothing enforces them. */
  annotations?: ToolAnnotations;
  /** Icons clients may show for the tool. */
  icons?: Icon[];
  /** OAuth scopes a caller needs (when authorization is on); tools the caller may not use are not listed to it. */
  scopes?: string[];
  /**
   * Calls per caller per period for this tool alone, on a rate-limiting binding of its own (define/budget.ts): a
   * costly tool cannot use up the budget of the cheap ones. Over it, the model gets an `isError` result saying when
   * to retry. A multi round-trip call is charged once, on its first round: its retries (a confirmation, say) are not.
   */
  budget?: ToolBudget;
  /**
   * Whether the tool may run as a task (Tasks extension): "optional" runs it as a task for clients that declared
   * the extension and synchronously for others; "required" refuses others with -32021. Default "forbidden".
   * In a task, questions asked before the first `ctx.progress()` are asked up front (multi round-trip rounds on
   * `tools/call`); the task is created at that first `ctx.progress()`, and later questions go through the task.
   */
  taskSupport?: TaskSupport;
  /**
   * An interactive view (MCP Apps, `defineView`) that hosts rendering views show with this tool's results. Listed as
   * `_meta.ui.resourceUri` to clients that declare the extension only; keep the result useful as text for the others.
   */
  view?: View;
  /**
   * Runs the tool: `args` are the arguments, already validated against `input` (a refusal reaches the model as an
   * `isError` result); `ctx` is the call's context. On a multi round-trip request the handler runs again from the
   * top in each round, so keep side effects after the last `ctx.ask`.
   */
  handler: (
    args: ArgsOf<In>,
    ctx: ToolContext,
  ) => Promise<ToolResult<Out extends z.ZodMiniType ? z.input<Out> : never>> | ToolResult<Out extends z.ZodMiniType ? z.input<Out> : never>;
}

/**
 * A declared tool, its types erased, as `defineTool` returns it and `ServerDefinition.tools` takes it. Name it for
 * the list of a server's tools.
 *
 * @example
 * ```ts
 * export function tools(): Tool[] {
 *   // Called on the first request (`declarations`), so no cold start pays for building these zod schemas.
 *   return [
 *     defineTool({
 *       name: "echo",
 *       description: "Repeat a text back.",
 *       input: z.strictObject({ text: z.string().check(z.maxLength(1_000)) }),
 *       handler: (args) => ({ content: [text(args.text)] }),
 *     }),
 *   ];
 * }
 * ```
 */
export type Tool = ToolDefinition<ToolInput, z.ZodMiniType | undefined>;

/**
 * Declares a tool: what the model sees in `tools/list` (name, description, the JSON Schema of its input, derived
 * from the zod schema once per isolate) and the handler that `tools/call` runs. The handler's `args` are typed by
 * `input` and its `structuredContent` by `output`. The declaration is checked when the server is built: a bad name
 * or schema stops the Worker (or fails `validateServer` in the tests), never a request.
 *
 * @param definition - The tool: `name`, `description`, `input`, `handler`, and optionally `title`, `output`,
 *   `annotations`, `icons`, `scopes`, `budget`, `taskSupport`, `view`.
 * @returns The tool, for `ServerDefinition.tools` (or the `tools` of `declarations`).
 *
 * @example
 * ```ts
 * export const getForecast = defineTool({
 *   name: "get_forecast",
 *   title: "Weather forecast",
 *   description: "The weather forecast for a city, one entry per day.",
 *   input: z.strictObject({ city: z.string().check(z.minLength(1)), days: z.optional(z.int().check(z.minimum(1), z.maximum(7))) }),
 *   output: z.object({ city: z.string(), days: z.array(z.object({ date: z.string(), summary: z.string() })) }),
 *   annotations: { readOnlyHint: true, openWorldHint: true },
 *   async handler({ city, days = 3 }, ctx) {
 *     const url = `https://weather.example/forecast?city=${encodeURIComponent(city)}&days=${days}`;
 *     const response = await fetch(url, { signal: ctx.signal });
 *     if (!response.ok) return toolError(`No forecast for ${city} (HTTP ${response.status}). Check the city's spelling.`);
 *     const forecast = (await response.json()) as { date: string; summary: string }[];
 *     return { structuredContent: { city, days: forecast } };
 *   },
 * });
 * ```
 */
export function defineTool<In extends ToolInput, Out extends z.ZodMiniType | undefined = undefined>(
  definition: ToolDefinition<In, Out>,
): Tool {
  return definition as unknown as Tool;
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** Startup check: names follow the spec's rules (uniqueness is the registry's). A bad name stops the Worker. */
export function checkToolNames(tools: readonly Tool[]): void {
  for (const tool of tools) {
    if (!TOOL_NAME.test(tool.name)) throw new Error(`Tool name "${tool.name}" must be 1-128 characters of A-Za-z0-9_.-`);
    if (!isZod(tool.input) && typeof (tool.input as Partial<JsonSchemaInput>).problems !== "function") {
      throw new Error(`Tool "${tool.name}": input must be a zod object or jsonSchema({...})`);
    }
    if (tool.taskSupport !== undefined && !["forbidden", "optional", "required"].includes(tool.taskSupport)) {
      throw new Error(`Tool "${tool.name}": taskSupport must be "forbidden", "optional" or "required"`);
    }
    checkBudget(tool.name, tool.budget);
  }
}

/** The `tools/list` entry of a tool, with its JSON Schemas derived once per isolate. */
export const describeTool = memoize((tool: Tool): JsonObject => {
  const inputSchema = isZod(tool.input) ? toJsonSchema(tool.input, "input") : tool.input.jsonSchema;
  const listing: JsonObject = { name: tool.name, description: tool.description, inputSchema };
  if (tool.title) listing.title = tool.title;
  if (tool.output) listing.outputSchema = toJsonSchema(tool.output, "output");
  if (tool.annotations) listing.annotations = tool.annotations;
  if (tool.icons) listing.icons = tool.icons;
  return listing;
});

/**
 * A failed tool run, told to the model as a result it can read and act on: an unknown id, a bad date, an upstream
 * service that is down. Say what went wrong and what to do instead. (A protocol error would tell the client, not
 * the model; an exception tells the model nothing but a reference.)
 *
 * @param message - What went wrong, written for the model.
 * @returns The result `{ content: [text(message)], isError: true }`.
 *
 * @example
 * ```ts
 * export const divide = defineTool({
 *   name: "divide",
 *   description: "Divide a by b.",
 *   input: z.strictObject({ a: z.number(), b: z.number() }),
 *   handler: ({ a, b }) => (b === 0 ? toolError("b must not be 0: pick another divisor.") : { content: [text(String(a / b))] }),
 * });
 * ```
 */
export function toolError(message: string): ToolResult<never> {
  return { content: [text(message)], isError: true };
}

/** Whether a tool's input is a zod schema (else it is a raw JSON Schema object). */
function isZod(input: ToolInput): input is ObjectSchema {
  return "_zod" in input;
}

/** The arguments as the handler gets them, or the message that tells the model what is wrong with them. */
export function parseArguments(tool: Tool, args: JsonObject): { ok: true; data: unknown } | { ok: false; message: string } {
  // Why before the schema: a lone surrogate passes any string schema, but a tool that stores it stores U+FFFD
  // instead, after acknowledging the original; the model can resend the text once it is told.
  const illFormed = illFormedTextAt(args);
  if (illFormed !== undefined) return { ok: false, message: `Invalid arguments for tool ${tool.name}: ${illFormedTextMessage(illFormed)}` };
  if (!isZod(tool.input)) {
    const problems = tool.input.problems(args);
    return problems === undefined
      ? { ok: true, data: args }
      : { ok: false, message: `Invalid arguments for tool ${tool.name}: ${problems}` };
  }
  const parsed = tool.input.safeParse(args);
  if (parsed.success) return { ok: true, data: parsed.data };
  return { ok: false, message: `Invalid arguments for tool ${tool.name}: ${describeIssues(parsed.error as z.core.$ZodError)}` };
}

/** A `tools/call` resolved to the tool it names: the arguments are an object, the caller may use the tool. */
export interface ToolCall {
  tool: Tool;
  /** The arguments exactly as sent (a task parses them again in each run). */
  args: JsonObject;
}

/** Reads `tools/call` params into the call, or throws -32602 (unknown tool, arguments not an object). */
export function toolCall(tools: Registry<Tool>, params: JsonObject): ToolCall {
  const { item: tool, args } = namedCall(tools, params, "tool");
  return { tool, args };
}

/**
 * One run of a tool's handler, the one path every caller takes (a request, a task's first run on the Worker, each
 * run in its Durable Object): arguments parsed (a refusal is a tool error the model can act on), the handler run,
 * its result checked against the output schema. A crash is a generic tool error (the detail is logged); a protocol
 * error the handler raised (-32021...) and a run's early end (run/end.ts) pass through to the caller.
 */
export function runTool(tool: Tool, args: JsonObject, ctx: ToolContext, scope: LogScope): JsonObject | Promise<JsonObject> {
  const parsed = parseArguments(tool, args);
  if (!parsed.ok) return toolError(parsed.message) as JsonObject;
  // A handler that returns its result (not a promise) is answered at once: the call then has nothing to wait for.
  let value: ToolResult | Promise<ToolResult>;
  try {
    value = tool.handler(parsed.data as never, ctx);
  } catch (error) {
    return crashed(tool, error, scope);
  }
  if (!isThenable(value)) return checkedResult(tool, value, scope);
  return Promise.resolve(value).then(
    (result) => checkedResult(tool, result, scope),
    (error: unknown) => crashed(tool, error, scope),
  );
}

/** Whether a handler's return is a promise (or any thenable, which `await` would have waited for too). */
function isThenable(value: unknown): value is PromiseLike<ToolResult> {
  return value instanceof Promise || typeof (value as { then?: unknown } | null)?.then === "function";
}

/** A handler's throw: a run's early end (run/end.ts) and a protocol error pass through; anything else is a crash. */
function crashed(tool: Tool, error: unknown, scope: LogScope): JsonObject {
  if (isRunEnding(error) || error instanceof RpcError) throw error;
  return crashResult(tool, error, scope);
}

/**
 * `tools/call` answered on the request itself, its questions answered the way of the request's era (`asking`);
 * `admit` admits the logical call once (its tool's budget, see `AskingOptions.admit`). Answered without a promise
 * when the round and the handler wait for nothing.
 */
export function callTool(
  call: ToolCall,
  params: JsonObject,
  scope: RequestScope,
  asking: Asking,
  admit?: () => Promise<JsonObject | undefined>,
): JsonObject | Promise<JsonObject> {
  const target = { method: "tools/call", name: call.tool.name, args: call.args } as const;
  // The round itself failed after the handler ran (it kept more state than a round can carry): a server bug.
  const failed = (error: unknown): JsonObject => {
    if (error instanceof RpcError) throw error;
    return crashResult(call.tool, error, scope);
  };
  let asked: Asked<JsonObject> | Promise<Asked<JsonObject>>;
  try {
    asked = asking.run(target, params, (ctx) => runTool(call.tool, call.args, ctx, scope), { admit });
  } catch (error) {
    return failed(error);
  }
  return asked instanceof Promise ? asked.then(toolAnswerOf, failed) : toolAnswerOf(asked);
}

/**
 * What `tools/call` answers for a run that ended on its request: the tool's result, or its round's `input_required`.
 * A cancelled call is a tool error: the client went away and no one reads it (the reply sends none), but the method
 * still ends with an answer.
 */
export function toolAnswerOf(asked: Asked<JsonObject>): JsonObject {
  return asked.kind === "cancelled" ? (toolError("Cancelled") as JsonObject) : answerOf(asked);
}

/** A crash inside a tool, reported to the model generically; the detail stays in the log. */
export function crashResult(tool: Tool, error: unknown, scope: LogScope): JsonObject {
  log(scope, "error", "tool handler threw", { tool: tool.name, ...describeError(error) });
  return toolError(`Tool ${tool.name} failed unexpectedly. Reference: ${scope.traceId}`) as JsonObject;
}

/** Validates a tool's result against its `output` schema; a mismatch is a server bug (-32603), never sent as is. */
export function checkedResult(tool: Tool, result: ToolResult, scope: LogScope): JsonObject {
  if (!isObject(result)) throw new Error(`Tool ${tool.name} returned ${typeof result}, expected a ToolResult object`);
  const out: JsonObject = { ...result, content: result.content ?? [] };
  if (tool.output && !result.isError) {
    const parsed = tool.output.safeParse(result.structuredContent);
    if (!parsed.success) {
      log(scope, "error", "structuredContent does not match outputSchema", {
        tool: tool.name,
        issues: describeIssues(parsed.error as z.core.$ZodError),
      });
      throw new RpcError(ErrorCode.InternalError, INTERNAL_ERROR_MESSAGE, undefined, 500);
    }
    out.structuredContent = parsed.data;
  }
  // Clients that ignore structuredContent still get the data, as a text block of its JSON (spec: SHOULD).
  if (out.structuredContent !== undefined) out.content = withJsonText(out.content as ContentBlock[], out.structuredContent);
  return out;
}

/** `content` with the serialised JSON of `structured` appended, unless a text block already holds exactly that JSON. */
function withJsonText(content: ContentBlock[], structured: unknown): ContentBlock[] {
  const json = JSON.stringify(structured);
  return content.some((block) => block.type === "text" && block.text === json) ? content : [...content, text(json)];
}
