/**
 * @module tasks/servers
 * How a task's Durable Object finds the tool it runs. Code cannot travel with a task, but every isolate of the
 * Worker evaluates the entry module, whose `createMcpWorker(...)` registers its server here, before any handler
 * (fetch or alarm) runs. A task records its server's name; the object looks it up when it runs (building the
 * server from its declarations if no request in this isolate has yet).
 */
import type { McpServer } from "../protocol/server";

const servers = new Map<string, () => McpServer>();

export function registerServer(name: string, server: () => McpServer): void {
  servers.set(name, server);
}

export function serverNamed(name: string): McpServer | undefined {
  return servers.get(name)?.();
}
