/**
 * @module testing/channel
 * What the client's two eras share: the setup every request is sent with, the options of one call, and the way
 * a request's own notifications (progress, log messages) reach the test.
 */
import type { Answerers, AnswerLayer } from "./answers";
import type { Fetcher, RpcMessage } from "./transport";
import type { LogLevel } from "./types";
import { isObject, type Json } from "./wire";

/**
 * Options of one call (`callTool`, `readResource`, `getPrompt`, `request`...). Answerers given here come before the client's.
 *
 * @example
 * const reports: string[] = [];
 * await client.callTool("summarize_notes", { notebook_id }, { onProgress: (report) => reports.push(report.message ?? ""), onSample: () => sampled("Short.") });
 */
export interface CallOptions extends Answerers {
  /** Asks for progress (a `progressToken` in `_meta`) and gets each `notifications/progress` params, in order. */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** Gets every notification on the request's stream (progress, log messages), in order. */
  onNotification?: (notification: RpcMessage) => void;
  /** 2026-07-28: asks for log messages at this level and above (`io.modelcontextprotocol/logLevel`). */
  logLevel?: LogLevel;
  /** More `_meta` keys for this request (e.g. `traceparent`). */
  meta?: Json;
  /** At most this many rounds of questions for this call (default: the client's `maxRounds`). */
  maxRounds?: number;
}

/** Everything a request is sent with, fixed when the client connects. */
export interface ClientSetup {
  fetcher: Fetcher;
  url: string;
  /** Added to every request (e.g. `authorization`). */
  headers: Record<string, string>;
  capabilities: Json;
  clientInfo: { name: string; version: string };
  /** The client's own answerers (after a call's). */
  answers: AnswerLayer;
  maxRounds: number;
  tasks: { pollIntervalMs?: number; maxPolls: number };
  nextId(): number;
}

/** One call on its way: its options, who answers its questions, and how errors name it. */
export interface Call {
  options: CallOptions;
  layers: AnswerLayer[];
  /** e.g. `tools/call delete_note`. */
  label: string;
  /** Headers for this request only (a tool call's `Mcp-Param-*`). */
  headers?: Record<string, string>;
}

/** Hands a notification that came on a request's stream to the call's callbacks. */
export function deliver(notification: RpcMessage, options: CallOptions, progressToken: string | undefined): void {
  options.onNotification?.(notification);
  const params = notification.params;
  if (notification.method === "notifications/progress" && isObject(params) && params.progressToken === progressToken) {
    const { progress, total, message } = params;
    options.onProgress?.({
      progress: Number(progress),
      ...(typeof total === "number" && { total }),
      ...(typeof message === "string" && { message }),
    });
  }
}
