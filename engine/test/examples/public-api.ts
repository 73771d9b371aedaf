/**
 * The `@example` of every export of the engine's public module (src/index.ts), here so that `npm run check`
 * type-checks them against that module alone. Each block starts with a `// @example <export>` line (several exports
 * may share one) and runs to the next comment line at column 0; it is the exact text of that export's `@example` in
 * its JSDoc, and test/repo/public-api.test.ts fails when the two differ. To change an example, change it in both.
 *
 * At the end, handlers with every parameter and value annotated: each type a handler meets has a public name.
 * Nothing here runs; it only has to compile.
 */
import * as z from "zod/mini";
import {
  type Annotations,
  type AnswerOf,
  type Answers,
  type AskOptions,
  type Audience,
  audio,
  authorizationServer,
  type CacheHint,
  type ClientCapabilities,
  type ClientView,
  type Completer,
  type CompletionContext,
  type ContentBlock,
  createMcpWorker,
  type Declarations,
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineSkill,
  defineTool,
  defineView,
  ENGINE_VERSION,
  type EngineBindings,
  type EngineOptions,
  elicitForm,
  elicitUrl,
  embeddedResource,
  type FormAnswer,
  type FormRequest,
  type HandlerContext,
  type Icon,
  type Implementation,
  type InputApi,
  type InputKind,
  type InputRequest,
  image,
  type JsonObject,
  type JsonSchemaInput,
  jsonSchema,
  type LimitOptions,
  type Limits,
  type ListedResource,
  type LogLevel,
  listRoots,
  type ObjectSchema,
  type Principal,
  type Prompt,
  type PromptContext,
  type PromptDefinition,
  type PromptMessage,
  type PromptResult,
  type Publisher,
  type RequestId,
  type Resource,
  type ResourceContents,
  type ResourceContext,
  type ResourceDefinition,
  type ResourceLink,
  type ResourceListPage,
  type ResourceTemplateDefinition,
  type RootsAnswer,
  type RootsRequest,
  resourceLink,
  type SamplingAnswer,
  type SamplingContent,
  type SamplingNeeds,
  type SamplingParams,
  type SamplingRequest,
  type ServerCardRepository,
  type ServerDefinition,
  type Skill,
  type SkillDefinition,
  sample,
  samplingText,
  type TaskSupport,
  type Tool,
  type ToolAnnotations,
  type ToolContext,
  type ToolDefinition,
  type ToolInput,
  type ToolResult,
  text,
  titledEnum,
  toBase64,
  toolError,
  type UrlAnswer,
  type UrlRequest,
  type View,
  type ViewCsp,
  type ViewDefinition,
  type ViewPermissions,
  validateServer,
} from "../../src";

// @example defineTool
export const getForecast = defineTool({
  name: "get_forecast",
  title: "Weather forecast",
  description: "The weather forecast for a city, one entry per day.",
  input: z.strictObject({ city: z.string().check(z.minLength(1)), days: z.optional(z.int().check(z.minimum(1), z.maximum(7))) }),
  output: z.object({ city: z.string(), days: z.array(z.object({ date: z.string(), summary: z.string() })) }),
  annotations: { readOnlyHint: true, openWorldHint: true },
  async handler({ city, days = 3 }, ctx) {
    const url = `https://weather.example/forecast?city=${encodeURIComponent(city)}&days=${days}`;
    const response = await fetch(url, { signal: ctx.signal });
    if (!response.ok) return toolError(`No forecast for ${city} (HTTP ${response.status}). Check the city's spelling.`);
    const forecast = (await response.json()) as { date: string; summary: string }[];
    return { structuredContent: { city, days: forecast } };
  },
});

// @example Tool
export function tools(): Tool[] {
  // Called on the first request (`declarations`), so no cold start pays for building these zod schemas.
  return [
    defineTool({
      name: "echo",
      description: "Repeat a text back.",
      input: z.strictObject({ text: z.string().check(z.maxLength(1_000)) }),
      handler: (args) => ({ content: [text(args.text)] }),
    }),
  ];
}

// @example ToolDefinition
export function adminTool<In extends ToolInput, Out extends z.ZodMiniType | undefined = undefined>(
  definition: ToolDefinition<In, Out>,
): Tool {
  return defineTool({ ...definition, scopes: ["admin", ...(definition.scopes ?? [])] });
}

// @example ToolInput
export const orderInput: ToolInput = jsonSchema({
  type: "object",
  properties: { order: { type: "string", pattern: "^[0-9]{6}$" } },
  required: ["order"],
});

// @example ToolContext
export async function fetchJson(ctx: ToolContext, url: string): Promise<unknown> {
  ctx.progress(0, 1, `Fetching ${url}`);
  const response = await fetch(url, { signal: ctx.signal });
  ctx.progress(1, 1);
  return response.json();
}

// @example ToolResult
export function itemsResult(items: string[]): ToolResult<{ items: string[] }> {
  return { content: [text(`${items.length} item(s)`)], structuredContent: { items } };
}

// @example toolError
export const divide = defineTool({
  name: "divide",
  description: "Divide a by b.",
  input: z.strictObject({ a: z.number(), b: z.number() }),
  handler: ({ a, b }) => (b === 0 ? toolError("b must not be 0: pick another divisor.") : { content: [text(String(a / b))] }),
});

// @example text
export const greeting: ToolResult = { content: [text("Hello! Ask me for a forecast.")] };

// @example image
export async function chartResult(chartUrl: string): Promise<ToolResult> {
  const png = new Uint8Array(await (await fetch(chartUrl)).arrayBuffer());
  return { content: [text("The chart:"), image(toBase64(png), "image/png")] };
}

// @example audio
export function chimeResult(wav: Uint8Array): ToolResult {
  return { content: [audio(toBase64(wav), "audio/wav")] };
}

// @example resourceLink
export const noteCreated: ToolResult = {
  content: [text("Added the note."), resourceLink({ uri: "note://nb_1/n_2", name: "Shopping list", mimeType: "text/markdown" })],
};

// @example embeddedResource
export const reviewMessage: PromptMessage = {
  role: "user",
  content: embeddedResource({ uri: "note://nb_1/n_2", mimeType: "text/markdown", text: "# Shopping list\n\n- milk" }),
};

// @example toBase64
export const helloFile: ResourceContents = { uri: "files://hello.txt", mimeType: "text/plain", blob: toBase64("Hello") };

// @example jsonSchema
export const lookupOrder = defineTool({
  name: "lookup_order",
  description: "Look up an order by its six-digit number.",
  input: jsonSchema({
    type: "object",
    properties: { order: { type: "string", pattern: "^[0-9]{6}$" } },
    required: ["order"],
    additionalProperties: false,
  }),
  handler: (args) => ({ content: [text(`Order ${String(args.order)} is on its way.`)] }),
});

// @example JsonSchemaInput
export const orderNumber: JsonSchemaInput = jsonSchema({ type: "object", properties: { order: { type: "string" } } });
export const orderProblem: string | undefined = orderNumber.problems({ order: 12 }); // "/order: ..."

// @example definePrompt
export const reviewCode = definePrompt({
  name: "review_code",
  title: "Review code",
  description: "Ask the model to review a piece of code.",
  arguments: z.strictObject({ code: z.string(), language: z.optional(z.string().check(z.describe("e.g. typescript"))) }),
  get: ({ code, language }) => ({
    messages: [{ role: "user", content: text(`Review this ${language ?? ""} code for bugs:\n\n${code}`) }],
  }),
});

// @example Prompt
export function prompts(): Prompt[] {
  return [
    definePrompt({
      name: "plan_trip",
      description: "Plan a trip around the weather.",
      arguments: z.strictObject({ city: z.string() }),
      get: ({ city }) => ({ messages: [{ role: "user", content: text(`Plan three days in ${city} around the forecast.`) }] }),
    }),
  ];
}

// @example PromptDefinition
export function teamPrompt<Args extends ObjectSchema>(definition: PromptDefinition<Args>): Prompt {
  return definePrompt({ ...definition, title: definition.title ?? `Team: ${definition.name}` });
}

// @example PromptResult
export function askModel(question: string): PromptResult {
  return { description: "One question", messages: [{ role: "user", content: text(question) }] };
}

// @example PromptContext
export function introduceCaller(ctx: PromptContext): PromptMessage {
  return { role: "user", content: text(`I am ${ctx.principal.name ?? ctx.principal.id}.`) };
}

// @example defineResource
export const readme = defineResource({
  uri: "docs://readme",
  name: "readme",
  title: "Read me",
  mimeType: "text/markdown",
  cache: { ttlMs: 3_600_000, cacheScope: "public" },
  read: () => [{ uri: "docs://readme", mimeType: "text/markdown", text: "# Weather server\n\nAsk for a forecast." }],
});

// @example defineResourceTemplate
export const CITIES = ["lima", "oslo", "paris"];
export const cityWeather = defineResourceTemplate({
  uriTemplate: "weather://{city}",
  name: "city-weather",
  description: "Current weather in one city, as JSON.",
  mimeType: "application/json",
  // Public data: a subscription to `weather://` hears about every city.
  handles: [],
  read: (uri, { city }) =>
    city && CITIES.includes(city) ? [{ uri, mimeType: "application/json", text: JSON.stringify({ city, sky: "clear" }) }] : undefined,
  complete: { city: (value) => CITIES.filter((city) => city.startsWith(value)) },
  list: () => ({ resources: CITIES.map((city) => ({ uri: `weather://${city}`, name: `Weather in ${city}` })) }),
});

// @example Resource
export const resources: Resource[] = [
  defineResource({ uri: "docs://install", name: "install", read: () => [{ uri: "docs://install", text: "npm install" }] }),
  defineResource({ uri: "docs://usage", name: "usage", read: () => [{ uri: "docs://usage", text: "npm run dev" }] }),
];

// @example ResourceDefinition
export function markdownPage(uri: string, name: string, markdown: string): ResourceDefinition {
  return { uri, name, mimeType: "text/markdown", read: () => [{ uri, mimeType: "text/markdown", text: markdown }] };
}

// @example ResourceTemplateDefinition
export function jsonFamily(name: string, load: (id: string) => Promise<unknown>): ResourceTemplateDefinition {
  return {
    uriTemplate: `${name}://{id}`,
    name,
    mimeType: "application/json",
    async read(uri, { id }) {
      const value = id === undefined ? undefined : await load(id);
      return value === undefined ? undefined : [{ uri, mimeType: "application/json", text: JSON.stringify(value) }];
    },
  };
}

// @example ResourceContext
export async function readOwnFile(ctx: ResourceContext, uri: string): Promise<ResourceContents[]> {
  const response = await fetch(`https://files.example/${encodeURIComponent(ctx.principal.id)}`, { signal: ctx.signal });
  return [{ uri, mimeType: "text/plain", text: await response.text() }];
}

// @example Completer
export const completeColor: Completer = (value) => ["red", "green", "blue"].filter((color) => color.startsWith(value));

// @example CompletionContext
export const CITIES_BY_COUNTRY: Record<string, string[]> = { no: ["bergen", "oslo"], pe: ["cusco", "lima"] };
export function completeCity(value: string, { arguments: args }: CompletionContext): string[] {
  return (CITIES_BY_COUNTRY[args.country ?? ""] ?? []).filter((city) => city.startsWith(value));
}

// @example ListedResource, ResourceListPage
export function reportPage(ids: string[], cursor: string | undefined): ResourceListPage {
  const start = Number(cursor ?? "0");
  const resources: ListedResource[] = ids.slice(start, start + 50).map((id) => ({ uri: `report://${id}`, name: `Report ${id}` }));
  return start + 50 < ids.length ? { resources, nextCursor: String(start + 50) } : { resources };
}

// @example defineView
export const dashboard = defineView({
  uri: "ui://weather/dashboard",
  name: "dashboard",
  title: "Weather dashboard",
  asset: "/views/dashboard.html",
  csp: { connectDomains: ["https://api.weather.example"] },
  prefersBorder: true,
});

// @example View
export function showDashboard(view: View): Tool {
  return defineTool({
    name: "show_dashboard",
    description: "Show the weather dashboard.",
    input: z.strictObject({}),
    view,
    handler: () => ({ content: [text("Clear skies in all three cities.")] }),
  });
}

// @example ViewDefinition
export const mapDefinition: ViewDefinition = { uri: "ui://weather/map", name: "map", asset: "/views/map.html" };
export const mapView: View = defineView(mapDefinition);

// @example ViewCsp
export const tileCsp: ViewCsp = { connectDomains: ["https://api.weather.example"], resourceDomains: ["https://tiles.example"] };

// @example ViewPermissions
export const clipboardOnly: ViewPermissions = { clipboardWrite: {} };

// @example defineSkill
export const skills: Skill[] = [defineSkill({ name: "code-review" })];

// @example Skill
export function skillUris(skills: readonly Skill[]): string[] {
  return skills.map((skill) => skill.uri);
}

// @example SkillDefinition
export const reviewDefinition: SkillDefinition = { name: "code-review" };

// @example HandlerContext
export function auditLine(ctx: HandlerContext, action: string): string {
  return `${ctx.principal.id} ${action} (request ${ctx.traceId})`;
}

// @example Publisher
export async function announceRename(publish: Publisher, uri: string): Promise<void> {
  await Promise.all([publish.resourceUpdated(uri), publish.resourcesListChanged()]);
}

// @example Audience
export async function announceStatus(ctx: HandlerContext): Promise<void> {
  const audience: Audience = "everyone"; // status://service is the same for every caller
  await ctx.publish.resourceUpdated("status://service", audience);
}

// @example ClientView
export function clientLabel(client: ClientView): string {
  return `${client.info?.name ?? "an unnamed client"} speaking ${client.protocolVersion}`;
}

// @example InputApi
export async function askForName(input: InputApi): Promise<string | undefined> {
  if (!input.supports("form")) return undefined;
  const { who } = await input.ask({ who: elicitForm("What should I call you?", z.object({ name: z.string() })) });
  return who.action === "accept" ? who.content.name : undefined;
}

// @example AskOptions
export async function confirmOnce(ctx: ToolContext, question: string): Promise<boolean> {
  const options: AskOptions = { singleUse: true }; // the answer authorizes one action, never a replay of it
  const { ok } = await ctx.ask({ ok: elicitForm(question, z.object({ confirm: z.boolean() })) }, options);
  return ok.action === "accept" && ok.content.confirm;
}

// @example elicitForm
export const deleteFile = defineTool({
  name: "delete_file",
  description: "Delete a file. The user is asked to confirm first.",
  input: z.strictObject({ path: z.string() }),
  async handler({ path }, ctx) {
    const { confirm } = await ctx.ask(
      { confirm: elicitForm(`Delete ${path}? This cannot be undone.`, z.object({ delete: z.boolean() })) },
      { singleUse: true },
    );
    if (confirm.action !== "accept" || !confirm.content.delete) return { content: [text(`Kept ${path}.`)] };
    // ...delete the file: only after the last ask, since every round runs the handler from the top.
    return { content: [text(`Deleted ${path}.`)] };
  },
});

// @example elicitUrl
export const connectCalendar = defineTool({
  name: "connect_calendar",
  description: "Connect the user's calendar.",
  input: z.strictObject({}),
  async handler(_args, ctx) {
    const { visit } = await ctx.ask({ visit: elicitUrl("Connect your calendar, then come back.", "https://calendar.example/connect") });
    return visit.action === "accept" ? { content: [text("Connecting; try again in a minute.")] } : toolError("The user declined.");
  },
});

// @example sample, samplingText
export const summarize = defineTool({
  name: "summarize",
  description: "Summarize a text with the client's model.",
  input: z.strictObject({ text: z.string() }),
  async handler(args, ctx) {
    if (!ctx.supports("sampling")) return toolError("This client offers no model to summarize with.");
    const { summary } = await ctx.ask({
      summary: sample({ messages: [{ role: "user", content: { type: "text", text: `Summarize:\n\n${args.text}` } }], maxTokens: 300 }),
    });
    return { content: [text(samplingText(summary))] };
  },
});

// @example listRoots
export const workspace = defineTool({
  name: "workspace",
  description: "Name the user's workspace folders.",
  input: z.strictObject({}),
  async handler(_args, ctx) {
    if (!ctx.supports("roots")) return { content: [text("The client shares no workspace folders.")] };
    const { folders } = await ctx.ask({ folders: listRoots() });
    return { content: [text(folders.roots.map((root) => root.name ?? root.uri).join("\n"))] };
  },
});

// @example titledEnum
export const pickColor = defineTool({
  name: "pick_color",
  description: "Ask the user for a color.",
  input: z.strictObject({}),
  async handler(_args, ctx) {
    const form = z.object({ color: titledEnum({ red: "Red", green: "Green", blue: "Blue" }) });
    const { choice } = await ctx.ask({ choice: elicitForm("Which color?", form) });
    return { content: [text(choice.action === "accept" ? `You chose ${choice.content.color}.` : "No color chosen.")] };
  },
});

// @example ObjectSchema, FormRequest
export function reviewForm<S extends ObjectSchema>(schema: S): FormRequest<S> {
  return elicitForm("Please review these values before I save them.", schema);
}

// @example UrlRequest
export const signInPage: UrlRequest = elicitUrl("Sign in to the billing portal.", "https://billing.example/login");

// @example SamplingRequest, SamplingParams
export const haikuParams: SamplingParams = {
  messages: [{ role: "user", content: { type: "text", text: "Write a haiku about rain." } }],
  maxTokens: 100,
  systemPrompt: "You write short poems.",
  temperature: 0.8,
};
export const haiku: SamplingRequest = sample(haikuParams);

// @example RootsRequest
export const roots: RootsRequest = listRoots();

// @example InputRequest
export function feedbackQuestion(ctx: ToolContext): InputRequest {
  return ctx.supports("form")
    ? elicitForm("How did it go?", z.object({ stars: z.int().check(z.minimum(1), z.maximum(5)) }))
    : elicitUrl("Tell us how it went.", "https://example.com/feedback");
}

// @example SamplingContent
export function textOf(content: SamplingContent | SamplingContent[]): string {
  return (Array.isArray(content) ? content : [content]).map((block) => (block.type === "text" ? String(block.text) : "")).join("");
}

// @example InputKind
export function missingKinds(ctx: ToolContext, needed: InputKind[]): InputKind[] {
  return needed.filter((kind) => !ctx.supports(kind));
}

// @example SamplingNeeds
export function canSampleWithTools(ctx: ToolContext): boolean {
  const needs: SamplingNeeds = { samplingTools: true };
  return ctx.supports("sampling", needs);
}

// @example FormAnswer
export function acceptedName(answer: FormAnswer<{ name: string }>): string {
  return answer.action === "accept" ? answer.content.name : "stranger";
}

// @example UrlAnswer
export function wentThere(answer: UrlAnswer): boolean {
  return answer.action === "accept"; // the user agreed to open the page; what happened there is not known
}

// @example SamplingAnswer
export function byline(answer: SamplingAnswer): string {
  return `${samplingText(answer)}\n(written by ${answer.model})`;
}

// @example RootsAnswer
export function rootUris(answer: RootsAnswer): string[] {
  return answer.roots.map((root) => root.uri);
}

// @example Answers, AnswerOf
export const signUpQuestions = { profile: elicitForm("Your name?", z.object({ name: z.string() })), folders: listRoots() };
export function signUpSummary(answers: Answers<typeof signUpQuestions>): string {
  const profile: AnswerOf<typeof signUpQuestions.profile> = answers.profile;
  const name = profile.action === "accept" ? profile.content.name : "someone";
  return `${name}, with ${answers.folders.roots.length} folder(s)`;
}

// @example ServerDefinition
export const weatherServer: ServerDefinition = {
  name: "weather",
  version: "1.0.0",
  title: "Weather",
  instructions: "Call echo with a text to hear it back; read docs://usage to run the server.",
  declarations: () => ({ tools: tools(), resources, prompts: prompts() }),
};

// @example Declarations
export function declarations(): Declarations {
  return { tools: tools(), resources, prompts: prompts() };
}

// @example createMcpWorker
export const weather = createMcpWorker<Env>({
  name: "weather",
  version: "1.0.0",
  instructions: "Call echo with a text to hear it back.",
  declarations: () => ({ tools: tools(), prompts: prompts() }),
  limits: { request: { maxBodyBytes: 262_144 } },
});
export class TaskRunner extends weather.TaskRunner {}

// @example authorizationServer
export const signedInWorker = createMcpWorker<Env>({
  name: "weather",
  version: "1.0.0",
  tools: [getForecast],
  // With AUTH_LOGIN set: without this line the configuration is invalid, and /mcp answers 503 until it is added.
  authorizationServer,
});

// @example validateServer
export function checkDeclarations(): void {
  // In a test of the app: fails `npm test`, not the first request after a deploy.
  validateServer({ name: "weather", version: "1.0.0", declarations: () => ({ tools: tools(), prompts: prompts() }) });
}

// @example EngineOptions
export const options: EngineOptions = {
  legacyClients: true,
  scopeHierarchy: ["prefix", "admin>reports"],
  limits: { tasks: { maxActivePerCaller: 3 } },
};

// @example ServerCardRepository
export const notesRepository: ServerCardRepository = { url: "https://github.com/you/notes", source: "github", subfolder: "server" };
export const cardedWorker = createMcpWorker({
  name: "io.github.you/notes",
  version: "1.0.0",
  description: "Notes you can search and edit.",
  tools: [getForecast],
  serverCard: { repository: notesRepository },
});

// @example LimitOptions
export const limits: LimitOptions = { state: { ttlMs: 300_000 }, listen: { maxPerCaller: 10 } };

// @example Limits
export function taskLimits(overrides: Partial<Limits["tasks"]>): LimitOptions {
  return { tasks: { ttlMs: 7_200_000, ...overrides } };
}

// @example EngineBindings
export interface WeatherEnv extends EngineBindings {
  WEATHER_API_KEY: string;
}
export const weatherWorker = createMcpWorker<WeatherEnv>({ name: "weather", version: "1.0.0", tools: [getForecast] });

// @example ENGINE_VERSION
export const serverInfo = { name: "weather", version: `1.0.0+engine.${ENGINE_VERSION}` };

// @example Principal
export function ownerKey(principal: Principal, id: string): string {
  // With authorization off every caller is the same anonymous principal: the key then tells no one apart.
  return `${principal.id}:${id}`;
}

// @example TaskSupport
export const reindex = defineTool({
  name: "reindex",
  description: "Rebuild the search index, 100 pages.",
  input: z.strictObject({}),
  taskSupport: "optional",
  async handler(_args, ctx) {
    const state = ctx.state as { done?: number };
    ctx.progress(state.done ?? 0, 100, "Indexing"); // a task starts at the first progress report
    while ((state.done ?? 0) < 100) {
      if (ctx.signal.aborted) return toolError(`Cancelled after ${state.done ?? 0} pages.`);
      // ...index page state.done...
      state.done = (state.done ?? 0) + 1;
      ctx.progress(state.done, 100, `Indexed ${state.done} of 100 pages`);
      await ctx.checkpoint(); // saves ctx.state; a run that used its slice ends here, and the next one resumes
    }
    return { content: [text("Reindexed 100 pages.")] };
  },
});

// @example JsonObject
export function remember(ctx: ToolContext, key: string, value: string): JsonObject {
  ctx.state[key] = value; // carried, signed, to the next round of this request
  return ctx.state;
}

// @example ContentBlock
export function bulletList(lines: string[]): ContentBlock[] {
  return lines.map((line) => text(`- ${line}`));
}

// @example ResourceContents
export const logo: ResourceContents = { uri: "brand://logo.svg", mimeType: "image/svg+xml", text: "<svg></svg>" };

// @example ResourceLink
export const forecastLink: ResourceLink = { uri: "weather://oslo", name: "Weather in Oslo", mimeType: "application/json" };

// @example Icon
export const sunIcon: Icon = { src: "https://weather.example/sun.png", mimeType: "image/png", sizes: ["48x48"] };

// @example Annotations
export const forTheUser: Annotations = { audience: ["user"], priority: 0.9, lastModified: "2026-01-31T12:00:00Z" };

// @example ToolAnnotations
export const readOnly: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };

// @example PromptMessage
export const question: PromptMessage = { role: "user", content: text("What should I pack for Oslo?") };

// @example CacheHint
export const hourly: CacheHint = { ttlMs: 3_600_000, cacheScope: "public" };

// @example ClientCapabilities
export function asksUrls(capabilities: ClientCapabilities): boolean {
  return capabilities.elicitation?.url !== undefined;
}

// @example Implementation
export function clientName(client: Implementation | undefined): string {
  return client?.title ?? client?.name ?? "unknown";
}

// @example LogLevel
export function logAt(ctx: HandlerContext, level: LogLevel, message: string): void {
  ctx.log(level, { message, traceId: ctx.traceId }, "weather");
}

// @example RequestId
export function requestLabel(id: RequestId): string {
  return typeof id === "number" ? `#${id}` : id;
}

// Handlers with every parameter, answer and result annotated (not examples): each type a handler meets is named
// from the public module, so a helper that takes or returns one can say so.
const profileForm = z.object({ name: z.string() });
const annotatedQuestions = {
  profile: elicitForm("Your name?", profileForm),
  page: elicitUrl("Open the page.", "https://example.com"),
  draft: sample({ messages: [{ role: "user", content: { type: "text", text: "Draft." } }], maxTokens: 10 }),
  folders: listRoots(),
};

export const annotatedTool = defineTool({
  name: "annotated",
  description: "Every type named.",
  input: z.strictObject({ city: z.string() }),
  async handler(args: { city: string }, ctx: ToolContext): Promise<ToolResult<never>> {
    const env: Env = ctx.env;
    const signal: AbortSignal = ctx.signal;
    const principal: Principal = ctx.principal;
    const client: ClientView = ctx.client;
    const capabilities: ClientCapabilities = client.capabilities;
    const info: Implementation | undefined = client.info;
    const requestId: RequestId = ctx.requestId;
    const publish: Publisher = ctx.publish;
    const audience: Audience = "caller";
    const taskSupport: TaskSupport = "forbidden";
    const level: LogLevel = "info";
    const state: JsonObject = ctx.state;
    const input: InputApi = ctx;
    const kind: InputKind = "form";
    const needs: SamplingNeeds = { samplingContext: false };
    const askOptions: AskOptions = { singleUse: false };
    const answers: Answers<typeof annotatedQuestions> = await input.ask(annotatedQuestions, askOptions);
    const profile: FormAnswer<z.output<typeof profileForm>> = answers.profile;
    const page: UrlAnswer = answers.page;
    const draft: SamplingAnswer = answers.draft;
    const folders: RootsAnswer = answers.folders;
    const content: SamplingContent | SamplingContent[] = draft.content;
    const form: FormRequest<typeof profileForm> = annotatedQuestions.profile;
    const asked: InputRequest[] = [form, annotatedQuestions.page, annotatedQuestions.draft, annotatedQuestions.folders];
    const blocks: ContentBlock[] = [text(args.city)];
    await publish.resourceUpdated(`weather://${args.city}`, audience);
    ctx.log(level, { bindings: Object.keys(env), aborted: signal.aborted, principal: principal.id, capabilities, info, requestId, state });
    ctx.log("debug", { profile, page, folders, content, asked, taskSupport, supported: input.supports(kind, needs) });
    return { content: blocks };
  },
});

export const annotatedResource = defineResource({
  uri: "annotated://fixed",
  name: "annotated",
  read: (ctx: ResourceContext): ResourceContents[] => [{ uri: "annotated://fixed", text: ctx.principal.id }],
});

export const annotatedTemplate = defineResourceTemplate({
  uriTemplate: "annotated://{id}",
  name: "annotated-template",
  read: (uri: string, variables: Record<string, string>, ctx: ResourceContext): ResourceContents[] | undefined =>
    variables.id ? [{ uri, text: `${variables.id} for ${ctx.principal.id}` }] : undefined,
  list: (ctx: HandlerContext, cursor: string | undefined): ResourceListPage => ({
    resources: cursor ? [] : [{ uri: `annotated://${ctx.principal.id}`, name: "yours" }],
  }),
  complete: { id: (value: string, context: CompletionContext): string[] => [value, context.ctx.principal.id] },
});

export const annotatedPrompt = definePrompt({
  name: "annotated",
  arguments: z.strictObject({ topic: z.string() }),
  get: (args: { topic: string }, ctx: PromptContext): PromptResult => ({
    messages: [{ role: "user", content: text(`${args.topic} for ${ctx.principal.id}`) }],
  }),
});
