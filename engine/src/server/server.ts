/**
 * @module server/server
 * `McpServer`: the registry of tools, resources and prompts, the capabilities it implies, and the table of
 * methods served on the 2026-07-28 path.
 */

import { permits, requireToolScopes } from "../auth/authenticate";
import type { Config } from "../config/config";
import { budgetRefusal } from "../define/budget";
import { complete } from "../define/completion";
import { listCacheHint, paginate } from "../define/pagination";
import { describePrompt, getPrompt, type Prompt } from "../define/prompts";
import { Registry } from "../define/registry";
import { listResources } from "../define/resource-list";
import { isTemplate, type Resource, type ResourceDefinition, ResourceIndex } from "../define/resources";
import { callTool, checkToolNames, describeTool, type Tool, toolCall, toolError } from "../define/tools";
import { isView, toolViewMeta, UI_EXTENSION, type View, viewsOffered } from "../define/views";
import type { HttpExchange } from "../http/exchange";
import { type HeaderBinding, headerBindings } from "../http/param-headers";
import { hubsOf } from "../listen/hub";
import type { ListenSupport } from "../listen/listen";
import { createPublisher } from "../listen/publish";
import type { Publisher } from "../run/context";
import type { Asking, RequestScope } from "../run/request";
import { SKILLS_EXTENSION, type Skill } from "../skills/define";
import { Skills } from "../skills/methods";
import { SKILL_SCHEME } from "../skills/uri";
// Why static imports of the task code: the Worker ships as one bundle, so a dynamic import saves no bytes, and
// esbuild turns every module a dynamically imported one reaches into a lazy wrapper, which measured +2.8 ms of
// startup (median import cost, 11 interleaved runs); these modules define functions only, so importing them costs
// nothing measurable.
import { serveTaskMethod } from "../tasks/methods";
import { tasksOf } from "../tasks/rpc";
import { runsAsTask, startTask } from "../tasks/start";
import { memoize } from "../util/memo";
import { methodNotFound } from "../wire/errors";
import { isReusable, reusable } from "../wire/messages";
import { ANONYMOUS } from "../wire/principal";
import { TASK_METHODS, TASKS_EXTENSION } from "../wire/tasks";
import { type ClientCapabilities, type Icon, type Implementation, type JsonObject, META, servedVersions } from "../wire/types";

/**
 * What a server offers: its tools, resources (and resource templates, and views) and prompts, each list in the
 * order `tools/list`, `resources/list` and `prompts/list` show them. What `ServerDefinition.declarations` returns.
 *
 * @example
 * ```ts
 * export function declarations(): Declarations {
 *   return { tools: tools(), resources, prompts: prompts() };
 * }
 * ```
 */
export interface Declarations {
  /** The tools (`defineTool`). Names must be unique. */
  tools?: readonly Tool[];
  /** The resources, resource templates and views (`defineResource`, `defineResourceTemplate`, `defineView`). */
  resources?: readonly Resource[];
  /** The prompts (`definePrompt`). Names must be unique. */
  prompts?: readonly Prompt[];
  /** The skills (`defineSkill`), each a folder under `skills/`. Names must be unique. */
  skills?: readonly Skill[];
}

/**
 * The server's identity and what it offers, as `createMcpWorker` (with the `EngineOptions`) and `validateServer`
 * take it: a name and version, optional instructions for the model, and the declarations, given directly or (better
 * for cold starts) built on the first request by `declarations`.
 *
 * @example
 * ```ts
 * export const weatherServer: ServerDefinition = {
 *   name: "weather",
 *   version: "1.0.0",
 *   title: "Weather",
 *   instructions: "Call echo with a text to hear it back; read docs://usage to run the server.",
 *   declarations: () => ({ tools: tools(), resources, prompts: prompts() }),
 * };
 * ```
 * @see docs/architecture.md
 */
export interface ServerDefinition extends Declarations {
  /**
   * The server's name, as clients see it (`serverInfo.name`). Renaming it keeps the tasks in progress: a task's object
   * runs the tools of the server its class was made for (`createMcpWorker`'s `TaskRunner`), whatever name the task
   * recorded. With `serverCard` on it must be a reverse-DNS name with one slash, such as `io.github.you/notes`: the
   * card names the server by this same name.
   */
  name: string;
  /** The server's version, as clients see it (`serverInfo.version`). */
  version: string;
  /** A name for people. */
  title?: string;
  /** What the server is for (the server card requires it, in at most 100 characters). */
  description?: string;
  /** The server's website or documentation, an http or https URL (`serverInfo.websiteUrl`, and the server card's). */
  websiteUrl?: string;
  /** Icons clients may show for the server. */
  icons?: Icon[];
  /** Guidance for the model on how to use this server as a whole. */
  instructions?: string;
  /**
   * The declarations, built on the first request instead of at startup (in place of `tools`, `resources` and
   * `prompts`): constructing zod schemas costs milliseconds of CPU, which every cold start would pay. They are then
   * checked on first use; `validateServer` in the app's tests checks them before they are deployed.
   */
  declarations?: () => Declarations;
}

/**
 * One method of the table: its params, the request it serves, and the era's way of answering its handlers'
 * questions (`asking`), which the transport that received the request passes (modern/serve.ts, legacy/).
 */
export type MethodHandler = (params: JsonObject, scope: RequestScope, asking: Asking) => JsonObject | Promise<JsonObject>;

export class McpServer {
  readonly info: Implementation & { icons?: Icon[] };
  /**
   * The server's identity as every result carries it in `_meta` (spec 2026-07-28, ResultMetaObject): made once,
   * frozen, so answers share it.
   */
  readonly resultMeta: JsonObject;
  readonly instructions?: string;
  readonly tools: Registry<Tool>;
  readonly prompts: Registry<Prompt>;
  readonly resources: ResourceIndex;
  /** The interactive views the tools name (MCP Apps), registered as resources offered only where they work. */
  readonly views: readonly View[];
  /** The skills, when any are declared (served only by a Worker with the ASSETS binding). */
  readonly skills: Skills | undefined;
  /** The `Mcp-Param-*` header bindings of each tool, derived with its JSON Schema on first use. */
  private readonly bindingsOf = memoize((tool: Tool) => headerBindings(tool.name, describeTool(tool).inputSchema as JsonObject));
  private readonly methods: ReadonlyMap<string, MethodHandler>;
  /** Whether any tool may run as a task (the declarations never change, so this is known once). */
  private readonly hasTaskTools: boolean;
  /** Whether any prompt or resource template completes its arguments. */
  private readonly hasCompletions: boolean;

  constructor(definition: ServerDefinition) {
    const { name, version, title, description, websiteUrl, icons } = definition;
    this.info = {
      name,
      version,
      ...(title && { title }),
      ...(description && { description }),
      ...(websiteUrl && { websiteUrl }),
      ...(icons && { icons }),
    };
    this.resultMeta = Object.freeze({ [META.serverInfo]: this.info });
    this.instructions = definition.instructions;
    checkToolNames(definition.tools ?? []);
    this.tools = new Registry("Tool", definition.tools ?? [], (tool) => tool.name, describeTool);
    this.prompts = new Registry("Prompt", definition.prompts ?? [], (prompt) => prompt.name, describePrompt);
    // A tool's view is a resource of the server without being declared twice; a view several tools share, once.
    this.views = [...new Set((definition.tools ?? []).flatMap((tool) => (tool.view ? [tool.view] : [])))];
    const declared = definition.resources ?? [];
    this.resources = new ResourceIndex([...declared, ...this.views.filter((view) => !declared.includes(view))]);
    this.skills = definition.skills?.length ? new Skills(definition.skills) : undefined;
    // Why: every skill:// URI is looked up among the skills' files; a resource there would never be read.
    const inSkills =
      this.skills && declared.find((resource) => (isTemplate(resource) ? resource.uriTemplate : resource.uri).startsWith(SKILL_SCHEME));
    if (inSkills) throw new Error(`Resource "${inSkills.name}": skill:// URIs belong to the skills`);
    this.hasTaskTools = [...this.tools.values()].some((tool) => (tool.taskSupport ?? "forbidden") !== "forbidden");
    this.hasCompletions = [...this.prompts.values()].some((prompt) => prompt.complete) || this.resources.hasCompletions();
    this.methods = this.methodTable();
  }

  /**
   * The `Mcp-Param-*` header bindings of a tool. Derived (with the tool's JSON Schema) on first use, not at module
   * load: converting every schema at startup costs milliseconds of CPU on every cold start. `validate()` derives
   * them all, and `npm test` calls it, so a broken declaration fails the tests before it is deployed.
   */
  headerBindingsOf(toolName: string): HeaderBinding[] | undefined {
    const tool = this.tools.get(toolName);
    return tool && this.bindingsOf(tool);
  }

  /** Checks every declaration now (schemas convert, header bindings follow the rules); throws on the first problem. */
  validate(): void {
    for (const tool of this.tools.values()) this.headerBindingsOf(tool.name);
    for (const prompt of this.prompts.values()) describePrompt(prompt);
  }

  /**
   * What this server offers, derived from what is registered: a capability is advertised only if it works.
   * Change notifications (`listChanged`, `subscribe`) work exactly when the Worker has the SUBSCRIPTIONS hub.
   * `logging` is offered to 2025 clients only: 2026-07-28 deprecates it (new implementations SHOULD NOT adopt it),
   * and a server that does not declare it sends no `notifications/message` (see `handlerContext`).
   */
  capabilities(env: object, era: "stateless" | "legacy", client: ClientCapabilities = {}): JsonObject {
    const live = this.listenSupport(env);
    const capabilities: JsonObject = era === "legacy" ? { logging: {} } : {};
    if (this.tools.size > 0) capabilities.tools = live.tools ? { listChanged: true } : {};
    if (this.resources.size > this.hiddenViews(env, client) || this.offersSkills(env))
      capabilities.resources = live.resources ? { subscribe: true, listChanged: true } : {};
    if (this.prompts.size > 0) capabilities.prompts = live.prompts ? { listChanged: true } : {};
    if (this.hasCompletions) capabilities.completions = {};
    // Tasks need their Durable Objects (TASKS); they are a 2026-07-28 extension (per-request capabilities).
    const extensions: JsonObject = {};
    if (era === "stateless" && tasksOf(env) && this.hasTaskTools) extensions[TASKS_EXTENSION] = {};
    // MCP Apps: told only to a client that declared it renders views (others get the answer they always got).
    if (this.offersViews(env, client)) extensions[UI_EXTENSION] = {};
    // Skills (SEP-2640), in both eras: every directory of every skill can be read.
    if (this.offersSkills(env)) extensions[SKILLS_EXTENSION] = { directoryRead: true };
    if (Object.keys(extensions).length > 0) capabilities.extensions = extensions;
    return capabilities;
  }

  /**
   * How a request's handlers publish, as its caller: through the hubs, each resource update marked with the part of
   * its URI a subscription must name (`ResourceIndex.handleOf`, the handle rule).
   */
  publisher(exchange: HttpExchange): Publisher {
    return createPublisher(hubsOf(exchange.env), exchange.principal ?? ANONYMOUS, (uri) => this.resources.handleOf(uri), exchange);
  }

  /** Which notification types `subscriptions/listen` can deliver here. */
  listenSupport(env: object): ListenSupport {
    const hub = hubsOf(env) !== undefined;
    return {
      tools: hub && this.tools.size > 0,
      prompts: hub && this.prompts.size > 0,
      resources: hub && (this.resources.size > 0 || this.offersSkills(env)),
      tasks: hub && tasksOf(env) !== undefined && this.hasTaskTools,
    };
  }

  /** The handler for a method, or -32601 (HTTP 404) when the method is unknown or its capability is absent. */
  method(name: string): MethodHandler {
    const handler = this.methods.get(name);
    if (!handler) throw methodNotFound(name);
    return handler;
  }

  /** Whether this request is offered the views: the server has some, the Worker reads them, the client renders them. */
  offersViews(env: object, client: ClientCapabilities): boolean {
    return this.views.length > 0 && viewsOffered(env, client);
  }

  /** Whether skills are declared and this Worker can serve them. */
  offersSkills(env: object): boolean {
    return this.skills?.offered(env) ?? false;
  }

  /** How many registered resources this request does not see (views it is not offered). */
  private hiddenViews(env: object, client: ClientCapabilities): number {
    return this.offersViews(env, client) ? 0 : this.views.length;
  }

  /** Which fixed resources a request sees: all of them, or all but the views when it is not offered them. */
  private visibleResources(scope: RequestScope): ((resource: ResourceDefinition) => boolean) | undefined {
    return this.offersViews(scope.env, scope.meta.clientCapabilities) ? undefined : (resource) => !isView(resource);
  }

  /**
   * A method whose answer differs for requests offered views: theirs is `adjust`ed and private, so no shared cache
   * hands it to a client that does not render views (nor theirs to them). Without views, the method as it is.
   */
  private differsForViews(handler: MethodHandler, adjust: (result: JsonObject) => JsonObject = (result) => result): MethodHandler {
    if (this.views.length === 0) return handler;
    // The adjusted answer of a kept one (a list's first page) is kept beside it.
    const adjusted = new WeakMap<JsonObject, JsonObject>();
    return async (params, scope, asking) => {
      const result = await handler(params, scope, asking);
      if (!this.offersViews(scope.env, scope.meta.clientCapabilities)) return result;
      if (!isReusable(result)) return { ...adjust(result), cacheScope: "private" };
      let answer = adjusted.get(result);
      if (!answer) {
        answer = reusable({ ...adjust(result), cacheScope: "private" });
        adjusted.set(result, answer);
      }
      return answer;
    };
  }

  /** `tools/list` entries with each tool's view named in `_meta` (for requests offered views). */
  private withViewMeta(result: JsonObject): JsonObject {
    const tools = (result.tools as JsonObject[]).map((entry) => {
      const view = this.tools.get(entry.name as string)?.view;
      return view ? { ...entry, _meta: { ...(entry._meta as JsonObject | undefined), ...toolViewMeta(view) } } : entry;
    });
    return { ...result, tools };
  }

  /**
   * Whether `method`'s handler may wait (on I/O, or on the client) before it answers. Why the transports ask: a
   * keep-alive timer armed for a method that answers from what the isolate holds could never fire before it finished
   * (a timer runs only once the isolate is idle), so arming one would be work for nothing on every such request.
   */
  waits(method: string): boolean {
    return !ANSWERS_AT_ONCE.has(method);
  }

  /** `tools/list` and `tools/call`, for a server that has tools. */
  private addToolMethods(methods: Map<string, MethodHandler>): void {
    // A tool the caller may not use is not listed to it (it stays callable only with the scopes it needs). Without a
    // tool that needs scopes every caller sees them all: no filter, so no check per tool on every list.
    const scoped = [...this.tools.values()].some((tool) => (tool.scopes ?? []).length > 0);
    const visibleTo = (scope: RequestScope) => (tool: Tool) => permits(scope.principal, tool, scope.config);
    const listTools = list("tools", this.tools, scoped ? visibleTo : undefined);
    methods.set(
      "tools/list",
      this.differsForViews(listTools, (result) => this.withViewMeta(result)),
    );
    // Not async: a call whose round and handler wait for nothing is answered without a promise (modern/serve.ts).
    methods.set("tools/call", (params, scope, asking) => {
      const call = toolCall(this.tools, params);
      requireToolScopes(scope.request, scope.config, scope.principal, call.tool);
      // Over its own budget, the tool does not run: the model is told when to retry (define/budget.ts). Charged
      // once per logical call, by the round that admits it: a confirmed retry is not a new call (modern/rounds.ts).
      const { budget } = call.tool;
      const admit =
        budget &&
        (async () => {
          const refusal = await budgetRefusal(call.tool.name, budget, scope);
          return refusal === undefined ? undefined : (toolError(refusal) as JsonObject);
        });
      // A long-running tool runs as a task for a client that can take one; every other call is answered here.
      return runsAsTask(call.tool, scope)
        ? startTask(this.info.name, call, params, scope, asking, admit)
        : callTool(call, params, scope, asking, admit);
    });
  }

  private methodTable(): Map<string, MethodHandler> {
    const methods = new Map<string, MethodHandler>();
    methods.set(
      "server/discover",
      this.differsForViews(async (_params, scope) => ({
        supportedVersions: servedVersions(scope.config.legacyClients),
        capabilities: this.capabilities(scope.env, "stateless", scope.meta.clientCapabilities),
        ...(this.instructions && { instructions: this.instructions }),
        ttlMs: scope.config.limits.lists.ttlMs,
        cacheScope: "public",
      })),
    );
    if (this.tools.size > 0) this.addToolMethods(methods);
    if (this.hasTaskTools) {
      for (const name of TASK_METHODS) methods.set(name, (params, scope) => serveTaskMethod(name, params, scope));
    }
    if (this.resources.size > 0 || this.skills) {
      // Templates that list resources for the caller make the list per caller; otherwise it is one shared list.
      // Views are listed only to requests they are offered to (zero cost, and no filter, without views). Each
      // skill's SKILL.md follows the declared resources.
      const shown = this.views.length > 0 ? (scope: RequestScope) => this.visibleResources(scope) : undefined;
      const skills = this.skills;
      methods.set(
        "resources/list",
        this.differsForViews(async (params, scope) => {
          const extra = skills ? await skills.listed(scope.env) : [];
          if (this.resources.listing.length > 0) return listResources(this.resources, params, scope, shown?.(scope), extra);
          const { page, nextCursor } = paginate([...this.resources.fixed.descriptions(shown?.(scope)), ...extra], params.cursor);
          return { resources: page, ...(nextCursor && { nextCursor }), ...listCacheHint(scope.config) };
        }),
      );
      methods.set("resources/templates/list", list("resourceTemplates", this.resources.templates));
      methods.set("resources/read", (params, scope, asking) =>
        skills?.owns(params.uri) ? skills.read(params, scope) : this.resources.read(params, asking),
      );
    }
    for (const [name, handler] of this.skills?.methods() ?? []) methods.set(name, handler);
    if (this.prompts.size > 0) {
      methods.set("prompts/list", list("prompts", this.prompts));
      methods.set("prompts/get", (params, _scope, asking) => getPrompt(this.prompts, params, asking));
    }
    if (this.hasCompletions) {
      methods.set("completion/complete", (params, scope) => complete(this.prompts, this.resources, params, scope));
    }
    return methods;
  }
}

/**
 * A list method (`tools/list`, `prompts/list`, ...): one page of the registry's entries, with cache hints. With authorization on, lists may differ
 * per caller, so shared caches must not reuse them.
 */
function list<T>(
  field: string,
  registry: Registry<T>,
  visibleTo?: (scope: RequestScope) => ((item: T) => boolean) | undefined,
): MethodHandler {
  // A first page depends only on the configuration (its cache hint, what a scope permits) and on which entries the
  // caller sees: one answer per such pair is kept for the isolate (and serialized once, modern/serve.ts). A page
  // after a cursor is built each time (rare, and the cursor is the client's text).
  const firstPages = new WeakMap<Config, Map<string, JsonObject>>();
  const build = (cursor: unknown, visible: ((item: T) => boolean) | undefined, config: Config): JsonObject => {
    const { page, nextCursor } = registry.page(cursor, visible);
    return { [field]: page, ...(nextCursor && { nextCursor }), ...listCacheHint(config) };
  };
  // Not async: a list is made from what the isolate holds, and answered without a promise (modern/serve.ts).
  return (params, scope) => {
    const visible = visibleTo?.(scope);
    if (params.cursor !== undefined) return build(params.cursor, visible, scope.config);
    let kept = firstPages.get(scope.config);
    if (!kept) {
      kept = new Map();
      firstPages.set(scope.config, kept);
    }
    const seen = registry.visibility(visible);
    const known = kept.get(seen);
    if (known) return known;
    const answer = build(undefined, visible, scope.config);
    // Bounded: each set of scopes callers hold is one entry; past this many, answers are built as before.
    if (kept.size < MAX_KEPT_PAGES) kept.set(seen, reusable(answer));
    return answer;
  };
}

/**
 * The methods whose handlers (`methodTable`) compute their answer from what the isolate holds, awaiting no I/O: the
 * lists of tools, prompts and resource templates, and server/discover. (resources/list may read the skills' assets
 * or call an app's list callbacks, so it is not one.)
 */
const ANSWERS_AT_ONCE = new Set(["server/discover", "tools/list", "prompts/list", "resources/templates/list"]);

/** How many first pages of one list are kept per configuration (one per set of entries a caller sees). */
const MAX_KEPT_PAGES = 64;
