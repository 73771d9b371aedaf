/**
 * @module tasks/servers
 * How a task's Durable Object finds the tool it runs. Code cannot travel with a task, but every isolate of the
 * Worker evaluates the entry module, whose `createMcpWorker(...)` registers its server here, before any handler
 * (fetch or alarm) runs. A task records its server's name; the object looks it up when it runs (building the
 * server from its declarations if no request in this isolate has yet).
 */
import type { Registry } from "../define/registry";
import type { Tool } from "../define/tools";

/** What a task needs of its server: the tool it runs, and which part of a resource URI is a handle. */
export interface TaskServer {
  tools: Registry<Tool>;
  resources: { handleOf(uri: string): string };
}

const servers = new Map<string, () => TaskServer>();

export function registerServer(name: string, server: () => TaskServer): void {
  servers.set(name, server);
}

export function serverNamed(name: string): TaskServer | undefined {
  return servers.get(name)?.();
}
