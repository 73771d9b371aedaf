/**
 * Handlers with every parameter, answer and result annotated, against the public module alone: each type a handler
 * meets has a public name, so a helper that takes or returns one can say so. Nothing here runs; `npm run check`
 * type-checks it. (The examples of the public API are not here: each is written once, in its JSDoc, and
 * test/repo/public-api.test.ts compiles them from there.)
 */
import * as z from "zod/mini";
import {
  type Answers,
  type AskOptions,
  type Audience,
  type ClientCapabilities,
  type ClientView,
  type CompletionContext,
  type ContentBlock,
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineTool,
  elicitForm,
  elicitUrl,
  type FormAnswer,
  type FormRequest,
  type HandlerContext,
  type Implementation,
  type InputApi,
  type InputKind,
  type InputRequest,
  type JsonObject,
  type LogLevel,
  listRoots,
  type Principal,
  type PromptContext,
  type PromptResult,
  type Publisher,
  type RequestId,
  type ResourceContents,
  type ResourceContext,
  type ResourceListPage,
  type RootsAnswer,
  type SamplingAnswer,
  type SamplingContent,
  sample,
  type TaskSupport,
  type ToolContext,
  type ToolResult,
  text,
  type UrlAnswer,
} from "../../src";

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
    ctx.log("debug", { profile, page, folders, content, asked, taskSupport, supported: input.supports(kind, { samplingContext: false }) });
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
