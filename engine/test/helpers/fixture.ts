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
  embeddedResource,
  type HandlerContext,
  listRoots,
  type ServerDefinition,
  sample,
  samplingText,
  text,
  toolError,
} from "../../src";

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
/** What a key may be: short, lower case, URL-safe (so it is its own resource URI segment). */
const KEY = /^[a-z0-9-]{1,32}$/;
/** How many values the fixture holds, for every principal: a refused or read-only request must leave it unchanged. */
export const storedValueCount = () => values.size;

/**
 * Forgets what the fixture's tools recorded. Called before each test file (test/helpers/fresh-state.ts): the files
 * share one module graph, and a file must start as if it were alone, as the Durable Objects do.
 */
export function resetFixture(): void {
  values.clear();
  runs.counted = 0;
  cancelledRequests.length = 0;
}

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
    input: z.strictObject({ key: z.string().check(z.regex(KEY)), value: z.string().check(z.maxLength(1_000)) }),
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

/** A tool error the model can act on when the caller stored nothing at `key`. */
const unknownKey = (key: string) => toolError(`Nothing is stored at key ${key}. Store a value there with put first.`);

/**
 * The rest of the value store, shaped like a handle-based app's tools (a notes app's read, search, delete and batch
 * retag): a read of a key nobody stored answers a tool error and stores nothing; a search takes a bounded text, a
 * bounded list and an integer range; a deletion asks for a single-use confirmation; a batch job may run as a task.
 * Not in FIXTURE, whose lists other tests assert: the fuzzing and the bad-input checklist serve them beside it.
 */
export const storeTools = [
  defineTool({
    name: "get",
    description: "Reads the value the caller stored at a key.",
    input: z.strictObject({ key: z.string().check(z.regex(KEY)) }),
    output: z.object({ uri: z.string(), value: z.string() }),
    annotations: { readOnlyHint: true },
    handler({ key }, ctx) {
      const value = values.get(valueKey(ctx, key));
      return value === undefined ? unknownKey(key) : { structuredContent: { uri: valueUri(key), value } };
    },
  }),
  defineTool({
    name: "find",
    description: "Lists the caller's keys whose value holds every word of `query` (case-insensitive), among `keys` if given.",
    input: z.strictObject({
      query: z.string().check(z.maxLength(200)),
      keys: z.optional(z.array(z.string().check(z.regex(KEY))).check(z.maxLength(10))),
      limit: z.optional(z.int().check(z.minimum(1), z.maximum(50))),
    }),
    output: z.object({ keys: z.array(z.string()) }),
    annotations: { readOnlyHint: true },
    handler({ query, keys, limit = 10 }, ctx) {
      const words = query.toLowerCase().split(/\s+/).filter(Boolean);
      const own = valueKey(ctx, "");
      const found = [...values.entries()]
        .filter(([stored]) => stored.startsWith(own))
        .map(([stored, value]) => [stored.slice(own.length), value.toLowerCase()] as const)
        .filter(([key, value]) => (keys === undefined || keys.includes(key)) && words.every((word) => value.includes(word)))
        .map(([key]) => key)
        .sort();
      return { structuredContent: { keys: found.slice(0, limit) } };
    },
  }),
  defineTool({
    name: "remove",
    description: "Deletes the value at a key once the user confirms (a single-use confirmation).",
    input: z.strictObject({ key: z.string().check(z.regex(KEY)) }),
    annotations: { destructiveHint: true, idempotentHint: true },
    async handler({ key }, ctx) {
      if (!values.has(valueKey(ctx, key))) return unknownKey(key);
      // Single use: one signed confirmation deletes once, never again when the same retry is replayed.
      const { confirm } = await ctx.ask(
        { confirm: elicitForm(`Delete the value at ${key}?`, z.object({ delete: z.boolean() })) },
        { singleUse: true },
      );
      if (confirm.action !== "accept" || !confirm.content.delete) return { content: [text(`Kept the value at ${key}.`)] };
      values.delete(valueKey(ctx, key));
      await ctx.publish.resourceUpdated(valueUri(key));
      await ctx.publish.resourcesListChanged();
      return { content: [text(`Removed the value at ${key}.`)] };
    },
  }),
  defineTool({
    name: "tidy",
    description: "Trims the space around each of the caller's values (those at `keys`, if given), one by one, reporting progress.",
    input: z.strictObject({ keys: z.optional(z.array(z.string().check(z.regex(KEY))).check(z.maxLength(10))) }),
    // A batch job, like an app's rewrite of everything a user has: a task for clients that declared the Tasks
    // extension, an ordinary call for the others.
    taskSupport: "optional",
    async handler({ keys }, ctx) {
      const own = valueKey(ctx, "");
      const chosen = [...values.keys()].filter(
        (stored) => stored.startsWith(own) && (keys === undefined || keys.includes(stored.slice(own.length))),
      );
      ctx.progress(0, chosen.length, "Tidying");
      for (const [index, stored] of chosen.entries()) {
        if (ctx.signal.aborted) return toolError(`Cancelled after tidying ${index} of ${chosen.length} values.`);
        const value = values.get(stored);
        if (value !== undefined) values.set(stored, value.trim());
        ctx.progress(index + 1, chosen.length, `Tidied ${index + 1} of ${chosen.length}`);
        await ctx.checkpoint();
      }
      return { content: [text(`Tidied ${chosen.length} values.`)] };
    },
  }),
];

/**
 * A prompt over the store, shaped like a handle-based app's review prompt: its argument is a key (checked by its
 * schema, so `get` never sees a malformed one), its completion reads the store, and a key nobody stored still makes a
 * prompt (one message saying so). Not in FIXTURE, as `storeTools`.
 */
export const recall = definePrompt({
  name: "recall",
  title: "Recall a value",
  description: "Asks the model to work with the value stored at a key, on an optional focus.",
  arguments: z.strictObject({
    key: z.string().check(z.regex(KEY), z.describe("A key the caller stored a value at")),
    focus: z.optional(z.string().check(z.maxLength(200), z.describe("What to look at in the value"))),
  }),
  complete: {
    // Words of the stored value, as focus suggestions.
    focus(prefix, { arguments: args, ctx }) {
      const value = args.key === undefined ? undefined : values.get(valueKey(ctx, args.key));
      const words = new Set(value?.toLowerCase().match(/\p{L}{4,}/gu) ?? []);
      return [...words].filter((word) => word.startsWith(prefix.toLowerCase())).sort();
    },
  },
  get({ key, focus }, ctx) {
    const value = values.get(valueKey(ctx, key));
    const about = focus ? ` about ${focus}` : "";
    if (value === undefined)
      return { messages: [{ role: "user", content: text(`Nothing is stored at ${key} yet. Suggest a value to store there${about}.`) }] };
    return {
      description: `The value at ${key}`,
      messages: [
        { role: "user", content: embeddedResource({ uri: valueUri(key), mimeType: "text/plain", text: value }) },
        { role: "user", content: text(`Review the value above${about}.`) },
      ],
    };
  },
});

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
