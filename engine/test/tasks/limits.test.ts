/**
 * Limits of tasks, each with a clear error: tasks in progress per caller (principal, or client IP when anonymous).
 * Result size and ttlMs are in lifecycle.test.ts.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { resolveOptions } from "../../src/config/options";
import { quotaName } from "../../src/tasks/quota";
import { ANONYMOUS } from "../../src/wire/principal";
import { cancelTask, settle, TASK_CLIENT, tasksServer } from "./fixtures";

const server = tasksServer();
const LIMIT = 10;
/** How long a test waits for a ledger to count a task out: a bound on a hang, never a measurement. */
const SETTLED = { timeout: 10_000, interval: 20 };

/**
 * The tasks the anonymous caller at `ip` has in progress, as its quota ledger counts them (src/tasks/quota.ts). Why
 * the tests read it: a finished task leaves the ledger just after its final status is stored (the release is sent in
 * the background), and the next start is admitted only once it has.
 */
function inProgress(ip: string): Promise<number> {
  const request = new Request("https://example.com/mcp", { headers: { "cf-connecting-ip": ip } });
  const ledger = env.TASKS.getByName(quotaName({ principal: ANONYMOUS, request }));
  return runInDurableObject(ledger, (_instance, state) => [...state.storage.kv.list({ prefix: "t:" })].length);
}

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
    await expect.poll(() => inProgress("203.0.113.9"), SETTLED).toBe(LIMIT - 1);
    const again = await startHeld("203.0.113.9");
    expect(again.resultType).toBe("task");

    await Promise.all([...held.slice(1), other, again].map((task) => cancelTask(server, task.taskId as string)));
  });
  it("counts an anonymous IPv6 client by its /64: three addresses of one network share one quota", async () => {
    const network = (host: number) => `2001:db8:44:1::${host}`;
    const held = await Promise.all(Array.from({ length: LIMIT }, (_, i) => startHeld(network((i % 3) + 1))));
    expect(held.every((result) => result.resultType === "task")).toBe(true);
    for (const host of [4, 5, 6]) {
      expect(await startHeld(network(host))).toMatchObject({
        isError: true,
        content: [{ text: expect.stringContaining("Too many tasks in progress") }],
      });
    }
    // Another /64 is another caller.
    const other = await startHeld("2001:db8:44:2::1");
    expect(other.resultType).toBe("task");
    await Promise.all([...held, other].map((task) => cancelTask(server, task.taskId as string)));
  });
});

describe("a question nobody answers", () => {
  const quick = tasksServer("tasks-quick-quota", { inputTimeoutMs: 1_000 });
  const ip = "203.0.113.44";
  const start = (name: string) =>
    quick.call("tools/call", { name, arguments: {} }, { capabilities: TASK_CLIENT, headers: { "cf-connecting-ip": ip } });

  it("gives the caller's place back when it expires: a client that cannot answer does not hold a task slot for an hour", async () => {
    const asking = await Promise.all(Array.from({ length: LIMIT }, () => start("ask_in_task")));
    expect(asking.every((result) => result.resultType === "task")).toBe(true);
    expect(await start("held_task")).toMatchObject({
      isError: true,
      content: [{ text: expect.stringContaining("Too many tasks in progress") }],
    });

    // Each waits for an answer that never comes, then fails (bounded polling, no fixed sleep).
    for (const { taskId } of asking) expect((await settle(quick, taskId as string)).status).toBe("failed");
    await expect.poll(() => inProgress(ip), SETTLED).toBe(0);
    const again = await start("held_task");
    expect(again.resultType).toBe("task");
    await cancelTask(quick, again.taskId as string);
  });

  it("waits 5 minutes for an answer by default (limits.tasks.inputTimeoutMs), and refuses at startup a value outside 1 s to 1 hour", () => {
    expect(resolveOptions().limits.tasks.inputTimeoutMs).toBe(300_000);
    expect(resolveOptions({ limits: { tasks: { inputTimeoutMs: 1_000 } } }).limits.tasks.inputTimeoutMs).toBe(1_000);
    for (const bad of [0, 999, 3_600_001, 1.5]) {
      expect(() => tasksServer(`tasks-bad-${bad}`, { inputTimeoutMs: bad })).toThrow(
        "createMcpWorker: limits.tasks.inputTimeoutMs must be an integer from 1000 to 3600000",
      );
    }
  });
});
