/**
 * @module log
 * Structured logs: one JSON object per line, which Workers Logs indexes by field. Never log secrets, tokens,
 * arguments or personal data; log ids, names, codes and reasons.
 */
import type { RequestId } from "./protocol";

export interface LogScope {
  /** Server-generated id of the HTTP request, returned to the client in the `Mcp-Request-Id` header. */
  traceId: string;
  /** The JSON-RPC id; chosen by the client, so not unique across requests. */
  requestId?: RequestId;
  method?: string;
}

export function log(scope: LogScope | undefined, level: "info" | "warn" | "error", message: string, fields: Record<string, unknown> = {}): void {
  const line = JSON.stringify({
    level,
    message,
    traceId: scope?.traceId,
    rpcId: scope?.requestId,
    method: scope?.method,
    ...fields,
  });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}

/** The loggable part of an unexpected error: its class and message, without the stack for clients to see. */
export function describeError(error: unknown): Record<string, unknown> {
  if (error instanceof Error) return { error: error.name, detail: error.message, stack: error.stack };
  return { error: typeof error, detail: String(error) };
}
