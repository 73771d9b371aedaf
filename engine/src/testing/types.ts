/**
 * @module testing/types
 * The shapes the test client hands back, typed loosely on purpose: a test asserts on what the server sent, so
 * every field the server may add stays reachable, and a content block's `text` can be read without narrowing.
 */
import type { Json } from "./wire";

/**
 * One content block of a tool result or prompt message (`text`, `image`, `resource_link`, `resource`...).
 *
 * @example
 * const [first]: ContentBlock[] = (await client.callTool("add_note", args)).content;
 * expect(first).toMatchObject({ type: "text", text: expect.stringContaining("Added note") });
 */
export type ContentBlock = Json & { type: string; text?: string; uri?: string; name?: string; mimeType?: string; data?: string };

/**
 * A `tools/call` result. `isError: true` is a tool that failed: a result to assert on, not an exception. `S` types
 * `structuredContent`; left out, a test reads the tool's data without declaring its shape first.
 *
 * @example
 * const created: CallToolResult<{ notebook_id: string }> = await client.callTool("create_notebook");
 * expect((await client.callTool("get_note", { notebook_id: "nb_unknown", note_id: "n_0" })).isError).toBe(true);
 */
// biome-ignore lint/suspicious/noExplicitAny: the default lets a test read structuredContent as the tool returned it.
export interface CallToolResult<S = any> {
  resultType?: string;
  content: ContentBlock[];
  structuredContent?: S;
  isError?: boolean;
  _meta?: Json;
  [field: string]: unknown;
}

/**
 * A `resources/read` result.
 *
 * @example
 * const { contents, cacheScope }: ReadResourceResult = await client.readResource("notes://guide");
 */
export interface ReadResourceResult {
  contents: (Json & { uri: string; mimeType?: string; text?: string; blob?: string })[];
  ttlMs?: number;
  cacheScope?: "public" | "private";
  [field: string]: unknown;
}

/**
 * A `prompts/get` result.
 *
 * @example
 * const { messages }: GetPromptResult = await client.getPrompt("review_notes", { notebook_id });
 */
export interface GetPromptResult {
  description?: string;
  messages: { role: "user" | "assistant"; content: ContentBlock }[];
  [field: string]: unknown;
}

/**
 * A `completion/complete` result.
 *
 * @example
 * const { completion }: CompleteResult = await client.complete({ type: "ref/prompt", name: "review_notes" }, { name: "topic", value: "la" });
 */
export interface CompleteResult {
  completion: { values: string[]; total?: number; hasMore?: boolean };
  [field: string]: unknown;
}

/**
 * A task as `tools/call` created it or `tasks/get` reports it (Tasks extension).
 *
 * @example
 * const seen: Task = await task.until((polled) => polled.status === "input_required");
 * expect(seen.inputRequests).toHaveProperty("apply");
 */
export interface Task {
  taskId: string;
  status: "working" | "input_required" | "completed" | "failed" | "cancelled";
  statusMessage?: string;
  createdAt?: string;
  lastUpdatedAt?: string;
  ttlMs?: number;
  pollIntervalMs?: number;
  /** The tool's result, once `completed`. */
  result?: CallToolResult;
  /** What went wrong, once `failed`. */
  error?: { code: number; message: string; data?: unknown };
  /** The questions the task waits for, while `input_required`. */
  inputRequests?: Record<string, { method: string; params?: Json }>;
  [field: string]: unknown;
}

/**
 * A reference for `completion/complete`: a prompt by name, or a resource template by its URI template.
 *
 * @example
 * const template: CompletionRef = { type: "ref/resource", uri: "note://{notebook_id}/{note_id}" };
 */
export type CompletionRef = { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string };

/**
 * A list method that pages with `cursor` and `nextCursor`.
 *
 * @example
 * const method: ListMethod = "resources/list";
 * const pages = await client.pages(method);
 */
export type ListMethod = "tools/list" | "resources/list" | "resources/templates/list" | "prompts/list";

/**
 * A log level (`io.modelcontextprotocol/logLevel` on 2026-07-28; `logging/setLevel` on 2025).
 *
 * @example
 * const level: LogLevel = "info";
 * await legacyClient.request("logging/setLevel", { level });
 */
export type LogLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";
