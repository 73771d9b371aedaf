/**
 * @module tasks/run
 * One run of a task's handler inside its Durable Object: the same `runTool` and the same `ctx` as a request, over
 * a channel of the task's own. `ctx.progress()` sets the task's statusMessage; `ctx.signal` aborts on
 * `tasks/cancel`; `ctx.ask()` returns the answers the task holds (tasks/answers.ts), or ends the run with the
 * questions (the task is then `input_required`); `ctx.checkpoint()` ends a cancelled run at once, saves `ctx.state`,
 * and ends the run once its time slice is used. How the run ended is `Run.until`'s to say (run/end.ts). Runs start the handler from the top, like multi round-trip rounds: keep side effects
 * after the last question.
 */

import { inputApi } from "../ask/loop";
import { runTool } from "../define/tools";
import { hubsOf } from "../listen/hub";
import { createPublisher } from "../listen/publish";
import { type Channel, handlerContext, type Publisher } from "../run/context";
import { Run, type RunEnd } from "../run/end";
import { jsonBytes } from "../util/encoding";
import type { LogScope } from "../util/log";
import { RpcError } from "../wire/errors";
import type { JsonObject } from "../wire/types";
import { keptAnswers, pendingQuestions } from "./answers";
import type { TaskRecord } from "./record";
import type { TaskServer } from "./servers";

export type RunOutcome =
  | { kind: "completed"; result: JsonObject }
  | { kind: "failed"; error: { code: number; message: string; data?: unknown } }
  /** `refused`: kept answers the handler's own schema refused (they are dropped, and their questions asked again). */
  | { kind: "input_required"; pending: TaskRecord["pending"]; state: JsonObject; refused: Record<string, string> }
  | { kind: "yield"; state: JsonObject }
  /** The run stopped after `tasks/cancel`; `report` is what the handler said about how far it got, if it returned. */
  | { kind: "cancelled"; report?: string };

/** What the object lends a run. */
export interface RunHost {
  /** The server whose tool the task runs; undefined when this Worker serves it no longer. */
  server: TaskServer | undefined;
  env: object;
  signal: AbortSignal;
  waitUntil(promise: Promise<unknown>): void;
  statusMessage(message: string): void;
  saveState(state: JsonObject): void;
}

export async function runTask(record: TaskRecord, host: RunHost): Promise<RunOutcome> {
  const scope: LogScope = { traceId: record.traceId, requestId: record.requestId, method: "tools/call" };
  const { server } = host;
  const tool = server?.tools.get(record.tool);
  if (!server || !tool) return { kind: "failed", error: { code: -32603, message: `Tool ${record.tool} is no longer served` } };

  const started = Date.now();
  const refused: Record<string, string> = {};
  // Built before the run starts: its answers and its checkpoints end it through `run.end`.
  const run = new Run();
  const input = inputApi(keptAnswers(record, refused, run.end), record.client.capabilities, structuredClone(record.state));
  let publisher: Publisher | undefined;
  const channel: Channel = {
    env: host.env,
    signal: host.signal,
    principal: record.principal,
    client: record.client,
    requestId: record.requestId,
    traceId: record.traceId,
    progress: (progress, total, message) =>
      host.statusMessage(message ?? (total === undefined ? `${progress}` : `${progress} of ${total}`)),
    // Tasks carry no log messages (SEP-2663: not supported on tasks).
    log() {},
    waitUntil: (promise) => host.waitUntil(promise),
    // Built when the tool first publishes, as on a request (most runs never do).
    get publish() {
      publisher ??= createPublisher(hubsOf(host.env), record.principal, (uri) => server.resources.handleOf(uri), scope);
      return publisher;
    },
    async checkpoint() {
      if (host.signal.aborted) run.end({ kind: "cancelled" });
      host.saveState(keepable(input.state, record.limits.maxStateBytes));
      if (Date.now() - started >= record.limits.sliceMs) run.end({ kind: "yields" });
    },
  };

  let ended: RunEnd<JsonObject>;
  try {
    ended = await run.until(
      () => runTool(tool, record.args, handlerContext(channel, input), scope),
      () => host.signal.aborted,
    );
  } catch (error) {
    // What a cancelled run threw is the cancellation's (a fetch aborted by ctx.signal, say), not a failure.
    if (host.signal.aborted) return { kind: "cancelled" };
    if (error instanceof RpcError) return failed(error);
    throw error;
  }
  switch (ended.kind) {
    case "asks":
      return {
        kind: "input_required",
        pending: pendingQuestions(record, ended.questions),
        state: keepable(input.state, record.limits.maxStateBytes),
        refused,
      };
    case "yields":
      return { kind: "yield", state: input.state };
    case "cancelled":
      return { kind: "cancelled", ...(ended.value && reportOf(ended.value)) };
    case "hands-over":
      throw new Error("A task's run never hands over: only the call that starts it does");
    case "done": {
      const { maxResultBytes } = record.limits;
      if (jsonBytes(ended.value) > maxResultBytes) {
        return failed(new RpcError(-32603, `The result takes more than ${maxResultBytes} bytes as stored; tasks keep at most that`));
      }
      return { kind: "completed", result: ended.value };
    }
  }
}

function failed(error: RpcError): RunOutcome {
  return { kind: "failed", error: { code: error.code, message: error.message, ...(error.data !== undefined && { data: error.data }) } };
}

/** The first text of a result a handler returned after it saw the cancellation: usually how far it got. */
function reportOf(result: JsonObject): { report?: string } {
  const first = (result.content as { type?: string; text?: unknown }[] | undefined)?.find((block) => block.type === "text");
  return typeof first?.text === "string" ? { report: first.text.slice(0, 500) } : {};
}

/** `ctx.state` as it will be stored; a handler that keeps more than the limit has a bug, reported as such. */
function keepable(state: JsonObject, maxBytes: number): JsonObject {
  if (jsonBytes(state) > maxBytes) {
    throw new Error(`ctx.state takes more than ${maxBytes} bytes as stored; keep it small`);
  }
  return state;
}
