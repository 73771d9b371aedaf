/**
 * @module worker
 * `createMcpWorker`: turns the server's declarations into a Worker `fetch` handler; `validateServer` checks them.
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

/**
 * Checks every declaration now, as its first use would (tool names, JSON Schemas, header bindings, prompt
 * arguments), and throws on the first problem. The Worker defers most of this to keep cold starts cheap; the app's
 * tests call it, so a broken declaration fails `npm test` rather than a request after deploying.
 */
export function validateServer(definition: ServerDefinition): void {
  new McpServer(definition).validate();
}
