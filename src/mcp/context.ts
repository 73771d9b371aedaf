/**
 * @module context
 * The context every tool, resource and prompt handler receives: who is calling, what their client supports, a
 * cancellation signal, and request-scoped progress and log notifications.
 */
import type { Config } from "./config";
import type { RequestMeta } from "./envelope";
import type { Interactive } from "./input";
import { LOG_LEVELS, type ClientCapabilities, type Implementation, type LegacyVersion, type LogLevel, type RequestId } from "./protocol";
import { createPublisher, type Publisher } from "./publish";
import type { Reply } from "./reply";

/** The caller. Anonymous unless authorization is turned on. */
export interface Principal {
  readonly id: string;
  readonly scopes: readonly string[];
  readonly authenticated: boolean;
}

export const ANONYMOUS: Principal = Object.freeze({ id: "anonymous", scopes: Object.freeze([]), authenticated: false });

export interface HandlerContext {
  env: Env;
  /** Aborted when the client cancels (closes the response stream or the connection). */
  signal: AbortSignal;
  principal: Principal;
  client: { protocolVersion: string; capabilities: ClientCapabilities; info?: Implementation };
  /** The JSON-RPC id of this request (client-chosen, so not unique across requests). */
  requestId: RequestId;
  /** The server's id for this HTTP request; the client sees it in the `Mcp-Request-Id` header. Quote it in logs. */
  traceId: string;
  /** Reports progress when the client asked for it (`_meta.progressToken`); otherwise does nothing. */
  progress(progress: number, total?: number, message?: string): void;
  /** Sends a log message when the client asked for logs at this level or below; otherwise does nothing. */
  log(level: LogLevel, data: unknown, logger?: string): void;
  /** Keeps the Worker alive for background work that must finish after the response. */
  waitUntil(promise: Promise<unknown>): void;
  /** Tells `subscriptions/listen` streams, in every isolate, that something changed. */
  publish: Publisher;
}

/** Everything the engine knows about one request while it is served. */
export interface RequestScope {
  traceId: string;
  request: Request;
  env: Env;
  execution: ExecutionContext;
  config: Config;
  requestId: RequestId;
  method: string;
  meta: RequestMeta;
  principal: Principal;
  reply: Reply;
  /** Runs handlers that may ask for input: MRTR rounds (2026-07-28) or server-to-client requests (legacy session). */
  interactive: Interactive;
  /** Which wire the request came on; result shapes and error statuses differ between them. */
  era: Era;
}

/** "modern" is 2026-07-28; a legacy era is the 2025 revision in use for the request. */
export type Era = "modern" | LegacyVersion;

export function handlerContext(scope: RequestScope): HandlerContext {
  const { meta, reply } = scope;
  let lastProgress = -Infinity;
  return {
    env: scope.env,
    signal: reply.signal,
    principal: scope.principal,
    client: { protocolVersion: meta.protocolVersion, capabilities: meta.clientCapabilities, info: meta.clientInfo },
    requestId: scope.requestId,
    traceId: scope.traceId,
    progress(progress, total, message) {
      // Why: progress MUST increase, so a stale or repeated value is dropped rather than sent.
      if (meta.progressToken === undefined || !(progress > lastProgress)) return;
      lastProgress = progress;
      const params: Record<string, unknown> = { progressToken: meta.progressToken, progress };
      if (total !== undefined) params.total = total;
      if (message !== undefined) params.message = message;
      reply.notify({ jsonrpc: "2.0", method: "notifications/progress", params });
    },
    log(level, data, logger) {
      // Why: without `_meta.logLevel` the server MUST NOT send notifications/message for this request.
      if (meta.logLevel === undefined || LOG_LEVELS.indexOf(level) < LOG_LEVELS.indexOf(meta.logLevel)) return;
      const params: Record<string, unknown> = { level, data };
      if (logger !== undefined) params.logger = logger;
      reply.notify({ jsonrpc: "2.0", method: "notifications/message", params });
    },
    waitUntil: (promise) => scope.execution.waitUntil(promise),
    publish: createPublisher(scope.env, scope.principal.id, scope.config.listen.globalShards),
  };
}
