/**
 * @module worker
 * `createMcpWorker`: turns the server's declarations into a Worker `fetch` handler.
 */
import type { EngineBindings } from "./bindings";
import { createRouter } from "./http/router";
import { McpServer, type ServerDefinition } from "./protocol/server";

/**
 * Builds the Worker's `fetch` handler. `E` is the app's env (`Env` from `wrangler types`): it may hold any
 * bindings, and the engine uses those of `EngineBindings` that it has. Invalid declarations throw at startup.
 */
export function createMcpWorker<E extends EngineBindings = EngineBindings>(definition: ServerDefinition) {
  const router = createRouter(new McpServer(definition));
  return {
    fetch: (request: Request, env: E, execution: ExecutionContext) => router.fetch(request, env, execution),
  } satisfies ExportedHandler<E>;
}
