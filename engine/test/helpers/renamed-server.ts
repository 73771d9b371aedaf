/**
 * The Worker an app deploys after renaming its server, as `createMcpWorker` makes it: its `TaskRunner` class is the
 * test Worker's `ProductionTaskRunner` (worker.ts, bound as `PRODUCTION_TASKS`), which runs the tasks of its one
 * server, whatever name a task recorded when it started. The test registry of the other task tests
 * (task-servers.ts) finds a server by that name instead; this is the lookup an app's Worker has.
 */
import * as z from "zod/mini";
import { createMcpWorker, defineTool, text } from "../../src";

/** A task tool that says which server ran it: the same name and arguments on both sides of the rename. */
export function reportingTask(serverName: string) {
  return defineTool({
    name: "report_task",
    description: "Reports progress, then says which server ran it.",
    input: z.strictObject({ note: z.string() }),
    taskSupport: "optional",
    async handler({ note }, ctx) {
      ctx.progress(0, 1, "Working");
      return { content: [text(`${note}, run by ${serverName}`)] };
    },
  });
}

export const NAME_BEFORE = "engine-test-before-rename";
export const NAME_AFTER = "engine-test-after-rename";

/** The Worker after the rename: its server is named `NAME_AFTER`. */
export const renamedWorker = createMcpWorker({ name: NAME_AFTER, version: "2.0.0", tools: [reportingTask(NAME_AFTER)] });
