/**
 * @module worker
 * `createMcpWorker`: turns the server's declarations into a Worker `fetch` handler; `validateServer` checks them.
 */

import { type ConfigResult, parseConfig } from "../config/config";
import { type EngineOptions, resolveOptions } from "../config/options";
import { type EngineRouter, purgeExpiredGrants, serveAuthorizationServer } from "../oauth/host";
import { McpServer, type ServerDefinition } from "../server/server";
import { registerServer } from "../tasks/servers";
import { lazy, memoize } from "../util/memo";
import type { EngineBindings } from "./bindings";
import { createRouter } from "./router";
import { announceStartup } from "./startup";

/** The server and its router, built from the declarations. */
function buildEngine(definition: ServerDefinition): EngineRouter {
  const server = new McpServer(definition);
  const router = createRouter(server);
  return { server, fetch: (request, env, execution, loaded) => router.fetch(request, env, execution, loaded) };
}

/**
 * Builds the Worker's `fetch` handler (and a `scheduled` one that purges expired OAuth grants in authorization-server
 * mode). `E` is the app's env (`Env` from `wrangler types`): it may hold any bindings, and the engine uses those of
 * `EngineBindings` that it has. Declarations given directly are checked now (invalid ones throw at startup); those
 * of `definition.declarations` are built and checked on the first request. The entry module exports its result
 * as the Worker (`export default createMcpWorker<Env>({...})`), next to the Durable Object classes it binds.
 *
 * @param definition - The server (`ServerDefinition`: name, version, instructions, declarations) and the engine's
 *   options (`EngineOptions`: limits, legacyClients, scopeHierarchy, upstreamToken).
 * @returns The Worker's handlers, `{ fetch, scheduled }`, for `export default`.
 * @throws When a limit is out of its range, or a declaration given directly is invalid.
 *
 * @example
 * ```ts
 * export const worker = createMcpWorker<Env>({
 *   name: "weather",
 *   version: "1.0.0",
 *   instructions: "Call echo with a text to hear it back.",
 *   declarations: () => ({ tools: tools(), prompts: prompts() }),
 *   limits: { request: { maxBodyBytes: 262_144 } },
 * });
 * ```
 * @see docs/configuration.md
 * @see docs/architecture.md
 */
export function createMcpWorker<E extends EngineBindings = EngineBindings>(definition: ServerDefinition & EngineOptions) {
  const { declarations, limits, legacyClients, scopeHierarchy, upstreamToken, ...info } = definition;
  // Checked now: a limit out of its range stops the Worker at startup, naming it.
  const options = resolveOptions({ limits, legacyClients, scopeHierarchy, upstreamToken });
  // The configuration of one environment (the Worker's env object is stable for the isolate): built once, then passed down.
  const configOf = memoize((env: object): ConfigResult => parseConfig(env as Record<string, unknown>, options));
  if (declarations && (info.tools || info.resources || info.prompts)) {
    throw new Error("Declare tools, resources and prompts either directly or in declarations(), not both");
  }
  // Declared directly: built (and checked) now. Otherwise on the first request that needs it, once per isolate.
  const eager = declarations ? undefined : buildEngine(definition);
  const engine = eager ? () => eager : lazy(() => buildEngine({ ...info, ...declarations!() }));
  // A task's Durable Object runs in an isolate of this Worker and finds its tools here (see tasks/servers.ts).
  registerServer(definition.name, () => engine().server);
  // In development, the authorization mode (or what is wrong) is the first thing `wrangler dev` shows.
  announceStartup();
  return {
    fetch: async (request: Request, env: E, execution: ExecutionContext) => {
      const loaded = configOf(env);
      if (loaded.ok && loaded.config.authServer) {
        // The built-in authorization server; "none" and "resource server" never evaluate its library (oauth/library.ts).
        return serveAuthorizationServer(request, env, execution, engine(), loaded.config);
      }
      return engine().fetch(request, env, execution, loaded);
    },
    scheduled: async (_controller: ScheduledController, env: E) => {
      const loaded = configOf(env);
      if (!loaded.ok || !loaded.config.authServer) return;
      const { grantsPurged } = await purgeExpiredGrants(env, engine(), loaded.config);
      console.log(JSON.stringify({ level: "info", message: "oauth purge", grantsPurged }));
    },
  } satisfies ExportedHandler<E>;
}

/**
 * Checks every declaration now, as its first use would (tool names, JSON Schemas, header bindings, prompt
 * arguments), and throws on the first problem. The Worker defers most of this to keep cold starts cheap; the app's
 * tests call it, so a broken declaration fails `npm test` rather than a request after deploying.
 *
 * @param definition - The same definition the Worker is built from (its options are checked too).
 * @throws An Error naming the first problem.
 *
 * @example
 * ```ts
 * export function checkDeclarations(): void {
 *   // In a test of the app: fails `npm test`, not the first request after a deploy.
 *   validateServer({ name: "weather", version: "1.0.0", declarations: () => ({ tools: tools(), prompts: prompts() }) });
 * }
 * ```
 */
export function validateServer(definition: ServerDefinition): void {
  const { declarations, limits, legacyClients, scopeHierarchy, upstreamToken, ...info } = definition as ServerDefinition & EngineOptions;
  resolveOptions({ limits, legacyClients, scopeHierarchy, upstreamToken });
  new McpServer({ ...info, ...declarations?.() }).validate();
}
