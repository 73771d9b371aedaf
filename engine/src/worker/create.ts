/**
 * @module worker/create
 * `createMcpWorker`: turns the server's declarations into a Worker `fetch` handler; `validateServer` checks them.
 */

import type { ConfigResult } from "../config/config";
import { type EngineOptions, resolveOptions } from "../config/options";
import { LegacySession } from "../legacy/session";
import { SubscriptionHub } from "../listen/hub";
import { ReplayGuard } from "../modern/replay-guard";
// Types only, never a value: a Worker that does not pass `authorizationServer` must bundle none of oauth/ (issue 25).
import type { AuthorizationServer } from "../oauth/authorization-server";
import type { EngineRouter } from "../oauth/host";
import { McpServer, type ServerDefinition } from "../server/server";
import { createTaskRunner } from "../tasks/runner";
import { lazy, memoize } from "../util/memo";
import type { EngineBindings } from "./bindings";
import { CARD_PATHS, type CardOptions, checkServerIdentity } from "./card";
import { loadConfig } from "./load-config";
import { oauthStateClass } from "./oauth-state";
import { createRouter } from "./router";
import { announceStartup } from "./startup";

/**
 * The option that includes the built-in authorization server (AUTH_LOGIN). Why here and not in `EngineOptions`:
 * its type belongs to oauth/, which the configuration layer sits below.
 */
interface AuthorizationServerOption {
  /** `authorizationServer` from the engine's module; without it, AUTH_LOGIN makes the configuration invalid. */
  authorizationServer?: AuthorizationServer;
}

/** The server and its router, built from the declarations (and the server card's options, when it is on). */
function buildEngine(definition: ServerDefinition, card: CardOptions | undefined): EngineRouter {
  const server = new McpServer(definition);
  const router = createRouter(server, card);
  return { server, fetch: (request, env, execution, loaded) => router.fetch(request, env, execution, loaded) };
}

/**
 * Builds the Worker from the server's declarations: its `fetch` handler, a `scheduled` one (it purges expired OAuth
 * grants in authorization-server mode, which the `authorizationServer` option includes), and the Durable Object
 * classes of this server. `E` is the app's env (`Env` from `wrangler types`): it may hold any bindings, and the engine
 * uses those of `EngineBindings` that it has. Declarations given directly are checked now (invalid ones throw at
 * startup); those of `definition.declarations` are built and checked on the first request.
 *
 * The entry module exports the result as the Worker (`export default`), and each Durable Object class that
 * wrangler.toml binds, under its `class_name`: `export class TaskRunner extends mcp.TaskRunner {}`. The classes are
 * this server's (a task's object runs this server's tools), so nothing is registered anywhere as a side effect.
 *
 * @param definition - The server (`ServerDefinition`: name, version, instructions, declarations), the engine's
 *   options (`EngineOptions`: limits, legacyClients, scopeHierarchy, upstreamToken, serverCard) and, for AUTH_LOGIN,
 *   `authorizationServer` (imported from the engine's module; without it that mode's configuration is invalid).
 * @returns The Worker's handlers `{ fetch, scheduled }` and its Durable Object classes `ReplayGuard` (single-use
 *   state, binding `REPLAY_GUARD`), `SubscriptionHub` (`SUBSCRIPTIONS`), `LegacySession` (`LEGACY_SESSIONS`),
 *   `TaskRunner` (`TASKS`) and `OAuthState` (`OAUTH_STATE`: the authorization server's clients, grants and tokens;
 *   without the `authorizationServer` option, a class that holds nothing).
 * @throws When a limit is out of its range, a declaration given directly is invalid, or the server card is on and the
 *   server's name, version or description cannot be the card's.
 *
 * @example
 * ```ts
 * export const weather = createMcpWorker<Env>({
 *   name: "weather",
 *   version: "1.0.0",
 *   instructions: "Call echo with a text to hear it back.",
 *   declarations: () => ({ tools: tools(), prompts: prompts() }),
 *   limits: { request: { maxBodyBytes: 262_144 } },
 * });
 * export class TaskRunner extends weather.TaskRunner {}
 * ```
 * @see docs/configuration.md
 * @see docs/architecture.md
 */
export function createMcpWorker<E extends object = EngineBindings>(
  definition: ServerDefinition & EngineOptions & AuthorizationServerOption,
) {
  const { declarations, limits, legacyClients, scopeHierarchy, upstreamToken, rateLimitError, serverCard, authorizationServer, ...info } =
    definition;
  // Checked now: a limit out of its range, or a server the card could not describe, stops the Worker at startup.
  const options = resolveOptions({ limits, legacyClients, scopeHierarchy, upstreamToken, rateLimitError });
  const card = checkServerIdentity(info, serverCard);
  // Why the card never goes to the OAuth provider: it is read before any token exists, and the provider's API route
  // (/mcp and every path under it) would demand one for /mcp/server-card.
  const isCardPath = (request: Request) => card !== undefined && (CARD_PATHS as readonly string[]).includes(new URL(request.url).pathname);
  // The configuration of one environment (the Worker's env object is stable for the isolate): built once, then passed down.
  const load = (vars: Record<string, unknown>) => loadConfig(vars, options, authorizationServer !== undefined);
  const configOf = memoize((env: object): ConfigResult => load(env as Record<string, unknown>));
  if (declarations && (info.tools || info.resources || info.prompts)) {
    throw new Error("Declare tools, resources and prompts either directly or in declarations(), not both");
  }
  // Declared directly: built (and checked) now. Otherwise on the first request that needs it, once per isolate.
  const eager = declarations ? undefined : buildEngine(info, card);
  const engine = eager ? () => eager : lazy(() => buildEngine({ ...info, ...declarations!() }, card));
  // In development, the authorization mode (or what is wrong) is the first thing `wrangler dev` shows.
  announceStartup(load);
  const handlers = {
    fetch: async (request: Request, env: E, execution: ExecutionContext) => {
      const loaded = configOf(env);
      // loadConfig refuses AUTH_LOGIN without the option, so a valid configuration in this mode has it. Checked here
      // too: without it a request can only reach the router, which fails closed (503, or 401 with no grant).
      if (authorizationServer && loaded.ok && loaded.config.authServer && !isCardPath(request)) {
        // The built-in authorization server; "none" and "resource server" never evaluate its library (oauth/library.ts).
        return authorizationServer.serve(request, env, execution, engine(), loaded.config);
      }
      return engine().fetch(request, env, execution, loaded);
    },
    scheduled: async (_controller: ScheduledController, env: E) => {
      const loaded = configOf(env);
      // Invalid (AUTH_LOGIN without the option among the reasons), or another mode: there is nothing to purge.
      if (!authorizationServer || !loaded.ok || !loaded.config.authServer) return;
      const { grantsPurged } = await authorizationServer.purgeExpiredGrants(env, engine(), loaded.config);
      console.log(JSON.stringify({ level: "info", message: "oauth purge", grantsPurged }));
    },
  } satisfies ExportedHandler<E>;
  return {
    ...handlers,
    ReplayGuard,
    SubscriptionHub,
    LegacySession,
    // Why a class of this server's: a task's object runs in an isolate of this Worker and runs this server's tools
    // (built from its declarations there, if no request in that isolate has yet). Every task of its namespace is
    // this server's, whatever name the server had when the task started.
    TaskRunner: createTaskRunner(() => engine().server),
    OAuthState: oauthStateClass(authorizationServer),
  };
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
  const { declarations, limits, legacyClients, scopeHierarchy, upstreamToken, rateLimitError, serverCard, authorizationServer, ...info } =
    definition as ServerDefinition & EngineOptions & AuthorizationServerOption;
  resolveOptions({ limits, legacyClients, scopeHierarchy, upstreamToken, rateLimitError });
  checkServerIdentity(info, serverCard);
  new McpServer({ ...info, ...declarations?.() }).validate();
}
