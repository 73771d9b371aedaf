/**
 * The task runner as an app's Worker has it: the class `createMcpWorker` makes runs the tools of its one server and
 * ignores the server name a task recorded, so a task started before the server was renamed runs to its end after
 * the new version is deployed. (The other task tests run on the test Worker's own class, which finds each test
 * server by that name: test/helpers/task-servers.ts.)
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { NAME_AFTER, NAME_BEFORE, reportingTask } from "../helpers/renamed-server";
import { testServer } from "../helpers/rpc";
import { settle, TASK_CLIENT } from "./fixtures";

/** The Worker before the rename, its tasks in the objects of the class the renamed Worker exports. */
const before = testServer(
  { name: NAME_BEFORE, version: "1.0.0", tools: [reportingTask(NAME_BEFORE)] },
  { TASKS: env.PRODUCTION_TASKS as unknown as string },
);

describe("the task runner createMcpWorker makes", () => {
  it("runs a task started under the server's former name with the server it has now: renaming the server keeps the tasks in progress", async () => {
    const created = await before.call(
      "tools/call",
      { name: "report_task", arguments: { note: "started before the rename" } },
      { capabilities: TASK_CLIENT },
    );
    expect(created).toMatchObject({ resultType: "task", status: "working" });
    const task = await settle(before, created.taskId as string);
    expect(task).toMatchObject({
      status: "completed",
      result: { content: [{ type: "text", text: `started before the rename, run by ${NAME_AFTER}` }] },
    });
  });
});
