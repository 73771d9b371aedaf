/**
 * @module context
 * The context every tool, resource and prompt handler receives: who is calling, what their client supports, a
 * cancellation signal, and request-scoped progress and log notifications.
 */
import { ANONYMOUS, type Principal } from "../auth/principal";
import type { EngineBindings } from "../bindings";
import type { Config } from "../config";
import type { HttpExchange } from "../http/exchange";
import type { Reply } from "../http/reply";
import type { InputRunner } from "../input/ask";
import { createPublisher, type HandleOf, type Publisher } from "../listen/publish";
import type { RequestMeta } from "../protocol/envelope";
import {
  type ClientCapabilities,
  type Implementation,
  type JsonObject,
  type LegacyVersion,
  LOG_LEVELS,
  type LogLevel,
  type RequestId,
} from "../protocol/wire";

export interface HandlerContext {
  /** The app's bindings: the `Env` that `wrangler types` generates from wrangler.toml. */
  env: Env;
  /**
   * Aborted when the client cancels: on 2026-07-28 by closing the response stream or the connection; on 2025
   * revisions by `notifications/cancelled` (in a session only; a dropped connection is not cancellation there).
   */
  signal: AbortSignal;
  principal: Principal;
  client: { protocolVersion: string; capabilities: ClientCapabilities; info?: Implementation };
  /** The JSON-RPC id of this request (client-chosen, so not unique across requests). */
  requestId: RequestId;
  /** The server's id for this HTTP request; the client sees it in the `X-Request-Id` header. Quote it in logs. */
  traceId: string;
  /** Reports progress when the client asked for it (`_meta.progressToken`); otherwise does nothing. */
  progress(progress: number, total?: number, message?: string): void;
  /**
   * Sends a log message to a 2025 client that asked for logs at this level or below; otherwise does nothing.
   * 2026-07-28 clients get none: logging is deprecated there and this server does not declare it.
   */
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
  env: EngineBindings;
  execution: ExecutionContext;
  config: Config;
  requestId: RequestId;
  method: string;
  meta: RequestMeta;
  principal: Principal;
  reply: Reply;
  /** Runs handlers that may ask for input: MRTR rounds (2026-07-28) or server-to-client requests (legacy session). */
  runWithInput: InputRunner;
  /** Which wire the request came on; result shapes and error statuses differ between them. */
  era: Era;
  /** The part of a resource URI a subscription must name to hear about it (the server's `ResourceIndex.handleOf`). */
  handleOf: HandleOf;
  /**
   * Takes log messages when `meta.logLevel` is not known up front: a 2025 session's level may have been set since
   * initialize and is read only when a handler first logs (legacy/held-logs.ts). Never set on the 2026-07-28 path.
   */
  heldLog?: (level: LogLevel, message: JsonObject) => void;
}

/** "stateless" is the 2026-07-28 wire (per-request `_meta`); a legacy era is the 2025 revision in use. */
export type Era = "stateless" | LegacyVersion;

/** What identifies one JSON-RPC request inside its HTTP exchange, in either era. */
export interface RequestInfo {
  id: RequestId;
  method: string;
  meta: RequestMeta;
  era: Era;
  reply: Reply;
  /** How this era asks the client for input, given the finished scope. */
  inputRunner: (scope: RequestScope) => InputRunner;
  handleOf: HandleOf;
  heldLog?: RequestScope["heldLog"];
}

/** The one way a request scope is built, for both eras. */
export function requestScope(exchange: HttpExchange, info: RequestInfo): RequestScope {
  const scope: RequestScope = {
    traceId: exchange.traceId,
    request: exchange.request,
    env: exchange.env,
    execution: exchange.execution,
    config: exchange.config,
    requestId: info.id,
    method: info.method,
    meta: info.meta,
    principal: exchange.principal ?? ANONYMOUS,
    reply: info.reply,
    era: info.era,
    handleOf: info.handleOf,
    runWithInput: (target, params, handler) => runner(target, params, handler),
    ...(info.heldLog && { heldLog: info.heldLog }),
  };
  const runner = info.inputRunner(scope);
  return scope;
}

/**
 * The `ctx` a handler receives. `extras` (the round's `ask`, a task's `checkpoint`...) are merged in here, never by
 * spreading the result: a spread would read `signal` and start watching the client for every call.
 */
export function handlerContext<X extends object = object>(scope: RequestScope, extras?: X): HandlerContext & X {
  const { meta, reply } = scope;
  let lastProgress = -Infinity;
  return {
    // The Worker's env object is the app's `Env`; the engine itself only reads the optional EngineBindings.
    env: scope.env as Env,
    // A getter: reading the signal is what starts watching for the client going away (see Reply.signal).
    get signal() {
      return reply.signal;
    },
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
      // Why: a server that sends notifications/message MUST declare `logging`, and on 2026-07-28 it is not declared
      // (deprecated: new implementations SHOULD NOT adopt it).
      if (scope.era === "stateless") return;
      const params: JsonObject = { level, data };
      if (logger !== undefined) params.logger = logger;
      const message = { jsonrpc: "2.0", method: "notifications/message", params };
      // Why: without a level the client asked for, no log message may be sent; a 2025 session whose level is
      // stored (not yet read for this request) decides later, in `heldLog`.
      if (meta.logLevel === undefined) return scope.heldLog?.(level, message);
      if (reachesLevel(level, meta.logLevel)) reply.notify(message);
    },
    waitUntil: (promise) => scope.execution.waitUntil(promise),
    publish: createPublisher(scope.env.SUBSCRIPTIONS, scope.principal, scope.handleOf, scope),
    ...(extras as X),
  };
}

/** Whether a message at `level` is at or above the `minimum` the client asked for. */
export function reachesLevel(level: LogLevel, minimum: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(minimum);
}
