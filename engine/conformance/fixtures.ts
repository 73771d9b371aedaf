/**
 * The tools, resources and prompts the official conformance suite calls by name
 * (@modelcontextprotocol/conformance, `src/scenarios/server/*.ts`). Kept out of src/ so a forker's server stays clean.
 */
import * as z from "zod/mini";
import {
  audio,
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineTool,
  elicitForm,
  embeddedResource,
  image,
  jsonSchema,
  listRoots,
  sample,
  samplingText,
  text,
  titledEnum,
  toolError,
} from "../src";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";
const noArgs = z.strictObject({});
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const nameForm = (message: string) => elicitForm(message, z.object({ name: z.string() }));
/** label_items's one question, declared once (its elicitation schema is converted once per isolate). */
const labelChoice = z.object({ apply: z.boolean(), mode: z.enum(["add", "replace"]) });
const LABEL_BATCH = 25;

export const tools = [
  defineTool({
    name: "test_simple_text",
    description: "Returns a simple text response.",
    input: noArgs,
    handler: () => ({ content: [text("This is a simple text response for testing.")] }),
  }),
  defineTool({
    name: "test_image_content",
    description: "Returns an image.",
    input: noArgs,
    handler: () => ({ content: [image(PNG, "image/png")] }),
  }),
  defineTool({
    name: "test_audio_content",
    description: "Returns audio.",
    input: noArgs,
    handler: () => ({ content: [audio(WAV, "audio/wav")] }),
  }),
  defineTool({
    name: "test_embedded_resource",
    description: "Returns an embedded resource.",
    input: noArgs,
    handler: () => ({
      content: [
        embeddedResource({ uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." }),
      ],
    }),
  }),
  defineTool({
    name: "test_multiple_content_types",
    description: "Returns text, an image and an embedded resource.",
    input: noArgs,
    handler: () => ({
      content: [
        text("Multiple content types test:"),
        image(PNG, "image/png"),
        embeddedResource({ uri: "test://mixed-content-resource", mimeType: "application/json", text: '{"test":"data","value":123}' }),
      ],
    }),
  }),
  defineTool({
    name: "test_tool_with_progress",
    description: "Reports progress 0, 50 and 100 of 100.",
    input: noArgs,
    async handler(_args, ctx) {
      for (const progress of [0, 50, 100]) {
        ctx.progress(progress, 100, `Completed step ${progress} of 100`);
        await pause(50);
      }
      return { content: [text("Progress complete")] };
    },
  }),
  defineTool({
    name: "test_error_handling",
    description: "Always fails with a tool error.",
    input: noArgs,
    handler: () => toolError("This tool intentionally returns an error for testing"),
  }),
  defineTool({
    name: "test_missing_capability",
    description: "Needs the client's sampling capability.",
    input: noArgs,
    async handler(_args, ctx) {
      const { answer } = await ctx.ask({
        answer: sample({ messages: [{ role: "user", content: { type: "text", text: "Say yes" } }], maxTokens: 10 }),
      });
      return { content: [text(`Success: ${samplingText(answer)}`)] };
    },
  }),
  defineTool({
    name: "test_streaming_elicitation",
    description: "Asks for input; the request must never carry a server-to-client request.",
    input: noArgs,
    async handler(_args, ctx) {
      const { user } = await ctx.ask({ user: nameForm("What is your name?") });
      return { content: [text(user.action === "accept" ? `Streaming complete for ${user.content.name}` : "Streaming complete")] };
    },
  }),
  defineTool({
    name: "test_logging_tool",
    description: "Logs only when the request asked for logs.",
    input: noArgs,
    handler(_args, ctx) {
      ctx.log("info", "Logging evaluated");
      return { content: [text("Logging evaluated")] };
    },
  }),
  defineTool({
    name: "test_trigger_tool_change",
    description: "Announces a tool list change to every listener.",
    input: noArgs,
    async handler(_args, ctx) {
      await ctx.publish.toolsListChanged();
      return { content: [text("Mutation triggered")] };
    },
  }),
  defineTool({
    name: "test_trigger_prompt_change",
    description: "Announces a prompt list change to every listener.",
    input: noArgs,
    async handler(_args, ctx) {
      await ctx.publish.promptsListChanged();
      return { content: [text("Mutation triggered")] };
    },
  }),
  defineTool({
    name: "test_input_required_result_elicitation",
    description: "Asks for the user's name (elicitation).",
    input: noArgs,
    async handler(_args, ctx) {
      const { user_name } = await ctx.ask({ user_name: nameForm("What is your name?") });
      return { content: [text(user_name.action === "accept" ? `Hello, ${user_name.content.name}!` : `Elicitation ${user_name.action}`)] };
    },
  }),
  defineTool({
    name: "test_input_required_result_sampling",
    description: "Asks the client's model a question (sampling).",
    input: noArgs,
    async handler(_args, ctx) {
      const { capital_question } = await ctx.ask({
        capital_question: sample({
          messages: [{ role: "user", content: { type: "text", text: "What is the capital of France?" } }],
          maxTokens: 100,
        }),
      });
      return { content: [text(`Sampling result: ${samplingText(capital_question)}`)] };
    },
  }),
  defineTool({
    name: "test_input_required_result_list_roots",
    description: "Asks for the client's roots.",
    input: noArgs,
    async handler(_args, ctx) {
      const { client_roots } = await ctx.ask({ client_roots: listRoots() });
      return { content: [text(`Found ${client_roots.roots.length} root(s)`)] };
    },
  }),
  defineTool({
    name: "test_input_required_result_request_state",
    description: "Keeps a value in requestState between rounds.",
    input: noArgs,
    async handler(_args, ctx) {
      ctx.state.marker ??= "state-ok";
      const { confirm } = await ctx.ask({ confirm: elicitForm("Please confirm", z.object({ ok: z.boolean() })) });
      return { content: [text(`${String(ctx.state.marker)}: confirmed=${confirm.action === "accept" && confirm.content.ok}`)] };
    },
  }),
  defineTool({
    name: "test_input_required_result_multiple_inputs",
    description: "Asks for a form, a sampling answer and roots at once.",
    input: noArgs,
    async handler(_args, ctx) {
      const answers = await ctx.ask({
        user_name: nameForm("What is your name?"),
        greeting: sample({ messages: [{ role: "user", content: { type: "text", text: "Generate a greeting" } }], maxTokens: 50 }),
        client_roots: listRoots(),
      });
      const name = answers.user_name.action === "accept" ? answers.user_name.content.name : "unknown";
      return { content: [text(`${samplingText(answers.greeting)} ${name}, ${answers.client_roots.roots.length} root(s)`)] };
    },
  }),
  defineTool({
    name: "test_input_required_result_multi_round",
    description: "Asks two questions in two rounds.",
    input: noArgs,
    async handler(_args, ctx) {
      const { step1 } = await ctx.ask({ step1: nameForm("Step 1: What is your name?") });
      const { step2 } = await ctx.ask({ step2: elicitForm("Step 2: What is your favorite color?", z.object({ color: z.string() })) });
      const name = step1.action === "accept" ? step1.content.name : "someone";
      const color = step2.action === "accept" ? step2.content.color : "nothing";
      return { content: [text(`Multi-round complete for ${name} who likes ${color}`)] };
    },
  }),
  defineTool({
    name: "test_input_required_result_tampered_state",
    description: "Relies on integrity-protected requestState.",
    input: noArgs,
    async handler(_args, ctx) {
      const { confirm } = await ctx.ask({ confirm: elicitForm("Please confirm", z.object({ ok: z.boolean() })) });
      return { content: [text(`Confirmed: ${confirm.action}`)] };
    },
  }),
  defineTool({
    name: "test_input_required_result_capabilities",
    description: "Asks only for what the client declared: elicitation when offered, else sampling.",
    input: noArgs,
    async handler(_args, ctx) {
      if (ctx.supports("form")) {
        const { user_name } = await ctx.ask({ user_name: nameForm("What is your name?") });
        return { content: [text(`Elicited: ${user_name.action}`)] };
      }
      const { capital_question } = await ctx.ask({
        capital_question: sample({
          messages: [{ role: "user", content: { type: "text", text: "What is the capital of France?" } }],
          maxTokens: 100,
        }),
      });
      return { content: [text(`Sampled: ${samplingText(capital_question)}`)] };
    },
  }),

  // A header-bound argument (`x-mcp-header`), for the custom-header scenario.
  defineTool({
    name: "test_header_param",
    description: "Echoes a region that clients mirror in the Mcp-Param-Region header.",
    input: z.strictObject({ region: z.string().check(z.meta({ "x-mcp-header": "Region" })) }),
    handler: ({ region }) => ({ content: [text(`Region: ${region}`)] }),
  }),

  // The 2025-11-25 scenarios' tools; in a session their questions reach the client as real requests.
  defineTool({
    name: "test_tool_with_logging",
    description: "Sends three info log messages.",
    input: noArgs,
    async handler(_args, ctx) {
      for (const message of ["Tool execution started", "Tool processing data", "Tool execution completed"]) {
        ctx.log("info", message);
        await pause(50);
      }
      return { content: [text("Tool with logging executed successfully")] };
    },
  }),
  defineTool({
    name: "test_sampling",
    description: "Asks the client's model to answer a prompt.",
    input: z.strictObject({ prompt: z.string() }),
    async handler({ prompt }, ctx) {
      const { answer } = await ctx.ask({
        answer: sample({ messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens: 100 }),
      });
      return { content: [text(`LLM response: ${samplingText(answer)}`)] };
    },
  }),
  defineTool({
    name: "test_elicitation",
    description: "Asks the user for a username and an email address.",
    input: z.strictObject({ message: z.string() }),
    async handler({ message }, ctx) {
      const { user } = await ctx.ask({
        user: elicitForm(
          message,
          z.object({
            username: z.string().check(z.describe("User's response")),
            email: z.string().check(z.describe("User's email address")),
          }),
        ),
      });
      return {
        content: [
          text(`User response: action=${user.action}${user.action === "accept" ? `, content=${JSON.stringify(user.content)}` : ""}`),
        ],
      };
    },
  }),
  defineTool({
    name: "test_elicitation_sep1034_defaults",
    description: "Asks for a form whose fields have defaults.",
    input: noArgs,
    async handler(_args, ctx) {
      const { form } = await ctx.ask({
        form: elicitForm(
          "Please review and update the form fields with defaults",
          z.object({
            name: z._default(z.string(), "John Doe"),
            age: z._default(z.int(), 30),
            score: z._default(z.number(), 95.5),
            status: z._default(z.enum(["active", "inactive", "pending"]), "active"),
            verified: z._default(z.boolean(), true),
          }),
        ),
      });
      return {
        content: [text(`Elicitation completed: action=${form.action}, content=${JSON.stringify("content" in form ? form.content : {})}`)],
      };
    },
  }),
  defineTool({
    name: "test_elicitation_sep1330_enums",
    description: "Asks for a form with every kind of enum field.",
    input: noArgs,
    async handler(_args, ctx) {
      const { form } = await ctx.ask({
        form: elicitForm(
          "Please choose options",
          z.object({
            untitledSingle: z.enum(["option1", "option2", "option3"]),
            titledSingle: titledEnum({ value1: "First Option", value2: "Second Option", value3: "Third Option" }),
            legacyEnum: z.enum(["opt1", "opt2", "opt3"]).check(z.meta({ enumNames: ["Option One", "Option Two", "Option Three"] })),
            untitledMulti: z.array(z.enum(["option1", "option2", "option3"])).check(z.minLength(1), z.maxLength(3)),
            titledMulti: z.array(titledEnum({ value1: "First Choice", value2: "Second Choice", value3: "Third Choice" })),
          }),
        ),
      });
      return { content: [text(`Elicitation completed: action=${form.action}`)] };
    },
  }),
  // Tasks extension (scenarios tasks-*). A task is created at the handler's first ctx.progress().
  defineTool({
    name: "greet",
    description: "Greets by name, synchronously.",
    input: z.strictObject({ name: z.string() }),
    handler: ({ name }) => ({ content: [text(`Hello, ${name}!`)] }),
  }),
  defineTool({
    name: "slow_compute",
    description: "Works for `seconds` seconds, then answers; as a task when the client can take one.",
    input: z.strictObject({ seconds: z.number().check(z.minimum(0), z.maximum(600)), label: z.optional(z.string()) }),
    taskSupport: "optional",
    async handler({ seconds, label }, ctx) {
      ctx.progress(0, seconds, "Computing");
      await pauseUnlessAborted(seconds * 1000, ctx.signal);
      return { content: [text(`Computed ${label ?? "result"} in ${seconds}s`)] };
    },
  }),
  defineTool({
    name: "failing_job",
    description: "Runs only as a task, and after about a second reports a tool error.",
    input: noArgs,
    taskSupport: "required",
    async handler(_args, ctx) {
      ctx.progress(0, 1, "Working");
      await pauseUnlessAborted(1000, ctx.signal);
      return toolError("The job failed");
    },
  }),
  defineTool({
    name: "protocol_error_job",
    description: "A task whose result breaks its own output schema: a server bug, reported as a protocol error.",
    input: noArgs,
    output: z.object({ count: z.number() }),
    taskSupport: "optional",
    async handler(_args, ctx) {
      ctx.progress(0, 1, "Working");
      return { content: [], structuredContent: { count: "not a number" as unknown as number } };
    },
  }),
  defineTool({
    name: "confirm_delete",
    description: "Asks, inside its task, to confirm deleting a file.",
    input: z.strictObject({ filename: z.string() }),
    taskSupport: "optional",
    async handler({ filename }, ctx) {
      ctx.progress(0, 1, "Waiting for confirmation");
      const { confirm } = await ctx.ask({ confirm: elicitForm(`Delete ${filename}?`, z.object({ confirm: z.boolean() })) });
      const yes = confirm.action === "accept" && confirm.content.confirm;
      return { content: [text(yes ? `Deleted ${filename}` : `Kept ${filename}`)] };
    },
  }),
  defineTool({
    name: "multi_input",
    description: "Asks two questions at once inside its task.",
    input: noArgs,
    taskSupport: "optional",
    async handler(_args, ctx) {
      ctx.progress(0, 1, "Waiting for input");
      const { name, confirm } = await ctx.ask({
        name: nameForm("Your name?"),
        confirm: elicitForm("Go ahead?", z.object({ confirm: z.boolean() })),
      });
      const who = name.action === "accept" ? name.content.name : "nobody";
      return { content: [text(`Hello, ${who}; confirmed: ${confirm.action === "accept" && confirm.content.confirm}`)] };
    },
  }),
  defineTool({
    name: "test_tool_with_task",
    description: "Asks for a name up front (multi round-trip), then works as a task.",
    input: noArgs,
    taskSupport: "required",
    async handler(_args, ctx) {
      const { user_name } = await ctx.ask({ user_name: nameForm("What is your name?") });
      ctx.progress(0, 1, "Working");
      await pauseUnlessAborted(500, ctx.signal);
      const name = user_name.action === "accept" ? user_name.content.name : "stranger";
      return { content: [text(`Hello, ${name}, from a task`)] };
    },
  }),
  // Scenario json-schema-2020-12: a raw JSON Schema input, listed verbatim.
  defineTool({
    name: "json_schema_2020_12_tool",
    description: "Tool with JSON Schema 2020-12 features",
    input: jsonSchema({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: {
        address: { $anchor: "addressDef", type: "object", properties: { street: { type: "string" }, city: { type: "string" } } },
      },
      properties: {
        name: { type: "string" },
        address: { $ref: "#/$defs/address" },
        contactMethod: { type: "string", enum: ["phone", "email"] },
        phone: { type: "string" },
        email: { type: "string" },
      },
      allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
      if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
      // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword (if/then/else), not a promise.
      then: { required: ["phone"] },
      else: { required: ["email"] },
      additionalProperties: false,
    }),
    handler: (args) => ({ content: [text(`Received ${JSON.stringify(args)}`)] }),
  }),
  // Not the suite's: the long-running tool the MCP Inspector's run drives (inspector.mjs). It works through `count`
  // made-up items in batches of 25 twice (a scan, then the labelling), asks once in between (with forms), reports
  // progress, checkpoints after each batch, and stops when cancelled.
  defineTool({
    name: "label_items",
    description:
      "Labels `count` made-up items in batches of 25: scans them, asks (when the client has forms) whether to add or replace their labels, then applies. Runs as a task for clients that declared the Tasks extension; reports progress; can be cancelled.",
    input: z.strictObject({
      count: z.int().check(z.minimum(1), z.maximum(1_000)),
      batch_delay_ms: z.optional(z.int().check(z.minimum(0), z.maximum(5_000), z.describe("Pause between batches"))),
    }),
    taskSupport: "optional",
    async handler({ count, batch_delay_ms = 0 }, ctx) {
      ctx.progress(0, undefined, "Scanning items");
      // Every run starts the handler from the top: ctx.state (saved at each checkpoint) says where to resume.
      const state = ctx.state as { scanned?: number; applied?: number };
      while ((state.scanned ?? 0) < count) {
        state.scanned = Math.min(count, (state.scanned ?? 0) + LABEL_BATCH);
        ctx.progress(state.scanned, count * 2, `Scanned ${state.scanned} of ${count} items`);
        if (ctx.signal.aborted) return toolError("Cancelled; no labels were changed.");
        await pauseUnlessAborted(batch_delay_ms, ctx.signal);
        await ctx.checkpoint();
      }
      let mode = "add";
      if (ctx.supports("form")) {
        const { apply } = await ctx.ask({
          apply: elicitForm(
            `${count} of ${count} items would get new labels. Apply them? "add" keeps their labels; "replace" removes them.`,
            labelChoice,
          ),
        });
        if (apply.action !== "accept" || !apply.content.apply) return { content: [text("No labels were changed.")] };
        mode = apply.content.mode;
      }
      while ((state.applied ?? 0) < count) {
        if (ctx.signal.aborted) return toolError(`Cancelled after labelling ${state.applied ?? 0} of ${count} items.`);
        state.applied = Math.min(count, (state.applied ?? 0) + LABEL_BATCH);
        ctx.progress(count + state.applied, count * 2, `Labelled ${state.applied} of ${count} items`);
        await pauseUnlessAborted(batch_delay_ms, ctx.signal);
        await ctx.checkpoint();
      }
      return { content: [text(`Labelled the items (${mode}): ${count} of ${count} items got new labels.`)] };
    },
  }),
];

/** Waits `ms`, or less when the signal aborts (tasks/cancel). */
async function pauseUnlessAborted(ms: number, signal: AbortSignal): Promise<void> {
  const until = Date.now() + ms;
  while (!signal.aborted && Date.now() < until) await pause(Math.min(200, until - Date.now()));
}

export const resources = [
  defineResource({
    uri: "test://static-text",
    name: "static-text",
    description: "A static text resource.",
    mimeType: "text/plain",
    cache: { ttlMs: 300_000, cacheScope: "public" },
    read: () => [{ uri: "test://static-text", mimeType: "text/plain", text: "This is the content of the static text resource." }],
  }),
  defineResource({
    uri: "test://static-binary",
    name: "static-binary",
    description: "A static binary resource.",
    mimeType: "image/png",
    cache: { ttlMs: 300_000, cacheScope: "public" },
    read: () => [{ uri: "test://static-binary", mimeType: "image/png", blob: PNG }],
  }),
  defineResource({
    uri: "test://watched-resource",
    name: "watched-resource",
    description: "A resource to subscribe to.",
    mimeType: "text/plain",
    read: () => [{ uri: "test://watched-resource", mimeType: "text/plain", text: "Watched resource content" }],
  }),
  defineResourceTemplate({
    uriTemplate: "test://template/{id}/data",
    name: "template-data",
    description: "Data for an id.",
    mimeType: "application/json",
    read: (uri, { id }) => [
      { uri, mimeType: "application/json", text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) },
    ],
    complete: { id: (value) => ["123", "456"].filter((id) => id.startsWith(value)) },
  }),
];

export const prompts = [
  definePrompt({
    name: "test_simple_prompt",
    description: "A simple prompt.",
    get: () => ({ messages: [{ role: "user", content: text("This is a simple prompt for testing.") }] }),
  }),
  definePrompt({
    name: "test_prompt_with_arguments",
    description: "A prompt with two arguments.",
    arguments: z.strictObject({
      arg1: z.string().check(z.describe("First argument")),
      arg2: z.string().check(z.describe("Second argument")),
    }),
    complete: { arg1: (value) => ["testValue1", "testValue2"].filter((option) => option.startsWith(value)) },
    get: ({ arg1, arg2 }) => ({ messages: [{ role: "user", content: text(`Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`) }] }),
  }),
  definePrompt({
    name: "test_prompt_with_embedded_resource",
    description: "A prompt that embeds a resource.",
    arguments: z.strictObject({ resourceUri: z.string().check(z.describe("URI of the resource to embed")) }),
    get: ({ resourceUri }) => ({
      messages: [
        {
          role: "user",
          content: embeddedResource({ uri: resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." }),
        },
        { role: "user", content: text("Please process the embedded resource above.") },
      ],
    }),
  }),
  definePrompt({
    name: "test_prompt_with_image",
    description: "A prompt with an image.",
    get: () => ({
      messages: [
        { role: "user", content: image(PNG, "image/png") },
        { role: "user", content: text("Please analyze the image above.") },
      ],
    }),
  }),
  definePrompt({
    name: "test_input_required_result_prompt",
    description: "A prompt that asks the user for context first.",
    async get(_args, ctx) {
      const { user_context } = await ctx.ask({
        user_context: elicitForm("What context should the prompt use?", z.object({ context: z.string() })),
      });
      const context = user_context.action === "accept" ? user_context.content.context : "none";
      return { messages: [{ role: "user", content: text(`Prompt with context: ${context}`) }] };
    },
  }),
];
