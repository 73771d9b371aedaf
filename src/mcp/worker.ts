/**
 * @module worker
 * `createMcpWorker`: turns the server's declarations into a Worker `fetch` handler.
 */
import type { EngineBindings } from "./bindings";
import { createRouter } from "./http/router";
import { McpServer, type ServerDefinition } from "./protocol/server";
import { registerServer } from "./tasks/servers";

/**
 * Builds the Worker's `fetch` handler. `E` is the app's env (`Env` from `wrangler types`): it may hold any
 * bindings, and the engine uses those of `EngineBindings` that it has. Invalid declarations throw at startup.
 */
export function createMcpWorker<E extends EngineBindings = EngineBindings>(definition: ServerDefinition) {
  const server = new McpServer(definition);
  // A task's Durable Object runs in an isolate of this Worker and finds its tools here (see tasks/servers.ts).
  registerServer(server);
  const router = createRouter(server);
  return {
    fetch: (request: Request, env: E, execution: ExecutionContext) => router.fetch(request, env, execution),
  } satisfies ExportedHandler<E>;
}
