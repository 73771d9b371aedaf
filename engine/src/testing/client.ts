/**
 * @module testing/client
 * The test client: `connect()` and what a test calls on it. Every method sends real requests through the Worker's
 * `fetch`, as a conforming client of the chosen era would, and follows the protocol on the test's behalf (rounds
 * of questions, tasks, the 2025 handshake); what comes back is what the server sent.
 */

import { ENGINE_VERSION } from "../version";
import { type Answerers, AnswerLayer } from "./answers";
import type { Call, CallOptions, ClientSetup } from "./channel";
import { McpClientError, McpHttpError } from "./errors";
import { LegacySession } from "./legacy";
import { DEFAULT_WAIT_MS, type Listener, type ListenFilter, listenLegacy, listenModern } from "./listen";
import { sendModern } from "./modern";
import { withRounds } from "./rounds";
import { TaskRun } from "./tasks";
import { type Fetcher, post } from "./transport";
import type { CallToolResult, CompleteResult, CompletionRef, GetPromptResult, ListMethod, ReadResourceResult, Task } from "./types";
import {
  isObject,
  type Json,
  LEGACY_VERSIONS,
  type LegacyVersion,
  MODERN_VERSION,
  type ParamHeader,
  POST_HEADERS,
  paramHeadersOf,
  paramHeaderValues,
  TASKS_EXTENSION,
} from "./wire";

/**
 * How the client connects. Answerers given here (`answers`, `onElicit`, `onSample`, `onRoots`) answer every call's questions.
 *
 * @example
 * const signedIn = await connect(app, { headers: { authorization: `Bearer ${token}` }, capabilities: { elicitation: {} } });
 * const june = await connect(app, { era: "2025", version: "2025-06-18", tasks: { pollIntervalMs: 10 } });
 */
export interface ConnectOptions extends Answerers {
  /** `2026-07-28` (the default: stateless, `_meta` on every request) or `2025` (the initialize handshake and a session). */
  era?: "2026-07-28" | "2025";
  /** With `era: "2025"`: the revision to negotiate (default 2025-11-25). */
  version?: LegacyVersion;
  /**
   * The client capabilities to declare. Default: everything the client can answer in its revision: elicitation
   * (forms and URLs), sampling and roots, and on 2026-07-28 the Tasks extension. Declare less to test how a tool
   * degrades (e.g. `{}`: no questions can be asked).
   */
  capabilities?: Json;
  /** `clientInfo` (default `{ name: "mcp-test-client", version: <engine version> }`). */
  clientInfo?: { name: string; version: string };
  /** Added to every request, e.g. `{ authorization: "Bearer ..." }`. */
  headers?: Record<string, string>;
  /** The MCP endpoint (default `http://localhost:8787/mcp`). */
  url?: string;
  /** At most this many rounds of questions per call (default 10); past it the call fails. */
  maxRounds?: number;
  /** Task polling: `pollIntervalMs` (default: each task's own) and `maxPolls` per wait (default 100). */
  tasks?: { pollIntervalMs?: number; maxPolls?: number };
}

const DEFAULT_URL = "http://localhost:8787/mcp";
const DEFAULT_MAX_ROUNDS = 10;
const DEFAULT_MAX_POLLS = 100;
/** How many pages `pages()` follows before it calls the listing endless. */
const MAX_PAGES = 100;

/** What a client of `version` can answer, declared by default. */
function defaultCapabilities(version: string): Json {
  const questions = { sampling: {}, roots: {} };
  if (version === MODERN_VERSION) return { elicitation: { form: {}, url: {} }, ...questions, extensions: { [TASKS_EXTENSION]: {} } };
  if (version === "2025-11-25") return { elicitation: { form: {}, url: {} }, ...questions };
  // 2025-06-18 has forms only; 2025-03-26 has no elicitation.
  if (version === "2025-06-18") return { elicitation: {}, ...questions };
  return questions;
}

/**
 * Connects a test client to a Worker. On 2026-07-28 nothing is sent yet (there is no handshake); with `era: "2025"`
 * it runs `initialize` and `notifications/initialized`, and keeps the `Mcp-Session-Id` the server assigns.
 *
 * @param fetcher how requests reach the Worker: `(request) => worker.fetch(request, env, createExecutionContext())`
 * @param options the era, capabilities, headers, and the answerers for the tools' questions
 * @example
 * import { createExecutionContext } from "cloudflare:test";
 * import { env } from "cloudflare:workers";
 * import worker from "..";
 * import { accept, connect } from "../../src/testing";
 *
 * const app = (request: Request) => worker.fetch(request, env, createExecutionContext());
 * const client = await connect(app, { answers: { confirm: accept({ delete: true }) } });
 * const legacy = await connect(app, { era: "2025", version: "2025-06-18" });
 */
export async function connect(fetcher: Fetcher, options: ConnectOptions = {}): Promise<McpTestClient> {
  const era = options.era ?? MODERN_VERSION;
  if (era !== MODERN_VERSION && era !== "2025")
    throw new McpClientError("usage", `connect: era must be "2026-07-28" or "2025", not ${JSON.stringify(era)}`);
  if (era === MODERN_VERSION && options.version !== undefined) {
    throw new McpClientError("usage", 'connect: "version" picks a 2025 revision; pass era: "2025" with it');
  }
  const version = era === MODERN_VERSION ? MODERN_VERSION : (options.version ?? LEGACY_VERSIONS[0]);
  if (version !== MODERN_VERSION && !(LEGACY_VERSIONS as readonly string[]).includes(version)) {
    throw new McpClientError("usage", `connect: version must be one of ${LEGACY_VERSIONS.join(", ")}, not ${JSON.stringify(version)}`);
  }
  let nextId = 1;
  const setup: ClientSetup = {
    fetcher,
    url: options.url ?? DEFAULT_URL,
    headers: options.headers ?? {},
    capabilities: options.capabilities ?? defaultCapabilities(version),
    clientInfo: options.clientInfo ?? { name: "mcp-test-client", version: ENGINE_VERSION },
    answers: new AnswerLayer(options),
    maxRounds: options.maxRounds ?? DEFAULT_MAX_ROUNDS,
    tasks: {
      maxPolls: options.tasks?.maxPolls ?? DEFAULT_MAX_POLLS,
      ...(options.tasks?.pollIntervalMs !== undefined && { pollIntervalMs: options.tasks.pollIntervalMs }),
    },
    nextId: () => nextId++,
  };
  const session = version === MODERN_VERSION ? undefined : await LegacySession.open(setup, version as LegacyVersion);
  return new McpTestClient(setup, version, session);
}

/**
 * A connected test client. Protocol errors throw `McpError`; a tool that fails is a result with `isError: true`.
 *
 * @example
 * const client = await connect(app);
 * const { structuredContent } = await client.callTool("create_notebook", { title: "Trip" });
 * expect(structuredContent.notebook_id).toMatch(/^nb_/);
 */
export class McpTestClient {
  private readonly listeners = new Set<Listener>();
  private toolHeaders?: Promise<Map<string, ParamHeader[]>>;

  /** @internal Use `connect()`. */
  constructor(
    private readonly setup: ClientSetup,
    /** The revision this client speaks: `2026-07-28`, or the negotiated 2025 revision. */
    readonly version: string,
    private readonly session: LegacySession | undefined,
  ) {}

  /**
   * The capabilities this client declares (per request on 2026-07-28, at initialize on 2025).
   *
   * @example
   * expect((await connect(app)).capabilities).toHaveProperty("sampling");
   */
  get capabilities(): Json {
    return this.setup.capabilities;
  }

  /**
   * 2025: the `Mcp-Session-Id` the server assigned at initialize (undefined without one, and on 2026-07-28).
   *
   * @example
   * expect((await connect(app, { era: "2025" })).sessionId).toBeDefined();
   */
  get sessionId(): string | undefined {
    return this.session?.sessionId;
  }

  /**
   * 2025: the InitializeResult (server info, capabilities, instructions); undefined on 2026-07-28.
   *
   * @example
   * expect((await connect(app, { era: "2025" })).initializeResult).toMatchObject({ protocolVersion: "2025-11-25" });
   */
  get initializeResult(): Json | undefined {
    return this.session?.initializeResult;
  }

  private call(label: string, options: CallOptions, headers?: Record<string, string>): Call {
    if (this.session && options.logLevel !== undefined) {
      throw new McpClientError("usage", `${label}: a 2025 session sets its log level with request("logging/setLevel", { level })`);
    }
    return { options, layers: [new AnswerLayer(options), this.setup.answers], label, ...(headers && { headers }) };
  }

  /** One request, its result as the server sent it; in 2025 the server's questions on its stream are answered. */
  private send(method: string, params: Json, call: Call): Promise<Json> {
    return this.session ? this.session.send(method, params, call) : sendModern(this.setup, method, params, call);
  }

  /** A request that may ask questions: rounds on 2026-07-28, the server's requests on 2025. */
  private async ask(method: string, params: Json, call: Call): Promise<Json> {
    if (this.session) return this.legacyResult(await this.session.send(method, params, call), call.label);
    return withRounds(this.setup, method, params, call);
  }

  /** A 2026-07-28 result must be complete here (no rounds, no task); a 2025 result carries no resultType at all. */
  private expectComplete(result: Json, label: string): Json {
    if (this.session) return this.legacyResult(result, label);
    if (result.resultType !== "complete")
      throw new McpClientError("protocol", `${label}: resultType ${JSON.stringify(result.resultType)}, not "complete"`);
    return result;
  }

  private legacyResult(result: Json, label: string): Json {
    if ("resultType" in result)
      throw new McpClientError("protocol", `${label}: a ${this.version} result carries resultType, which 2025 revisions do not have`);
    return result;
  }

  /**
   * Calls a tool and returns its result, after answering every question it asks (rounds on 2026-07-28, the
   * server's requests on 2025) and, when the server runs it as a task, after the task completed.
   *
   * @param name the tool's name
   * @param args its arguments
   * @param options answerers for this call (before the client's), `onProgress`, `logLevel`, `meta`, `maxRounds`
   * @example
   * const result = await client.callTool("delete_note", { notebook_id, note_id }, { answers: { confirm: accept({ delete: true }) } });
   * expect(result.content[0]?.text).toContain("Deleted note");
   */
  // biome-ignore lint/suspicious/noExplicitAny: as CallToolResult's default, so structuredContent reads without a declared shape.
  async callTool<S = any>(name: string, args: Json = {}, options: CallOptions = {}): Promise<CallToolResult<S>> {
    const outcome = await this.toolCall(name, args, options);
    return (outcome instanceof TaskRun ? await outcome.result() : outcome) as CallToolResult<S>;
  }

  /**
   * Calls a tool that runs as a task (Tasks extension, 2026-07-28) and returns the task to drive: poll it, answer
   * it, cancel it. Questions asked before the task exists are answered first, as for any call. Fails when the
   * server answers with a result instead of a task.
   *
   * @param name the tool's name
   * @param args its arguments
   * @param options answerers for this call and its task (before the client's), and the other call options
   * @example
   * const task = await client.startTask("retag_notebook", { notebook_id, batch_delay_ms: 2_000 });
   * await task.until((seen) => seen.statusMessage?.startsWith("Scanned") === true, { pollIntervalMs: 10 });
   * await task.cancel();
   */
  async startTask(name: string, args: Json = {}, options: CallOptions = {}): Promise<TaskRun> {
    if (this.session) throw new McpClientError("usage", `tools/call ${name}: tasks are a 2026-07-28 extension; a 2025 client has none`);
    const outcome = await this.toolCall(name, args, options);
    if (outcome instanceof TaskRun) return outcome;
    throw new McpClientError("task", `tools/call ${name}: the server answered with a result (resultType "complete"), not a task`);
  }

  private async toolCall(name: string, args: Json, options: CallOptions): Promise<CallToolResult | TaskRun> {
    const call = this.call(`tools/call ${name}`, options, await this.paramHeaders(name, args));
    const result = await this.ask("tools/call", { name, arguments: args }, call);
    if (this.session || result.resultType === "complete") return result as CallToolResult;
    if (result.resultType === "task" && typeof result.taskId === "string") return new TaskRun(this.setup, call, result as unknown as Task);
    throw new McpClientError("protocol", `${call.label}: resultType ${JSON.stringify(result.resultType)} is none a client knows`);
  }

  /**
   * The `Mcp-Param-*` headers of a call (2026-07-28): from the tool's input schema, as `tools/list` describes it.
   * The first call lists the tools once, as a client that shows a model its tools has; a failed listing is not kept.
   */
  private async paramHeaders(name: string, args: Json): Promise<Record<string, string> | undefined> {
    if (this.session) return undefined;
    this.toolHeaders ??= this.pages("tools/list").then(
      (pages) => {
        const bound = new Map<string, ParamHeader[]>();
        for (const tool of pages.flatMap((page) => (Array.isArray(page.tools) ? page.tools : []))) {
          const bindings = isObject(tool) ? paramHeadersOf(tool.inputSchema) : [];
          if (bindings.length > 0) bound.set(String(tool.name), bindings);
        }
        return bound;
      },
      () => {
        this.toolHeaders = undefined;
        return new Map();
      },
    );
    const bindings = (await this.toolHeaders).get(name);
    return bindings ? paramHeaderValues(bindings, args) : undefined;
  }

  /**
   * Reads a resource, answering any questions its read asks.
   *
   * @param uri the resource's URI
   * @param options answerers and the other call options
   * @example
   * const { contents } = await client.readResource(`note://${notebook_id}/${note_id}`);
   * expect(contents[0]?.text).toContain("# Groceries");
   */
  async readResource(uri: string, options: CallOptions = {}): Promise<ReadResourceResult> {
    const call = this.call(`resources/read ${uri}`, options);
    return this.expectComplete(await this.ask("resources/read", { uri }, call), call.label) as ReadResourceResult;
  }

  /**
   * Gets a prompt, answering any questions it asks.
   *
   * @param name the prompt's name
   * @param args its arguments (strings)
   * @param options answerers and the other call options
   * @example
   * const prompt = await client.getPrompt("review_notes", { notebook_id, topic: "ship" });
   * expect(prompt.messages).toHaveLength(2);
   */
  async getPrompt(name: string, args: Record<string, string> = {}, options: CallOptions = {}): Promise<GetPromptResult> {
    const call = this.call(`prompts/get ${name}`, options);
    return this.expectComplete(await this.ask("prompts/get", { name, arguments: args }, call), call.label) as unknown as GetPromptResult;
  }

  /**
   * One page of `tools/list` (pass the previous page's `nextCursor` for the next).
   *
   * @param cursor the `nextCursor` of the previous page
   * @example
   * const { tools } = await client.listTools();
   * expect(tools.map((tool) => tool.name)).toContain("add_note");
   */
  listTools(cursor?: string): Promise<Json & { tools: (Json & { name: string; inputSchema: Json })[]; nextCursor?: string }> {
    return this.list("tools/list", cursor) as never;
  }

  /**
   * One page of `resources/list`.
   *
   * @param cursor the `nextCursor` of the previous page
   * @example
   * const { resources } = await client.listResources();
   * expect(resources[0]).toMatchObject({ uri: "notes://guide" });
   */
  listResources(cursor?: string): Promise<Json & { resources: (Json & { uri: string; name: string })[]; nextCursor?: string }> {
    return this.list("resources/list", cursor) as never;
  }

  /**
   * One page of `resources/templates/list`.
   *
   * @param cursor the `nextCursor` of the previous page
   * @example
   * const { resourceTemplates } = await client.listResourceTemplates();
   * expect(resourceTemplates[0]).toMatchObject({ uriTemplate: "note://{notebook_id}/{note_id}" });
   */
  listResourceTemplates(cursor?: string): Promise<Json & { resourceTemplates: (Json & { uriTemplate: string })[]; nextCursor?: string }> {
    return this.list("resources/templates/list", cursor) as never;
  }

  /**
   * One page of `prompts/list`.
   *
   * @param cursor the `nextCursor` of the previous page
   * @example
   * const { prompts } = await client.listPrompts();
   * expect(prompts.map((prompt) => prompt.name)).toEqual(["review_notes"]);
   */
  listPrompts(cursor?: string): Promise<Json & { prompts: (Json & { name: string })[]; nextCursor?: string }> {
    return this.list("prompts/list", cursor) as never;
  }

  private async list(method: ListMethod, cursor?: string): Promise<Json> {
    const call = this.call(method, {});
    return this.expectComplete(await this.send(method, cursor === undefined ? {} : { cursor }, call), method);
  }

  /**
   * Every page of a listing, following `nextCursor` (at most 100 pages), each as the server sent it.
   *
   * @param method `tools/list`, `resources/list`, `resources/templates/list` or `prompts/list`
   * @example
   * const listed = (await client.pages("resources/list")).flatMap((page) => page.resources as { uri: string }[]);
   */
  async pages(method: ListMethod): Promise<Json[]> {
    const pages: Json[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const listed = await this.list(method, cursor);
      pages.push(listed);
      if (typeof listed.nextCursor !== "string") return pages;
      cursor = listed.nextCursor;
    }
    throw new McpClientError("protocol", `${method}: still a nextCursor after ${MAX_PAGES} pages`);
  }

  /**
   * Asks `completion/complete` for values of a prompt's or resource template's argument.
   *
   * @param ref the prompt (`{ type: "ref/prompt", name }`) or template (`{ type: "ref/resource", uri }`)
   * @param argument the argument being completed and what was typed so far
   * @param context the values of the other arguments, when the completion depends on them
   * @example
   * const { completion } = await client.complete(
   *   { type: "ref/resource", uri: "note://{notebook_id}/{note_id}" },
   *   { name: "note_id", value: "n_" },
   *   { notebook_id },
   * );
   */
  async complete(ref: CompletionRef, argument: { name: string; value: string }, context?: Record<string, string>): Promise<CompleteResult> {
    const params = { ref, argument, ...(context && { context: { arguments: context } }) };
    const call = this.call("completion/complete", {});
    return this.expectComplete(await this.send("completion/complete", params, call), call.label) as unknown as CompleteResult;
  }

  /**
   * `server/discover` (2026-07-28): the server's versions, capabilities and instructions.
   *
   * @example
   * const { supportedVersions } = await client.discover();
   * expect(supportedVersions).toContain("2026-07-28");
   */
  async discover(): Promise<Json & { supportedVersions: string[]; capabilities: Json }> {
    if (this.session) throw new McpClientError("usage", "server/discover is a 2026-07-28 method; a 2025 client has initializeResult");
    const call = this.call("server/discover", {});
    return this.expectComplete(await this.send("server/discover", {}, call), call.label) as never;
  }

  /**
   * Listens for change notifications. On 2026-07-28: `subscriptions/listen` with `filter`, once acknowledged (the
   * listener's `acknowledged` says what the server agreed to). On 2025: `resources/subscribe` for each of
   * `filter.resourceSubscriptions`, then the session's GET stream, which carries those updates and every list
   * change the server announces. `close()` (or the client's) ends it.
   *
   * @param filter what to hear about
   * @param options `timeoutMs`: how long to wait for the stream to open (default 10000 ms)
   * @example
   * const listener = await client.listen({ resourcesListChanged: true });
   * await client.callTool("add_note", { notebook_id, title: "New", body: "x" });
   * expect(await listener.next()).toMatchObject({ method: "notifications/resources/list_changed" });
   */
  async listen(filter: ListenFilter = {}, options: { timeoutMs?: number } = {}): Promise<Listener> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_MS;
    const onClose = (listener: Listener) => this.listeners.delete(listener);
    const call = this.call("subscriptions/listen", {});
    const listener = this.session
      ? await listenLegacy(this.session, filter, call, timeoutMs, onClose)
      : await listenModern(this.setup, filter, call, timeoutMs, onClose);
    this.listeners.add(listener);
    return listener;
  }

  /**
   * Sends any request and returns its result as the server sent it (no rounds, no task following; on 2025 the
   * server's questions on its stream are still answered). For methods the client has no shortcut for, e.g.
   * `logging/setLevel` or `ping` on 2025.
   *
   * @param method the JSON-RPC method
   * @param params its params (`_meta` is added on 2026-07-28)
   * @param options answerers and the other call options
   * @example
   * const first = await client.request("tools/call", { name: "delete_note", arguments: args });
   * expect(first).toMatchObject({ resultType: "input_required" });
   */
  request(method: string, params: Json = {}, options: CallOptions = {}): Promise<Json> {
    return this.send(method, params, this.call(method, options));
  }

  /**
   * Sends a notification (the server answers 202 and nothing else); on 2025, e.g. `notifications/cancelled`.
   *
   * @param method the notification's method
   * @param params its params
   * @example
   * await client.notify("notifications/cancelled", { requestId: 7, reason: "the user gave up" });
   */
  async notify(method: string, params?: Json): Promise<void> {
    if (this.session) return this.session.notify(method, params);
    // A 2026-07-28 notification carries no required _meta; the method header still mirrors the body.
    const headers = { ...this.setup.headers, ...POST_HEADERS, "mcp-protocol-version": MODERN_VERSION, "mcp-method": method };
    const response = await post(this.setup.fetcher, this.setup.url, { jsonrpc: "2.0", method, ...(params && { params }) }, headers);
    const body = await response.text();
    if (response.status !== 202) throw new McpHttpError(`POST ${method}`, response.status, response.headers, body);
  }

  /**
   * Closes every open listener and, on 2025, ends the session (DELETE; a session the server cannot end early expires).
   *
   * @example
   * afterEach(() => client.close());
   */
  async close(): Promise<void> {
    await Promise.all([...this.listeners].map((listener) => listener.close()));
    await this.session?.end();
  }
}
