/**
 * @module tasks/run
 * One run of a task's handler inside its Durable Object, with the same context a tool gets on a request:
 * `ctx.progress()` sets the task's statusMessage, `ctx.signal` aborts on `tasks/cancel`, and `ctx.ask()` returns
 * answers the task holds or ends the run with the questions (the task is then `input_required`). Runs start the
 * handler from the top, like multi round-trip rounds: keep side effects after the last question.
 */
import type { EngineBindings } from "../bindings";
import type { HandlerContext } from "../define/context";
import { checkedResult, crashResult, parseArguments, type ToolContext, type ToolResult, toolError } from "../define/tools";
import { jsonBytes } from "../encoding";
import { clientSupports, type InputApi, type InputRequest, requireSupport, toWire } from "../input/ask";
import { typedAnswer } from "../input/rounds";
import { createPublisher } from "../listen/publish";
import type { LogScope } from "../log";
import { RpcError } from "../protocol/errors";
import type { JsonObject } from "../protocol/wire";
import type { TaskRecord } from "./record";
import { serverNamed } from "./servers";
import { TASK_SETTINGS } from "./settings";

export type RunOutcome =
  | { kind: "completed"; result: JsonObject }
  | { kind: "failed"; error: { code: number; message: string; data?: unknown } }
  | { kind: "input_required"; pending: TaskRecord["pending"]; state: JsonObject }
  | { kind: "yield"; state: JsonObject };

/** What the object lends a run. */
export interface RunHost {
  env: EngineBindings;
  signal: AbortSignal;
  waitUntil(promise: Promise<unknown>): void;
  statusMessage(message: string): void;
  saveState(state: JsonObject): void;
}

/** Thrown by `ask` and `checkpoint` to end the run; caught here, handlers should not catch it. */
class EndRun extends Error {}

export async function runTask(record: TaskRecord, host: RunHost): Promise<RunOutcome> {
  const scope: LogScope = { traceId: record.traceId, requestId: record.requestId, method: "tools/call" };
  const server = serverNamed(record.server);
  const tool = server?.tools.get(record.tool);
  if (!tool) return { kind: "failed", error: { code: -32603, message: `Tool ${record.tool} is no longer served` } };
  const parsed = parseArguments(tool, record.args);
  if (!parsed.ok) return { kind: "completed", result: toolError(parsed.message) as JsonObject };

  const started = Date.now();
  let ended: "input_required" | "yield" | undefined;
  let pending: TaskRecord["pending"] = {};
  const asked = new Set<string>();
  const input: InputApi = {
    state: structuredClone(record.state),
    supports: (kind, options) => clientSupports(record.client.capabilities, kind, options),
    async ask(requests) {
      const missing: Record<string, InputRequest> = {};
      for (const [key, request] of Object.entries(requests)) {
        if (asked.has(key)) throw new Error(`Input key "${key}" was asked twice in one call`);
        asked.add(key);
        if (Object.hasOwn(record.answers, key)) continue;
        // The task cannot ask what the client did not declare (-32021; the task fails with it).
        requireSupport(record.client.capabilities, request);
        missing[key] = request;
      }
      if (Object.keys(missing).length > 0) {
        pending = Object.fromEntries(
          Object.entries(missing).map(([key, request]) => [key, { kind: request.kind, request: toWire(request) }]),
        );
        ended = "input_required";
        throw new EndRun();
      }
      return Object.fromEntries(
        Object.entries(requests).map(([key, request]) => [key, typedAnswer(key, request, record.answers[key])]),
      ) as never;
    },
  };
  let lastProgress = -Infinity;
  const context: HandlerContext = {
    env: host.env as Env,
    signal: host.signal,
    principal: record.principal,
    client: record.client,
    requestId: record.requestId,
    traceId: record.traceId,
    progress(progress, total, message) {
      if (!(progress > lastProgress)) return;
      lastProgress = progress;
      host.statusMessage(message ?? (total === undefined ? `${progress}` : `${progress} of ${total}`));
    },
    // Tasks carry no log messages (SEP-2663: not supported on tasks).
    log() {},
    waitUntil: host.waitUntil,
    publish: createPublisher(host.env.SUBSCRIPTIONS, record.principal, (uri) => server!.resources.handleOf(uri), scope),
  };
  const ctx: ToolContext = {
    ...context,
    ...input,
    async checkpoint() {
      keepable(input.state);
      host.saveState(input.state);
      if (Date.now() - started < TASK_SETTINGS.sliceMs) return;
      ended = "yield";
      throw new EndRun();
    },
  };

  let value: ToolResult;
  try {
    value = await tool.handler(parsed.data as never, ctx);
  } catch (error) {
    if (!ended) {
      if (error instanceof RpcError) return failed(error);
      return { kind: "completed", result: crashResult(tool, error, scope) };
    }
  }
  // A handler that swallowed the end-of-run signal still ends the run the way it was asked to.
  if (ended === "input_required") return { kind: "input_required", pending, state: keepable(input.state) };
  if (ended === "yield") return { kind: "yield", state: input.state };
  try {
    const result = checkedResult(tool, value!, scope);
    if (jsonBytes(result) > TASK_SETTINGS.maxResultBytes) {
      return failed(
        new RpcError(-32603, `The result takes more than ${TASK_SETTINGS.maxResultBytes} bytes as stored; tasks keep at most that`),
      );
    }
    return { kind: "completed", result };
  } catch (error) {
    if (error instanceof RpcError) return failed(error);
    return { kind: "completed", result: crashResult(tool, error, scope) };
  }
}

function failed(error: RpcError): RunOutcome {
  return { kind: "failed", error: { code: error.code, message: error.message, ...(error.data !== undefined && { data: error.data }) } };
}

/** `ctx.state` as it will be stored; a handler that keeps more than the limit has a bug, reported as such. */
function keepable(state: JsonObject): JsonObject {
  if (jsonBytes(state) > TASK_SETTINGS.maxStateBytes) {
    throw new Error(`ctx.state takes more than ${TASK_SETTINGS.maxStateBytes} bytes as stored; keep it small`);
  }
  return state;
}
