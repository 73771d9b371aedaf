/**
 * The servers whose tasks the engine's test Worker runs (test/worker.ts). A Worker's own `TaskRunner` class is bound
 * to its one server (`createMcpWorker`); the tests build many servers over one `TASKS` binding, so the test Worker's
 * class looks a task's server up here by the name the task recorded. `testServer` (rpc.ts) records each server it
 * builds; a name built again (the default "test-server") means the newest declarations, as a redeploy would.
 */
import type { ServerDefinition } from "../../src";
import { McpServer } from "../../src/server/server";
import type { TaskServer } from "../../src/tasks/servers";
import { lazy } from "../../src/util/memo";

const servers = new Map<string, () => TaskServer>();

/** Records a server that tests serve, so that the tasks it starts can run. */
export function runsTasksOf(definition: ServerDefinition): void {
  const { declarations, ...info } = definition;
  servers.set(
    definition.name,
    lazy(() => new McpServer({ ...info, ...declarations?.() })),
  );
}

export const taskServerNamed = (name: string): TaskServer | undefined => servers.get(name)?.();
