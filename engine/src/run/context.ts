/**
 * @module run/context
 * The one `ctx` every tool, resource and prompt handler receives, whichever path runs it: a request on either era
 * or a task's run in its Durable Object. The path hands in a `Channel` (where progress, log messages and events go,
 * and which signal tells of cancellation) and the handler's input API; the handler cannot tell which path it is on.
 */

import type { InputApi } from "../ask/questions";
import type { Principal } from "../wire/principal";
import type { ClientCapabilities, Implementation, JsonObject, LogLevel, RequestId } from "../wire/types";

/**
 * Who hears about a change to a resource (`ctx.publish`): `"caller"`, the listeners of the principal whose data it
 * is (the default), or `"everyone"`, every listener (for public resources). With authorization off every caller is
 * the same anonymous principal, so `"caller"` then reaches every anonymous listener too.
 *
 * @example
 * ```ts
 * export async function announceStatus(ctx: HandlerContext): Promise<void> {
 *   const audience: Audience = "everyone"; // status://service is the same for every caller
 *   await ctx.publish.resourceUpdated("status://service", audience);
 * }
 * ```
 */
export type Audience = "caller" | "everyone";

/**
 * `ctx.publish`: tells `subscriptions/listen` streams (and the GET streams of 2025 sessions that subscribed), in
 * every isolate, that something changed. Publish after your write has committed: publishing is best effort, and a
 * failure is logged, never turned into a failed call (no method rejects). Without the SUBSCRIPTIONS binding, each
 * method does nothing.
 *
 * @example
 * ```ts
 * export async function announceRename(publish: Publisher, uri: string): Promise<void> {
 *   await Promise.all([publish.resourceUpdated(uri), publish.resourcesListChanged()]);
 * }
 * ```
 */
export interface Publisher {
  /** The list of tools changed (for everyone): listeners read `tools/list` again. */
  toolsListChanged(): Promise<void>;
  /** The list of prompts changed (for everyone). */
  promptsListChanged(): Promise<void>;
  /** The list of resources changed; by default only for the caller's listeners (`audience`). */
  resourcesListChanged(audience?: Audience): Promise<void>;
  /**
   * The resource at `uri` changed; heard by subscriptions to that URI, or to a URI above it that names every handle
   * of the template `uri` matches. By default only the caller's listeners (`audience`).
   */
  resourceUpdated(uri: string, audience?: Audience): Promise<void>;
}

/**
 * `ctx.client`: what the handler's client declared, as the request (or, in a task, the request that created it)
 * said: on 2026-07-28 in the request's `_meta`, on 2025 revisions at `initialize`.
 *
 * @example
 * ```ts
 * export function clientLabel(client: ClientView): string {
 *   return `${client.info?.name ?? "an unnamed client"} speaking ${client.protocolVersion}`;
 * }
 * ```
 */
export interface ClientView {
  /** The protocol revision the request speaks: `2026-07-28`, or a 2025 revision such as `2025-11-25`. */
  protocolVersion: string;
  /** What the client can do (elicitation, sampling, roots, extensions). Branch on `ctx.supports()` rather than on these. */
  capabilities: ClientCapabilities;
  /** The client's name and version, as it introduced itself (when it did). */
  info?: Implementation;
}

/**
 * The context every handler gets (a tool's `handler`, a resource's `read` and `list`, a prompt's `get`, a
 * completer), whichever path runs it: a 2026-07-28 request, a 2025 session, or a task's run in its Durable Object.
 * Tools, prompts and resource reads get it with the input API as well (`ToolContext`, `PromptContext`,
 * `ResourceContext`); name `HandlerContext` in a helper that needs only the request's side of it.
 *
 * @example
 * ```ts
 * export function auditLine(ctx: HandlerContext, action: string): string {
 *   return `${ctx.principal.id} ${action} (request ${ctx.traceId})`;
 * }
 * ```
 * @see docs/architecture.md
 */
export interface HandlerContext {
  /** The app's bindings: the `Env` that `wrangler types` generates from wrangler.toml. */
  env: Env;
  /**
   * Aborted when the run is cancelled: on 2026-07-28 when the client closes the response stream or the connection;
   * on 2025 revisions by `notifications/cancelled` (in a session; a dropped connection is not cancellation there);
   * in a task by `tasks/cancel`. Check it (or call `ctx.checkpoint()`) before each write.
   */
  signal: AbortSignal;
  /** Who is calling: anonymous unless authorization is on. Key every stored thing by `principal.id`. */
  principal: Principal;
  /** What the client declared: its protocol revision, capabilities and name. */
  client: ClientView;
  /** The JSON-RPC id of this request (client-chosen, so not unique across requests). */
  requestId: RequestId;
  /** The server's id for this HTTP request; the client sees it in the `X-Request-Id` header. Quote it in logs. */
  traceId: string;
  /**
   * Reports progress: a notification when the client asked for it (`_meta.progressToken`), a task's
   * `statusMessage` in a task. Values must increase; a stale or repeated one is dropped.
   */
  progress(progress: number, total?: number, message?: string): void;
  /**
   * Sends a log message to a 2025 client that asked for logs (`logging/setLevel`) at this level or a less severe
   * one; otherwise does nothing.
   * 2026-07-28 clients get none: logging is deprecated there and this server does not declare it.
   */
  log(level: LogLevel, data: unknown, logger?: string): void;
  /** Keeps the Worker alive for background work that must finish after the response. */
  waitUntil(promise: Promise<unknown>): void;
  /** Tells `subscriptions/listen` streams, in every isolate, that something changed. */
  publish: Publisher;
  /**
   * Ends the run at once when it was cancelled (throws; let it pass). In a task it also saves `ctx.state` and, once
   * the run has used its time slice, ends the run: the next run starts the handler again from the top with the
   * saved state. Elsewhere, only the cancellation check.
   */
  checkpoint(): Promise<void>;
}

/** Everything a handler's context is made of, as its path provides it. */
export interface Channel {
  env: object;
  principal: Principal;
  client: ClientView;
  requestId: RequestId;
  traceId: string;
  /** The run's cancellation signal; a getter on a request, where reading it starts watching the client. */
  readonly signal: AbortSignal;
  /** Where progress goes once it passed the guard (increasing values only). */
  progress(progress: number, total?: number, message?: string): void;
  log(level: LogLevel, data: unknown, logger?: string): void;
  publish: Publisher;
  waitUntil(promise: Promise<unknown>): void;
  checkpoint(): Promise<void>;
}

/** The input API of a callback that cannot ask (completion, listing): asking there is a programming error. */
const NO_INPUT: InputApi = {
  state: {},
  supports: () => false,
  ask: () => Promise.reject(new Error("ctx.ask is only available to tool, prompt and resource read handlers")),
};

/**
 * The `ctx` of a handler: the channel, its input API, and the one progress guard.
 *
 * One object per handler run, its data as own properties and its methods made on first read, each bound to it once
 * (so `const { ask, progress } = ctx` works, and `ctx.ask === ctx.ask`). Why not an object literal with a closure
 * per method: most handlers use one or two members, and every request built all of them (the literal's accessors
 * and closures were the largest allocation of a plain call after the body).
 */
export function handlerContext(channel: Channel, input: InputApi = NO_INPUT): HandlerContext & InputApi {
  return new Context(channel, input);
}

class Context implements HandlerContext, InputApi {
  // The Worker's env object is the app's `Env`; the engine itself only reads the optional bindings it knows.
  readonly env: Env;
  readonly principal: Principal;
  readonly client: ClientView;
  readonly requestId: RequestId;
  readonly traceId: string;
  readonly #channel: Channel;
  readonly #input: InputApi;
  #lastProgress = -Infinity;
  // Each method as handed out, made on its first read.
  #progress: HandlerContext["progress"] | undefined;
  #log: HandlerContext["log"] | undefined;
  #waitUntil: HandlerContext["waitUntil"] | undefined;
  #checkpoint: HandlerContext["checkpoint"] | undefined;
  #ask: InputApi["ask"] | undefined;
  #supports: InputApi["supports"] | undefined;

  constructor(channel: Channel, input: InputApi) {
    this.env = channel.env as Env;
    this.principal = channel.principal;
    this.client = channel.client;
    this.requestId = channel.requestId;
    this.traceId = channel.traceId;
    this.#channel = channel;
    this.#input = input;
  }

  /** Read through, never copied: on a request, reading the signal is what starts watching the client. */
  get signal(): AbortSignal {
    return this.#channel.signal;
  }

  /** Read through: a request's publisher is built when a handler first publishes, not for every call (most never do). */
  get publish(): Publisher {
    return this.#channel.publish;
  }

  get state(): JsonObject {
    return this.#input.state;
  }

  set state(value: JsonObject) {
    this.#input.state = value;
  }

  get progress(): HandlerContext["progress"] {
    this.#progress ??= (progress, total, message) => {
      // Why: progress MUST increase, so a stale or repeated value is dropped rather than sent.
      if (!(progress > this.#lastProgress)) return;
      this.#lastProgress = progress;
      this.#channel.progress(progress, total, message);
    };
    return this.#progress;
  }

  get log(): HandlerContext["log"] {
    this.#log ??= (level, data, logger) => this.#channel.log(level, data, logger);
    return this.#log;
  }

  get waitUntil(): HandlerContext["waitUntil"] {
    this.#waitUntil ??= (promise) => this.#channel.waitUntil(promise);
    return this.#waitUntil;
  }

  get checkpoint(): HandlerContext["checkpoint"] {
    this.#checkpoint ??= () => this.#channel.checkpoint();
    return this.#checkpoint;
  }

  get ask(): InputApi["ask"] {
    this.#ask ??= (requests, options) => this.#input.ask(requests, options);
    return this.#ask;
  }

  get supports(): InputApi["supports"] {
    this.#supports ??= (kind, options) => this.#input.supports(kind, options);
    return this.#supports;
  }
}
