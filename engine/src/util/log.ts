/**
 * @module util/log
 * Structured logs: one JSON object per line, which Workers Logs indexes by field. Never log secrets, tokens,
 * arguments or personal data; log ids, names, codes and reasons.
 */

export interface LogScope {
  /** Server-generated id of the HTTP request, returned to the client in the `X-Request-Id` header. */
  traceId: string;
  /** The JSON-RPC id; chosen by the client, so not unique across requests. */
  /** The JSON-RPC id of the request (a string or an integer). */
  requestId?: string | number;
  method?: string;
}

export function log(
  scope: LogScope | undefined,
  level: "info" | "warn" | "error",
  message: string,
  fields: Record<string, unknown> = {},
): void {
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

/** What one HTTP request was, filled in as it is served; written once as the request's access log line. */
export interface RequestRecord {
  traceId: string;
  started: number;
  /** ACCESS_LOG: which requests are written. */
  policy: "all" | "errors" | "off";
  era?: string;
  method?: string;
  /** Tool or prompt name (never arguments, URIs or anything a user typed). */
  name?: string;
  /** The machine client calling (its client id), when the caller is one: a service is named, a person never is. */
  client?: string;
  status?: number;
  code?: number;
  logged?: boolean;
}

/**
 * One structured line per request: id, era, method, tool, the machine client when one calls, HTTP status, JSON-RPC
 * error code, duration, and for a request refused before its method ran (403, 413, 429...) the refusal's `reason`.
 *
 * Why `errors` is the default (ACCESS_LOG): Workers' invocation logs already record every request (method, URL,
 * status, duration) and traces record every MCP request's method, tool and error code, while a line per request
 * was the largest single cost on the request path (see bench/README.md). A failure's line still carries what
 * neither has: the JSON-RPC error code of a request answered with HTTP 200 (2025 revisions) and the trace id.
 */
export function logRequest(record: RequestRecord, status: number, code?: number, reason?: string): void {
  if (record.logged) return;
  record.logged = true;
  if (record.policy === "off" || (record.policy === "errors" && status < 400 && code === undefined)) return;
  console.log(
    JSON.stringify({
      level: status >= 500 ? "error" : "info",
      message: "mcp request",
      traceId: record.traceId,
      era: record.era,
      method: record.method,
      name: record.name,
      client: record.client,
      status,
      code,
      ...(reason !== undefined && { reason }),
      durationMs: Date.now() - record.started,
    }),
  );
}
