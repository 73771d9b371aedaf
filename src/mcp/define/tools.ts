/**
 * @module tools
 * `defineTool`, and the `tools/list` and `tools/call` methods.
 */
import type * as z from "zod/mini";
import { requireToolScopes } from "../auth/authenticate";
import type { InputApi, RoundOutcome } from "../input/ask";
import { describeError, log } from "../log";
import { memoize } from "../memo";
import { isObject } from "../protocol/envelope";
import { ErrorCode, INTERNAL_ERROR_MESSAGE, invalidParams, RpcError, truncate } from "../protocol/errors";
import type { ContentBlock, Icon, JsonObject, ToolAnnotations } from "../protocol/wire";
import { text } from "./content";
import { type HandlerContext, handlerContext, type RequestScope } from "./context";
import type { Registry } from "./registry";
import { describeIssues, type ObjectSchema, toJsonSchema } from "./schema";

export type ToolContext = HandlerContext & InputApi;

export interface ToolResult<Structured = unknown> {
  content?: ContentBlock[];
  /** Required when the tool declares `output`; checked against it before it is sent. */
  structuredContent?: Structured;
  isError?: boolean;
  _meta?: JsonObject;
}

export interface ToolDefinition<In extends ObjectSchema, Out extends z.ZodMiniType | undefined> {
  /** 1-128 characters of A-Z a-z 0-9 _ - . ; unique within the server. */
  name: string;
  title?: string;
  /** What the tool does, written for the model that decides whether to call it. */
  description: string;
  /** Arguments; `z.strictObject` refuses unknown keys, which catches misspelled arguments. */
  input: In;
  /** Shape of `structuredContent`, when the tool returns structured data. */
  output?: Out;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  /** OAuth scopes a caller needs (when authorization is on); tools the caller may not use are not listed to it. */
  scopes?: string[];
  handler: (
    args: z.output<In>,
    ctx: ToolContext,
  ) => Promise<ToolResult<Out extends z.ZodMiniType ? z.input<Out> : never>> | ToolResult<Out extends z.ZodMiniType ? z.input<Out> : never>;
}

/** A tool with its types erased, as the engine holds it. */
export type Tool = ToolDefinition<ObjectSchema, z.ZodMiniType | undefined>;

/** Declares a tool. The types of `args` and `structuredContent` follow from the zod schemas. */
export function defineTool<In extends ObjectSchema, Out extends z.ZodMiniType | undefined = undefined>(
  definition: ToolDefinition<In, Out>,
): Tool {
  return definition as unknown as Tool;
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** Startup check: names follow the spec's rules (uniqueness is the registry's). A bad name stops the Worker. */
export function checkToolNames(tools: readonly Tool[]): void {
  for (const tool of tools) {
    if (!TOOL_NAME.test(tool.name)) throw new Error(`Tool name "${tool.name}" must be 1-128 characters of A-Za-z0-9_.-`);
  }
}

/** The `tools/list` entry of a tool, with its JSON Schemas derived once per isolate. */
export const describeTool = memoize((tool: Tool): JsonObject => {
  const listing: JsonObject = { name: tool.name, description: tool.description, inputSchema: toJsonSchema(tool.input, "input") };
  if (tool.title) listing.title = tool.title;
  if (tool.output) listing.outputSchema = toJsonSchema(tool.output, "output");
  if (tool.annotations) listing.annotations = tool.annotations;
  if (tool.icons) listing.icons = tool.icons;
  return listing;
});

/** A failed tool run, told to the model as a result it can read and act on. */
export function toolError(message: string): ToolResult<never> {
  return { content: [text(message)], isError: true };
}

export async function callTool(tools: Registry<Tool>, params: JsonObject, scope: RequestScope): Promise<JsonObject> {
  const name = params.name;
  if (typeof name !== "string") throw invalidParams('Invalid params: "name" must be a string');
  const tool = tools.get(name);
  if (!tool) throw invalidParams(`Unknown tool: ${truncate(name, 128)}`);
  requireToolScopes(scope.request, scope.config, scope.principal, tool);
  const args = params.arguments ?? {};
  if (!isObject(args)) throw invalidParams('Invalid params: "arguments" must be an object');

  // Why: argument errors are tool results, not protocol errors, so the model sees the message and can fix its call.
  const parsed = tool.input.safeParse(args);
  if (!parsed.success)
    return toolError(`Invalid arguments for tool ${name}: ${describeIssues(parsed.error as z.core.$ZodError)}`) as JsonObject;

  let outcome: RoundOutcome<ToolResult>;
  try {
    outcome = await scope.runWithInput({ method: "tools/call", name, args }, params, (input) =>
      Promise.resolve(tool.handler(parsed.data, { ...handlerContext(scope), ...input })),
    );
  } catch (error) {
    if (error instanceof RpcError) throw error;
    // Why: a crash inside a tool is reported to the model generically; the detail stays in the log.
    log(scope, "error", "tool handler threw", { tool: name, ...describeError(error) });
    return toolError(`Tool ${name} failed unexpectedly. Reference: ${scope.traceId}`) as JsonObject;
  }
  if (outcome.kind === "input_required") return outcome.result;
  return checkedResult(tool, outcome.value, scope);
}

/** Validates a tool's result against its `output` schema; a mismatch is a server bug (-32603), never sent as is. */
function checkedResult(tool: Tool, result: ToolResult, scope: RequestScope): JsonObject {
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
