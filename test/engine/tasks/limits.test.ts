/**
 * Limits of tasks, each with a clear error: tasks in progress per caller (principal, or client IP when anonymous).
 * Result size and ttlMs are in lifecycle.test.ts.
 */
import { describe, expect, it } from "vitest";
import { cancelTask, TASK_CLIENT, tasksServer } from "./fixtures";

const server = tasksServer();
const LIMIT = 10;

function startHeld(ip: string) {
  return server.call(
    "tools/call",
    { name: "held_task", arguments: {} },
    { capabilities: TASK_CLIENT, headers: { "cf-connecting-ip": ip } },
  );
}

describe("tasks in progress per caller", () => {
  it(`refuses the ${LIMIT + 1}th task in progress with a tool error; another caller is unaffected; a cancelled one frees a place`, async () => {
    const held = await Promise.all(Array.from({ length: LIMIT }, () => startHeld("203.0.113.9")));
    expect(held.every((result) => result.resultType === "task")).toBe(true);

    const refused = await startHeld("203.0.113.9");
    expect(refused).toMatchObject({
      resultType: "complete",
      isError: true,
      content: [{ text: expect.stringContaining("Too many tasks in progress") }],
    });
    expect(refused).not.toHaveProperty("taskId");

    const other = await startHeld("198.51.100.7");
    expect(other.resultType).toBe("task");

    await cancelTask(server, held[0]!.taskId as string);
    let again = await startHeld("203.0.113.9");
    // The release reaches the ledger just after the cancel is acknowledged: retry a few times (bounded).
    for (let attempt = 0; attempt < 20 && again.resultType !== "task"; attempt++) again = await startHeld("203.0.113.9");
    expect(again.resultType).toBe("task");

    await Promise.all([...held.slice(1), other, again].map((task) => cancelTask(server, task.taskId as string)));
  });
});
