/**
 * @module tasks/servers
 * How a task's Durable Object finds the tool it runs. Code cannot travel with a task: the object's class is made for
 * its server (`createTaskRunner`, called by `createMcpWorker`), and the class's lookup answers when the task runs.
 * A task records its server's name; the lookup `createMcpWorker` gives its class ignores it (the Worker serves one
 * server, so renaming it keeps the tasks in progress: test/tasks/production-runner.test.ts), and the engine's test
 * Worker, which serves many test servers over one binding, finds the server by it.
 */
import type { Registry } from "../define/registry";
import type { Tool } from "../define/tools";

/** What a task needs of its server: the tool it runs, and which part of a resource URI is a handle. */
export interface TaskServer {
  tools: Registry<Tool>;
  resources: { handleOf(uri: string): string };
}

/** The server a task runs for, by the name the task recorded: undefined when this Worker serves it no longer. */
export type TaskServers = (name: string) => TaskServer | undefined;
