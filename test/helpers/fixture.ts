/**
 * The engine's own test server: small declarations built for the engine's tests, one feature each, so the tests
 * never depend on the example app in src/ (which a fork replaces). test/helpers/rpc.ts serves this definition as
 * `fixture`, the default target of `send`, `call` and `post`; a test that needs other settings serves it again with
 * `testServer(FIXTURE, vars)`.
 */
import * as z from "zod/mini";
import {
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineTool,
  elicitForm,
  elicitUrl,
  type HandlerContext,
  listRoots,
  type ServerDefinition,
  sample,
  samplingText,
  text,
  toolError,
} from "../../src/mcp";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How many times `counted` ran: a refused request must leave it unchanged (no tool code ran). */
export const runs = { counted: 0 };

/** Counts its runs. Not in FIXTURE: tests that need it build their server with it. */
export const counted = defineTool({
  name: "counted",
  description: "Counts its runs.",
  input: z.strictObject({}),
  handler: () => {
    runs.counted++;
    return { content: [text("ran")] };
  },
});

/** Needs the `notes:admin` scope (authorization tests). Not in FIXTURE. */
export const adminOnly = defineTool({
  name: "admin_report",
  description: "Needs the admin scope.",
  input: z.strictObject({}),
  scopes: ["notes:admin"],
  handler: () => ({ content: [text("secret report")] }),
});

/** The JSON-RPC ids of `progress` calls that saw their signal aborted, in order. */
export const cancelledRequests: (string | number)[] = [];

/**
 * What `put` stored, per principal. In the test's isolate: the fixture Worker runs there too. A value is keyed by
 * its owner, so one principal never reads, completes or hears about another's.
 */
const values = new Map<string, string>();
const valueKey = (ctx: HandlerContext, key: string) => `${ctx.principal.id}\n${key}`;
/** The resource URI of a stored value. */
export const valueUri = (key: string) => `fixture://values/${key}`;

export const tools = [
  defineTool({
    name: "echo",
    title: "Echo",
    description: "Returns its text and the caller's principal.",
    input: z.strictObject({ text: z.optional(z.string().check(z.maxLength(1_000))) }),
    output: z.object({ text: z.string(), principal: z.string(), authenticated: z.boolean() }),
    annotations: { readOnlyHint: true },
    handler: (args, ctx) => ({
      structuredContent: { text: args.text ?? "", principal: ctx.principal.id, authenticated: ctx.principal.authenticated },
    }),
  }),
  defineTool({
    name: "publish",
    description: "Publishes one change as the caller: a list change, or an update of `uri`.",
    input: z.strictObject({ what: z.enum(["tools", "prompts", "resources", "updated"]), uri: z.optional(z.string()) }),
    async handler({ what, uri }, ctx) {
      if (what === "updated" && uri === undefined) return toolError("An update needs the uri of the resource that changed.");
      if (what === "tools") await ctx.publish.toolsListChanged();
      if (what === "prompts") await ctx.publish.promptsListChanged();
      if (what === "resources") await ctx.publish.resourcesListChanged();
      if (what === "updated") await ctx.publish.resourceUpdated(uri!);
      return { content: [text("published")] };
    },
  }),
  defineTool({
    name: "put",
    description: "Stores a value for the caller, then announces the update of its resource and a change of the caller's list.",
    input: z.strictObject({ key: z.string().check(z.regex(/^[a-z0-9-]{1,32}$/)), value: z.string().check(z.maxLength(1_000)) }),
    output: z.object({ uri: z.string(), value: z.string() }),
    async handler({ key, value }, ctx) {
      values.set(valueKey(ctx, key), value);
      // After the write, as a real tool would: a failed publish must not fail (or undo) it.
      await ctx.publish.resourceUpdated(valueUri(key));
      await ctx.publish.resourcesListChanged();
      return { structuredContent: { uri: valueUri(key), value } };
    },
  }),
  defineTool({
    name: "ask",
    description: "Asks the client one question of the given kind and reports the answer; `once` makes the asking round single use.",
    input: z.strictObject({ kind: z.enum(["form", "url", "sampling", "roots"]), once: z.optional(z.boolean()) }),
    async handler({ kind, once }, ctx) {
      const options = { singleUse: once === true };
      if (kind === "form") {
        const { answer } = await ctx.ask({ answer: elicitForm("Proceed?", z.object({ ok: z.boolean() })) }, options);
        return { content: [text(`form: ${answer.action}${answer.action === "accept" ? ` ok=${answer.content.ok}` : ""}`)] };
      }
      if (kind === "url") {
        const { answer } = await ctx.ask({ answer: elicitUrl("Sign in to continue.", "https://example.com/sign-in") }, options);
        return { content: [text(`url: ${answer.action}`)] };
      }
      if (kind === "sampling") {
        const question = sample({ messages: [{ role: "user", content: { type: "text", text: "Say yes." } }], maxTokens: 10 });
        const { answer } = await ctx.ask({ answer: question }, options);
        return { content: [text(`sampling: ${samplingText(answer)}`)] };
      }
      const { answer } = await ctx.ask({ answer: listRoots() }, options);
      return { content: [text(`roots: ${answer.roots.length}`)] };
    },
  }),
  defineTool({
    name: "log",
    description: "Writes one log message at debug, one at info and one at warning, then answers.",
    input: z.strictObject({}),
    handler(_args, ctx) {
      ctx.log("debug", "detail", "log");
      ctx.log("info", "progress", "log");
      ctx.log("warning", "careful", "log");
      return { content: [text("logged")] };
    },
  }),
  defineTool({
    name: "progress",
    description: "Takes `steps` steps (default 5): reports progress and logs at info and debug on each; stops when cancelled.",
    input: z.strictObject({ steps: z.optional(z.int().check(z.minimum(1), z.maximum(10))) }),
    async handler({ steps = 5 }, ctx) {
      for (let step = 1; step <= steps; step++) {
        if (ctx.signal.aborted) {
          cancelledRequests.push(ctx.requestId);
          return { content: [text("cancelled")] };
        }
        ctx.progress(step, steps, `step ${step}`);
        ctx.log("info", `step ${step}`);
        ctx.log("debug", `detail ${step}`);
        await pause(20);
      }
      return { content: [text("done")] };
    },
  }),
];

export const resources = [
  defineResource({
    uri: "fixture://readme",
    name: "readme",
    title: "About this fixture",
    mimeType: "text/markdown",
    cache: { ttlMs: 3_600_000, cacheScope: "public" },
    read: () => [{ uri: "fixture://readme", mimeType: "text/markdown", text: "# Engine fixture\n" }],
  }),
  defineResourceTemplate({
    uriTemplate: "fixture://values/{key}",
    name: "value",
    title: "A stored value",
    description: "A value the caller stored with `put`.",
    mimeType: "text/plain",
    cache: { ttlMs: 0, cacheScope: "private" },
    read(uri, { key }, ctx) {
      const value = values.get(valueKey(ctx, key!));
      return value === undefined ? undefined : [{ uri, mimeType: "text/plain", text: value }];
    },
    complete: {
      key: (prefix, { ctx }) =>
        [...values.keys()]
          .filter((stored) => stored.startsWith(valueKey(ctx, prefix)))
          .map((stored) => stored.slice(valueKey(ctx, "").length))
          .sort(),
    },
  }),
];

export const prompts = [
  definePrompt({
    name: "brief",
    title: "Write a brief",
    description: "Asks for a brief on a topic, in a tone.",
    arguments: z.strictObject({
      topic: z.string().check(z.minLength(1), z.maxLength(200), z.describe("What the brief is about")),
      tone: z.optional(z.enum(["formal", "friendly", "terse"]).check(z.describe("How it should sound"))),
    }),
    complete: { tone: (value) => ["formal", "friendly", "terse"].filter((tone) => tone.startsWith(value)) },
    get: ({ topic, tone }) => ({
      description: `A brief about ${topic}`,
      messages: [{ role: "user", content: text(`Write a ${tone ?? "plain"} brief about ${topic}.`) }],
    }),
  }),
];

/** The fixture server's definition: serve it with `testServer(FIXTURE, vars)`. */
export const FIXTURE = {
  name: "engine-fixture",
  title: "Engine fixture",
  version: "1.0.0",
  instructions: "A fixture for the engine's tests: echo, publish, put, ask, log and progress.",
  tools,
  resources,
  prompts,
} satisfies ServerDefinition;
