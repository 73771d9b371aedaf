/**
 * @module server
 * `McpServer`: the registry of tools, resources and prompts, the capabilities it implies, and the table of
 * methods served on the 2026-07-28 path.
 */
import type { EngineBindings } from "../bindings";
import { permits } from "../auth/authenticate";
import type { RequestScope } from "../define/context";
import { complete } from "./completion";
import { methodNotFound } from "./errors";
import { paginate } from "./pagination";
import { headerBindings, type HeaderBinding } from "../http/param-headers";
import { describePrompt, getPrompt, type Prompt } from "../define/prompts";
import { STATELESS_VERSION, META, type Icon, type Implementation, type JsonObject } from "./wire";
import type { ListenSupport } from "../listen/listen";
import { ResourceIndex, type Resource } from "../define/resources";
import { callTool, checkToolNames, describeTool, type Tool } from "../define/tools";

export interface ServerDefinition {
  name: string;
  version: string;
  title?: string;
  description?: string;
  icons?: Icon[];
  /** Guidance for the model on how to use this server as a whole. */
  instructions?: string;
  tools?: readonly Tool[];
  resources?: readonly Resource[];
  prompts?: readonly Prompt[];
}

export type MethodHandler = (params: JsonObject, scope: RequestScope) => Promise<JsonObject>;

export class McpServer {
  readonly info: Implementation & { icons?: Icon[] };
  readonly instructions?: string;
  readonly tools: ReadonlyMap<string, Tool>;
  readonly prompts: ReadonlyMap<string, Prompt>;
  readonly resources: ResourceIndex;
  private readonly bindings = new Map<string, HeaderBinding[]>();
  private readonly methods: ReadonlyMap<string, MethodHandler>;

  constructor(definition: ServerDefinition) {
    const { name, version, title, description, icons } = definition;
    this.info = { name, version, ...(title && { title }), ...(description && { description }), ...(icons && { icons }) };
    this.instructions = definition.instructions;
    checkToolNames(definition.tools ?? []);
    this.tools = new Map((definition.tools ?? []).map((tool) => [tool.name, tool]));
    this.prompts = uniqueByName(definition.prompts ?? [], "Prompt");
    this.resources = new ResourceIndex(definition.resources ?? []);
    this.methods = this.methodTable();
  }

  /**
   * The `Mcp-Param-*` header bindings of a tool. Derived (with the tool's JSON Schema) on first use, not at module
   * load: converting every schema at startup costs milliseconds of CPU on every cold start. `validate()` derives
   * them all, and `npm test` calls it, so a broken declaration fails the tests before it is deployed.
   */
  headerBindingsOf(toolName: string): HeaderBinding[] | undefined {
    const tool = this.tools.get(toolName);
    if (!tool) return undefined;
    let bindings = this.bindings.get(toolName);
    if (!bindings) {
      bindings = headerBindings(tool.name, describeTool(tool).inputSchema as JsonObject);
      this.bindings.set(toolName, bindings);
    }
    return bindings;
  }

  /** Checks every declaration now (schemas convert, header bindings follow the rules); throws on the first problem. */
  validate(): void {
    for (const tool of this.tools.values()) this.headerBindingsOf(tool.name);
    for (const prompt of this.prompts.values()) describePrompt(prompt);
  }

  /**
   * What this server offers, derived from what is registered: a capability is advertised only if it works.
   * Change notifications (`listChanged`, `subscribe`) work exactly when the Worker has the SUBSCRIPTIONS hub.
   */
  capabilities(env: EngineBindings): JsonObject {
    const live = this.listenSupport(env);
    const capabilities: JsonObject = { logging: {} };
    if (this.tools.size > 0) capabilities.tools = live.tools ? { listChanged: true } : {};
    if (this.resources.size > 0) capabilities.resources = live.resources ? { subscribe: true, listChanged: true } : {};
    if (this.prompts.size > 0) capabilities.prompts = live.prompts ? { listChanged: true } : {};
    if (this.hasCompletions()) capabilities.completions = {};
    return capabilities;
  }

  /** Which notification types `subscriptions/listen` can deliver here. */
  listenSupport(env: EngineBindings): ListenSupport {
    const hub = env.SUBSCRIPTIONS !== undefined;
    return { tools: hub && this.tools.size > 0, prompts: hub && this.prompts.size > 0, resources: hub && this.resources.size > 0 };
  }

  /** The handler for a method, or -32601 (HTTP 404) when the method is unknown or its capability is absent. */
  method(name: string): MethodHandler {
    const handler = this.methods.get(name);
    if (!handler) throw methodNotFound(name);
    return handler;
  }

  /** Every result carries the server's identity in `_meta` (spec 2026-07-28, ResultMetaObject). */
  resultMeta(): JsonObject {
    return { [META.serverInfo]: this.info };
  }

  private hasCompletions(): boolean {
    const prompts = [...this.prompts.values()].some((prompt) => prompt.complete);
    return prompts || this.resources.hasCompletions();
  }

  private methodTable(): Map<string, MethodHandler> {
    const methods = new Map<string, MethodHandler>();
    methods.set("server/discover", async (_params, scope) => ({
      supportedVersions: [STATELESS_VERSION],
      capabilities: this.capabilities(scope.env),
      ...(this.instructions && { instructions: this.instructions }),
      ttlMs: scope.config.listTtlMs,
      cacheScope: "public",
    }));
    if (this.tools.size > 0) {
      methods.set("tools/list", async (params, scope) => {
        // A tool the caller may not use is not listed to it (it stays callable only with the scopes it needs).
        const visible = [...this.tools.values()].filter((tool) => permits(scope.principal, tool));
        const { page, nextCursor } = paginate(visible, params.cursor);
        return { tools: page.map(describeTool), ...(nextCursor && { nextCursor }), ...listCache(scope) };
      });
      methods.set("tools/call", (params, scope) => callTool(this.tools, params, scope));
    }
    if (this.resources.size > 0) {
      methods.set("resources/list", async (params, scope) => {
        const { page, nextCursor } = paginate(this.resources.list().resources, params.cursor);
        return { resources: page, ...(nextCursor && { nextCursor }), ...listCache(scope) };
      });
      methods.set("resources/templates/list", async (params, scope) => {
        const { page, nextCursor } = paginate(this.resources.list().templates, params.cursor);
        return { resourceTemplates: page, ...(nextCursor && { nextCursor }), ...listCache(scope) };
      });
      methods.set("resources/read", (params, scope) => this.resources.read(params, scope));
    }
    if (this.prompts.size > 0) {
      methods.set("prompts/list", async (params, scope) => {
        const { page, nextCursor } = paginate([...this.prompts.values()], params.cursor);
        return { prompts: page.map(describePrompt), ...(nextCursor && { nextCursor }), ...listCache(scope) };
      });
      methods.set("prompts/get", (params, scope) => getPrompt(this.prompts, params, scope));
    }
    if (this.hasCompletions()) {
      methods.set("completion/complete", (params, scope) => complete(this.prompts, this.resources, params, scope));
    }
    return methods;
  }
}

/** With authorization on, lists may differ per caller, so shared caches must not reuse them. */
function listCache(scope: RequestScope): JsonObject {
  return { ttlMs: scope.config.listTtlMs, cacheScope: scope.config.auth ? "private" : "public" };
}

function uniqueByName<T extends { name: string }>(items: readonly T[], kind: string): Map<string, T> {
  const map = new Map<string, T>();
  for (const item of items) {
    if (map.has(item.name)) throw new Error(`${kind} "${item.name}" is declared twice`);
    map.set(item.name, item);
  }
  return map;
}
