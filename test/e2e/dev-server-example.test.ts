/**
 * What `npm run dev` (wrangler's dev server: its dev proxy in front of the local runtime) does with the template's
 * answers, shown with the example's tools: no "Broken pipe" for a 2025 client's elicitation and sampling answers
 * when it does not accept gzip, and when a client going away reaches the Worker (at its next write to the client;
 * a call still running after limits.request.streamAfterMs, a second by default, writes keep-alive comments: the
 * engine's http/reply.ts). The template runs under `wrangler dev` with its output and its invocations observable
 * (./tail/start.ts): a request's span arrives once its invocation is over, so a test knows when a tool has ended
 * without waiting for a time. Its entry is ./json-answers/worker.ts: the app's Worker, and at `/mcp?json` the same
 * server whose answers stay JSON for a minute, so no test depends on how fast the machine runs a call. (The
 * example's file: `npm run blank` removes it; dev-server.test.ts keeps what holds for any app.)
 */

import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerOf, modernRequest } from "../wire";
import { appBinds } from "./app-bindings";
import { root } from "./dev-server";
import * as notebooks from "./notebooks";
import { mcpSpans, type RecordedSpan, startTracedTemplate, type TracedTemplate } from "./tail/start";

const sessions = appBinds("LEGACY_SESSIONS");

let dev: TracedTemplate;
beforeAll(async () => {
  dev = await startTracedTemplate(join(root, "test/e2e/json-answers/worker.ts"));
}, 60_000);
afterAll(async () => {
  await dev?.stop();
});

/** Why a pause: wrangler prints what workerd reports a moment after the answer that caused it has arrived. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

/** The span of the request with this JSON-RPC id: it arrives once the request's invocation (and its tool) has ended. */
async function spanOf(id: string): Promise<RecordedSpan> {
  await expect
    .poll(() => mcpSpans(dev.events).some((span) => span.attributes["jsonrpc.request.id"] === id), { timeout: 20_000 })
    .toBe(true);
  return mcpSpans(dev.events).find((span) => span.attributes["jsonrpc.request.id"] === id)!;
}

/** The spans of retag_notebook calls so far, in the order they arrived (each once its call has ended). */
const retagSpans = () => mcpSpans(dev.events).filter((span) => span.attributes["gen_ai.tool.name"] === "retag_notebook");

const FORM = { elicitation: { form: {} } };

/** A 2026-07-28 tools/call declaring forms, to `url` (the app's /mcp unless told); `signal` lets the test hang up. */
const modern = (id: string, params: Record<string, unknown>, meta: Record<string, unknown> = {}, signal?: AbortSignal, url = dev.url) =>
  fetch(modernRequest(url, { id, method: "tools/call", params, capabilities: FORM, meta }), { signal });

async function tool(name: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const response = await modern(crypto.randomUUID(), { name, arguments: args, ...extra });
  // A call still running after a second is answered on SSE (retag_notebook's scan, say).
  const answer = await answerOf(response);
  // A refused call (an error, not a result) fails the test here, saying why, never later as a count that is off.
  if (!answer.result) throw new Error(`${name} got no result: ${JSON.stringify(answer)}`);
  return answer.result;
}

const notebookOf = (count: number) => notebooks.notebookOf(tool, count);
const untouched = (notebook: string) => notebooks.untouched(tool, notebook);

/** retag_notebook's second round on a notebook of `count` notes, with the user's answer ("replace") to its question. */
async function retagRound(notebook: string, count: number, batchDelayMs: number) {
  const args = { notebook_id: notebook, batch_delay_ms: batchDelayMs };
  const first = await tool("retag_notebook", args);
  expect(first.resultType).toBe("input_required");
  // The scan saw every note: the batches the test waits on are the ones it counted.
  expect(first.inputRequests.apply.params.message).toContain(`of ${count} notes would get new tags`);
  const answer = { apply: { action: "accept", content: { apply: true, mode: "replace" } } };
  return { name: "retag_notebook", arguments: args, inputResponses: answer, requestState: first.requestState };
}

describe("what npm run dev prints that is not an error: Broken pipe", () => {
  it.runIf(sessions)(
    "prints no Broken pipe for the SDK 1.x client's elicitation, sampling and multi-question calls when it does not accept gzip",
    async () => {
      const printedBefore = dev.output().length;
      const identity: typeof fetch = (url, init) => {
        const headers = new Headers(init?.headers);
        headers.set("accept-encoding", "identity");
        return fetch(url, { ...init, headers });
      };
      const client = new ClientV1({ name: "sdk-v1", version: "1.0.0" }, { capabilities: { elicitation: {}, sampling: {} } });
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        // Every form the example asks is accepted: a boolean field true, a choice its first option, text "e2e".
        const schema = "requestedSchema" in request.params ? request.params.requestedSchema : { properties: {} };
        const fields = Object.entries(schema.properties as Record<string, any>);
        const content = Object.fromEntries(
          fields.map(([name, field]) => [name, field.type === "boolean" ? true : (field.enum?.[0] ?? field.default ?? "e2e")]),
        );
        return { action: "accept", content };
      });
      client.setRequestHandler(CreateMessageRequestSchema, async () => ({
        role: "assistant",
        model: "e2e-model",
        content: { type: "text", text: "A short summary." },
      }));
      const transport = new TransportV1(new URL(dev.url), { fetch: identity });
      await client.connect(transport);
      const created: any = await client.callTool({ name: "create_notebook", arguments: {} });
      const notebook = created.structuredContent.notebook_id;
      const text = (result: any) => result.content[0].text as string;
      for (let round = 0; round < 3; round++) {
        const added: any = await client.callTool({
          name: "add_note",
          arguments: { notebook_id: notebook, title: `N${round}`, body: "Hi." },
        });
        expect(text(await client.callTool({ name: "summarize_notes", arguments: { notebook_id: notebook } }))).toContain("e2e-model");
        expect(text(await client.callTool({ name: "draft_note", arguments: { notebook_id: notebook, topic: "e2e" } }))).toMatch(/^Saved/);
        const deleted = await client.callTool({
          name: "delete_note",
          arguments: { notebook_id: notebook, note_id: added.structuredContent.id },
        });
        expect(text(deleted)).toMatch(/^Deleted/);
      }
      await transport.terminateSession();
      await client.close();
      await settle();
      expect(dev.output().slice(printedBefore)).not.toContain("Broken pipe");
    },
  );
});

// The tests below wait on the tool's own pauses (seconds each) and fill notebooks through the tool calls: a minute
// and a half bounds a run on a busy machine; nothing here measures how long one took.
const WAITS = { timeout: 90_000 };

describe("a client going away under npm run dev: seen by the Worker when it next writes to it", () => {
  it(
    "reaches a tool whose answer had nothing to stream: the official client aborts retag_notebook once its first batch is applied, and it stops before the next",
    WAITS,
    async () => {
      // Two batches to apply (25, then 1), five seconds apart; the scan before the question pauses as long, once.
      const notebook = await notebookOf(26);
      const spansBefore = retagSpans().length;
      const client = new Client(
        { name: "e2e-abort", version: "1.0.0" },
        { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: "2026-07-28" } } },
      );
      const call = new AbortController();
      let answered!: () => void;
      const asked = new Promise<void>((resolve) => (answered = resolve));
      client.setRequestHandler("elicitation/create", async () => {
        answered();
        return { action: "accept", content: { apply: true, mode: "replace" } };
      });
      await client.connect(new StreamableHTTPClientTransport(new URL(dev.url)));
      try {
        // No progress asked for: nothing but the keep-alive comments is written while the tool waits.
        const answer = client.callTool(
          { name: "retag_notebook", arguments: { notebook_id: notebook, batch_delay_ms: 5_000 } },
          { signal: call.signal, timeout: 60_000 },
        );
        // The retry with this answer applies the first batch at once, then waits 5 s before the second: hang up in
        // between, once the first batch is seen applied.
        await asked;
        await expect.poll(() => untouched(notebook), { timeout: 30_000, interval: 50 }).toBe(1);
        call.abort();
        await expect(answer).rejects.toThrow();
        // Both rounds' spans: the second arrives once its tool has ended (its invocation is over).
        await expect.poll(() => retagSpans().length, { timeout: 30_000, interval: 50 }).toBe(spansBefore + 2);
        // The tool saw ctx.signal abort and stopped: the second batch was never applied, and the call ended without a
        // result. Left alone it would have applied it.
        expect(await untouched(notebook)).toBe(1);
        expect(retagSpans().at(-1)!.attributes).toHaveProperty("error.type");
      } finally {
        await client.close();
      }
    },
  );

  it(
    "never reaches a call whose answer is JSON (nothing is written before it): retag_notebook runs to its end after the client hung up",
    WAITS,
    async () => {
      // Two batches (25, then 1) with the longest pause the tool allows (5 s) between them, at /mcp?json: the answer is
      // JSON however long the apply takes. Why the longest: the hang-up must land in that pause, on a machine of any speed.
      const notebook = await notebookOf(26);
      const round = await retagRound(notebook, 26, 5_000);
      const client = new AbortController();
      const sent = Date.now();
      const answer = modern("json-gone", round, {}, client.signal, `${dev.url}?json`);
      const answeredAfter = answer.then(
        () => Date.now() - sent,
        () => undefined,
      );
      // Hang up once the first batch is applied: the tool then waits before its second.
      await expect.poll(() => untouched(notebook), { timeout: 30_000, interval: 20 }).toBe(1);
      const hungUpAfter = Date.now() - sent;
      client.abort();
      // If the answer won the race, say when each happened: the scenario this test is about did not take place.
      expect(await answeredAfter, `the answer came before the hang-up (first batch seen ${hungUpAfter} ms after the call)`).toBeUndefined();
      await expect(answer).rejects.toThrow();
      // The tool completed: it was never told that its client had gone (a runtime that aborts request.signal on the
      // disconnect itself would have stopped it before its second batch).
      expect((await spanOf("json-gone")).attributes).not.toHaveProperty("error.type");
      expect(await untouched(notebook)).toBe(0);
    },
  );

  it("reaches a tool that streams at its next write: retag_notebook stops before its last batch", WAITS, async () => {
    // Four batches (25, 25, 25, then 1), with a pause of two seconds between them: the hang-up, after the first, has
    // three pauses and two batches, 6 s, to reach the Worker before the last. It takes about a second (the next
    // keep-alive comment).
    const notebook = await notebookOf(76);
    const round = await retagRound(notebook, 76, 2_000);
    const client = new AbortController();
    const response = await modern("sse-gone", round, { progressToken: "retag" }, client.signal);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let received = "";
    while (!received.includes("Retagged 25 of 76 notes")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before the first batch was applied:\n${received}`);
      received += value;
    }
    // Hang up during the pause after the first batch: the next write (a keep-alive comment, once the call has run a
    // second, or the next progress report) is what tells the Worker.
    client.abort();
    const hungUp = Date.now();
    const span = await spanOf("sse-gone");
    const left = await untouched(notebook);
    // If the tool still ran to its end, say when its span came and what it left: the Worker saw the hang-up late.
    const when = `the call's span came ${Date.now() - hungUp} ms after the hang-up, ${left} notes untouched`;
    expect(span.attributes, when).toHaveProperty("error.type");
    expect(left, when).toBeGreaterThan(0);
  });
});
