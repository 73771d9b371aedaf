/**
 * @module run/request
 * One request while its method runs, in either era (`RequestScope`, built once by the transport that received
 * it); the channel its handler talks through (`requestChannel`): progress and log notifications on the reply,
 * events through the transport's publisher, and the reply's cancellation signal; and `Asking`, the way the era that
 * received the request answers its handler's questions, which that transport passes to the method it runs.
 */

import type { InputApi } from "../ask/questions";
import type { Config } from "../config/config";
import type { HttpExchange } from "../http/exchange";
import type { Reply } from "../http/reply";
import type { RequestMeta } from "../wire/envelope";
import { ErrorCode, RpcError } from "../wire/errors";
import { ANONYMOUS, type Principal } from "../wire/principal";
import { type JsonObject, type LegacyVersion, LOG_LEVELS, type LogLevel, type RequestId } from "../wire/types";
import { type Channel, type ClientView, type HandlerContext, handlerContext, type Publisher } from "./context";
import { cancellationCheckpoint, type EndRun, type Run, type RunEnd } from "./end";

/** Everything the engine knows about one request while it is served. */
export interface RequestScope {
  traceId: string;
  request: Request;
  /** The Worker's bindings; each feature reads its own (`hubsOf`, `tasksOf`, ...). */
  env: object;
  execution: ExecutionContext;
  config: Config;
  requestId: RequestId;
  method: string;
  meta: RequestMeta;
  principal: Principal;
  reply: Reply;
  /** Which wire the request came on; result shapes and error statuses differ between them. */
  era: Era;
  /** How this request's handlers tell listeners of a change, as the caller (the transport builds it on first use). */
  publisher(): Publisher;
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
  /** Builds the request's publisher (listen/publish.ts), once a handler publishes. */
  publisher: () => Publisher;
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
    publisher: () => (publisher ??= info.publisher()),
    ...(info.heldLog && { heldLog: info.heldLog }),
  };
  let publisher: Publisher | undefined;
  return scope;
}

/** What one request's handler run is bound to: its method, the tool or prompt name or resource URI, the arguments. */
export interface RoundTarget {
  method: "tools/call" | "prompts/get" | "resources/read";
  /** Tool or prompt name, or resource URI. */
  name: string;
  /** The request's arguments exactly as sent; the 2026-07-28 state is bound to their digest. */
  args: unknown;
}

/**
 * How a request's handler run ended, as the request answers it: with the handler's value (`retried`: it continued
 * an earlier round), with the `input_required` result that ends this round (2026-07-28), handed over to a task
 * (with the answers, in their wire form, and the `ctx.state` it had so far), or cancelled.
 */
export type Asked<T> =
  | { kind: "done"; value: T; retried: boolean }
  | { kind: "input_required"; result: JsonObject }
  | { kind: "hands-over"; answers: JsonObject; state: JsonObject }
  | { kind: "cancelled" };

/**
 * How the era that received a request answers its handlers' questions: the 2026-07-28 rounds (modern/rounds.ts:
 * answers in signed state, a missing one ends the request with `input_required`) or a 2025 session's live requests
 * (legacy/live-answers.ts: each question sent to the client, awaited in place). The transport passes its own to the
 * method it runs; the method runs each handler through it.
 */
export interface Asking {
  /**
   * Runs one handler for `target` to its end (`runOnRequest`): `handler` gets its `ctx`, whose `ask` answers the
   * era's way. `params` are the request's (a round's answers and state come in them). `handsOver`: the run's first
   * `ctx.progress()` or `ctx.checkpoint()` hands it over to a task (tasks/start.ts). `admit`: see `AskingOptions`.
   * A handler that returns a value, in a round that awaits nothing, is answered without a promise.
   */
  run<T>(
    target: RoundTarget,
    params: JsonObject,
    handler: (ctx: RequestContext) => T | Promise<T>,
    options?: AskingOptions<T>,
  ): Asked<T> | Promise<Asked<T>>;
}

export interface AskingOptions<T = unknown> {
  handsOver?: boolean;
  /**
   * Admits the call once per logical call, before its handler runs: a tool's budget is charged here. A value answers
   * the call in the handler's place (it is done, nothing ran); undefined lets the handler run. A 2025 request is one
   * call and admits itself; a multi round-trip call is admitted on its first round, and a retry skips it only when
   * its verified `requestState` says the call was admitted and is the first retry to claim so (modern/rounds.ts).
   */
  admit?: () => Promise<T | undefined>;
}

/** The `ctx` of a request's handler: its context and its input API. */
export type RequestContext = HandlerContext & InputApi;

/**
 * Runs a request's handler in `run`, with its `ctx` over the request's channel and `input`, and says how it ended
 * (`Run.until`). With `handsOver`, its first progress report or checkpoint hands the run over to a task.
 */
export function runOnRequest<T>(
  run: Run,
  scope: RequestScope,
  input: InputApi,
  handler: (ctx: RequestContext) => T | Promise<T>,
  options?: AskingOptions,
): RunEnd<T> | Promise<RunEnd<T>> {
  const overrides = options?.handsOver ? handingOver(run) : undefined;
  return run.until(() => handler(handlerContext(requestChannel(scope, run.end, overrides), input)));
}

/** A task's start: the run's first progress report or checkpoint ends it, handing it over to the task. */
function handingOver(run: Run): Pick<Channel, "progress" | "checkpoint"> {
  const handOver = (): never => run.end({ kind: "hands-over" });
  return { progress: handOver, checkpoint: async () => handOver() };
}

/**
 * The answer of a prompt's or a resource read's run: its value, or its round's `input_required` result. A cancelled
 * run has no reader (the reply sends nothing once the client is gone) and answers an error; only a task's start
 * hands over, so another method's run never does.
 */
export function answerOf<T>(asked: Asked<T>): T | JsonObject {
  switch (asked.kind) {
    case "done":
      return asked.value;
    case "input_required":
      return asked.result;
    case "cancelled":
      throw new RpcError(ErrorCode.InternalError, "The request was cancelled");
    case "hands-over":
      throw new Error("Only a task's start hands over");
  }
}

/**
 * The channel a request's handler talks through: progress as notifications (when the client asked for them), log
 * messages to 2025 clients that set a level, events through the hub, and the reply's cancellation signal.
 * `overrides`: a task's start hands the run over at its first progress report or checkpoint (`runOnRequest`).
 */
export function requestChannel(scope: RequestScope, end: EndRun, overrides?: Pick<Channel, "progress" | "checkpoint">): Channel {
  const channel = new RequestChannel(scope, end);
  return overrides ? Object.assign(channel, overrides) : channel;
}

/**
 * One object per run, its methods the class's: a call that never reports progress, logs, publishes or checks in
 * makes no function for any of them (a plain call's `ctx` is built over it for every request).
 */
class RequestChannel implements Channel {
  readonly env: object;
  readonly principal: Principal;
  readonly client: ClientView;
  readonly requestId: RequestId;
  readonly traceId: string;

  constructor(
    private readonly scope: RequestScope,
    private readonly end: EndRun,
  ) {
    const { meta } = scope;
    this.env = scope.env;
    this.principal = scope.principal;
    this.client = { protocolVersion: meta.protocolVersion, capabilities: meta.clientCapabilities, info: meta.clientInfo };
    this.requestId = scope.requestId;
    this.traceId = scope.traceId;
  }

  /** A getter: reading the signal is what starts watching for the client going away (see Reply.signal). */
  get signal(): AbortSignal {
    return this.scope.reply.signal;
  }

  progress(progress: number, total?: number, message?: string): void {
    const { progressToken } = this.scope.meta;
    if (progressToken === undefined) return;
    const params: Record<string, unknown> = { progressToken, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this.scope.reply.notify({ jsonrpc: "2.0", method: "notifications/progress", params });
  }

  log(level: LogLevel, data: unknown, logger?: string): void {
    const { scope } = this;
    // Why: a server that sends notifications/message MUST declare `logging`, and on 2026-07-28 it is not declared
    // (deprecated: new implementations SHOULD NOT adopt it).
    if (scope.era === "stateless") return;
    const params: JsonObject = { level, data };
    if (logger !== undefined) params.logger = logger;
    const message = { jsonrpc: "2.0", method: "notifications/message", params };
    // Why: without a level the client asked for, no log message may be sent; a 2025 session whose level is
    // stored (not yet read for this request) decides later, in `heldLog`.
    if (scope.meta.logLevel === undefined) scope.heldLog?.(level, message);
    else if (reachesLevel(level, scope.meta.logLevel)) scope.reply.notify(message);
  }

  waitUntil(promise: Promise<unknown>): void {
    this.scope.execution.waitUntil(promise);
  }

  /** A getter: the publisher is built when a handler first publishes. */
  get publish(): Publisher {
    return this.scope.publisher();
  }

  checkpoint(): Promise<void> {
    return cancellationCheckpoint(() => this.scope.reply.signal, this.end)();
  }
}

/** Whether a message at `level` is at or above the `minimum` the client asked for. */
export function reachesLevel(level: LogLevel, minimum: LogLevel): boolean {
  return LOG_LEVELS.indexOf(level) >= LOG_LEVELS.indexOf(minimum);
}
