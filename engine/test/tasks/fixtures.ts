/**
 * Tools of the task tests, served by `tasksServer()` with the real bindings (TASKS included). Independent of the
 * example app. Each task is created at the handler's first `ctx.progress()`.
 */
import * as z from "zod/mini";
import { defineTool, elicitForm, type LimitOptions, text, toolError } from "../../src";
import { type Json, testServer } from "../helpers/rpc";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
/** Capabilities of a client that declared the extension (and forms, for questions inside tasks). */
export const TASK_CLIENT = { elicitation: { form: {} }, extensions: { [TASKS_EXTENSION]: {} } };

export const taskTools = [
  defineTool({
    name: "echo_task",
    description: "Reports progress, then echoes its text.",
    input: z.strictObject({ text: z.string() }),
    taskSupport: "optional",
    async handler(args, ctx) {
      ctx.progress(1, 2, "Echoing");
      return { content: [text(`echo: ${args.text}`)] };
    },
  }),
  defineTool({
    name: "held_task",
    description: "Works until the task is cancelled (at most a minute): holds a task in `working` without timing.",
    input: z.strictObject({}),
    taskSupport: "required",
    async handler(_args, ctx) {
      ctx.progress(0, 1, "Held");
      for (let waited = 0; waited < 60_000 && !ctx.signal.aborted; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      return { content: [text(ctx.signal.aborted ? "stopped" : "released")] };
    },
  }),
  defineTool({
    name: "ask_in_task",
    description: "Asks for a color inside its task.",
    input: z.strictObject({}),
    taskSupport: "optional",
    async handler(_args, ctx) {
      ctx.progress(0, 1, "Starting");
      const { color } = await ctx.ask({ color: elicitForm("Favourite color?", z.object({ color: z.string() })) });
      return { content: [text(color.action === "accept" ? `color: ${color.content.color}` : "no color")] };
    },
  }),
  defineTool({
    name: "ask_then_task",
    description: "Asks for a name up front, then works as a task.",
    input: z.strictObject({}),
    taskSupport: "required",
    async handler(_args, ctx) {
      const { who } = await ctx.ask({ who: elicitForm("Who?", z.object({ name: z.string() })) });
      ctx.progress(0, 1, "Working");
      return { content: [text(who.action === "accept" ? `hi ${who.content.name}` : "hi")] };
    },
  }),
  defineTool({
    name: "tool_error_task",
    description: "A task whose tool run reports an error.",
    input: z.strictObject({}),
    taskSupport: "optional",
    async handler(_args, ctx) {
      ctx.progress(0, 1, "Working");
      return toolError("nope");
    },
  }),
  defineTool({
    name: "huge_result_task",
    description: "A task whose result is over the size tasks keep.",
    input: z.strictObject({}),
    taskSupport: "optional",
    async handler(_args, ctx) {
      ctx.progress(0, 1, "Working");
      return { content: [text("x".repeat(1_100_000))] };
    },
  }),
  defineTool({
    name: "sliced_task",
    description: "Counts to `to` over several runs, one checkpoint per step.",
    input: z.strictObject({ to: z.number() }),
    taskSupport: "optional",
    async handler(args, ctx) {
      ctx.progress(0, args.to, "Counting");
      const runs = ((ctx.state.runs as number | undefined) ?? 0) + 1;
      ctx.state.runs = runs;
      for (let step = (ctx.state.step as number | undefined) ?? 0; step < args.to; step++) {
        ctx.state.step = step + 1;
        ctx.progress(step + 1, args.to);
        await ctx.checkpoint();
      }
      return { content: [text(`counted to ${args.to} in ${runs} run(s)`)] };
    },
  }),
  defineTool({
    name: "choose_in_task",
    description: "Asks inside its task whether to apply, and how (an enum), as the example's retag does.",
    input: z.strictObject({}),
    taskSupport: "optional",
    async handler(_args, ctx) {
      ctx.progress(0, 1, "Scanned");
      const { apply } = await ctx.ask({
        apply: elicitForm("Apply?", z.object({ apply: z.boolean(), mode: z.enum(["add", "replace"]) })),
      });
      return { content: [text(apply.action === "accept" ? `apply=${apply.content.apply} mode=${apply.content.mode}` : "kept")] };
    },
  }),
  defineTool({
    name: "hashtag_in_task",
    description: "Asks inside its task for a tag that must start with #: a check the form's wire schema cannot say.",
    input: z.strictObject({}),
    taskSupport: "optional",
    async handler(_args, ctx) {
      ctx.progress(0, 1, "Asking");
      const tagForm = z.object({ tag: z.string().check(z.refine((tag) => tag.startsWith("#"), "must start with #")) });
      const { tag } = await ctx.ask({ tag: elicitForm("Which tag?", tagForm) });
      return { content: [text(tag.action === "accept" ? `tag ${tag.content.tag}` : "no tag")] };
    },
  }),
  defineTool({
    name: "writer_task",
    description: "Writes `steps` records, checking in before each write; `report` makes it return how far it got when cancelled.",
    input: z.strictObject({ steps: z.int(), report: z.optional(z.boolean()) }),
    taskSupport: "optional",
    async handler(args, ctx) {
      ctx.progress(0, args.steps, "Starting");
      for (let step = 0; step < args.steps; step++) {
        if (args.report && ctx.signal.aborted) return toolError(`stopped after ${step} writes`);
        // The safe pattern: check in (a cancelled run ends here) before each write.
        if (!args.report) await ctx.checkpoint();
        writes.push(ctx.requestId);
        ctx.progress(step + 1, args.steps, `Wrote ${step + 1} of ${args.steps}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return { content: [text(`wrote ${args.steps}`)] };
    },
  }),
  defineTool({
    name: "publish_task",
    description: "Becomes a task, then announces a change of the tool list from inside its run.",
    input: z.strictObject({}),
    taskSupport: "optional",
    async handler(_args, ctx) {
      ctx.progress(0, 1, "Publishing");
      await ctx.publish.toolsListChanged();
      return { content: [text("published")] };
    },
  }),
];

/** What `writer_task` wrote, one entry per write (the request id that created the task): tasks run in this isolate. */
export const writes: (string | number)[] = [];

/** `tasks` overrides task limits for this server only (for example a short inputTimeoutMs). */
export function tasksServer(name = "tasks-test", tasks: LimitOptions["tasks"] = {}) {
  return testServer({ name, tools: taskTools, limits: { tasks } });
}

type Server = ReturnType<typeof tasksServer>;

/**
 * Polls tasks/get until `until` holds for the task (by default: it has ended); returns that DetailedTask. Bounded by
 * time, 10 s, not by a count of polls: a bound on a hang that holds on a busy machine, never a measurement.
 */
export async function settle(server: Server, taskId: string, until: (task: Json) => boolean = isTerminal): Promise<Json> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const task = await server.call("tasks/get", { taskId }, { capabilities: TASK_CLIENT, headers: { "mcp-name": taskId } });
    if (until(task)) return task;
    if (Date.now() > deadline) throw new Error(`task ${taskId} did not settle within 10 s: ${JSON.stringify(task).slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export const isTerminal = (task: Json) => ["completed", "failed", "cancelled"].includes(task.status as string);

/** A tasks/* request as a conforming client sends it (Mcp-Name carries the taskId). */
export function taskRequest(server: Server, method: string, params: Json, capabilities: Json = TASK_CLIENT) {
  return server.send(method, params, { capabilities, headers: { "mcp-name": String(params.taskId) } });
}

/** Cancels a task and waits (bounded) until it says so. */
export async function cancelTask(server: Server, taskId: string): Promise<void> {
  await server.call("tasks/cancel", { taskId }, { capabilities: TASK_CLIENT, headers: { "mcp-name": taskId } });
  await settle(server, taskId);
}
