/**
 * @module testing/types
 * The shapes the test client hands back, typed loosely on purpose: a test asserts on what the server sent, so
 * every field the server may add stays reachable, and a content block's `text` can be read without narrowing.
 */
import type { Json } from "./wire";

/** One content block of a tool result or prompt message (`text`, `image`, `resource_link`, `resource`...). */
export type ContentBlock = Json & { type: string; text?: string; uri?: string; name?: string; mimeType?: string; data?: string };

/**
 * A `tools/call` result. `isError: true` is a tool that failed: a result to assert on, not an exception. `S` types
 * `structuredContent`; left out, a test reads the tool's data without declaring its shape first.
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

/** A `resources/read` result. */
export interface ReadResourceResult {
  contents: (Json & { uri: string; mimeType?: string; text?: string; blob?: string })[];
  ttlMs?: number;
  cacheScope?: "public" | "private";
  [field: string]: unknown;
}

/** A `prompts/get` result. */
export interface GetPromptResult {
  description?: string;
  messages: { role: "user" | "assistant"; content: ContentBlock }[];
  [field: string]: unknown;
}

/** A `completion/complete` result. */
export interface CompleteResult {
  completion: { values: string[]; total?: number; hasMore?: boolean };
  [field: string]: unknown;
}

/** A task as `tools/call` created it or `tasks/get` reports it (Tasks extension). */
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

/** A reference for `completion/complete`: a prompt by name, or a resource template by its URI template. */
export type CompletionRef = { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string };

/** A list method that pages with `cursor` and `nextCursor`. */
export type ListMethod = "tools/list" | "resources/list" | "resources/templates/list" | "prompts/list";

/** A log level (`io.modelcontextprotocol/logLevel`). */
export type LogLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";
