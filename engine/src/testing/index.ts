/**
 * @module testing/index
 * The engine's test client (`import ... from "mcp-workers-engine/testing"`), for an app's own tests inside the workerd
 * test pool (`@cloudflare/vitest-plugin`).
 * It drives the real Worker through its `fetch` with real requests, as a conforming client of either era sends
 * them: 2026-07-28 (stateless, `_meta` on every request, questions answered by retrying with `inputResponses` and
 * `requestState`) or 2025 (the `initialize` handshake, `Mcp-Session-Id`, questions answered by POSTing responses to
 * the server's requests). Tools' questions are answered by scripted answers or handlers; tasks are polled,
 * answered and cancelled; listeners read change notifications; a token issuer of the test's own signs callers in.
 *
 * Only tests import this module: the Worker never does (test/repo/boundary.test.ts checks it), so it is not uploaded.
 *
 * @example
 * import { createExecutionContext } from "cloudflare:test";
 * import { env } from "cloudflare:workers";
 * import { accept, connect } from "mcp-workers-engine/testing";
 * import { expect, it } from "vitest";
 * import worker from "..";
 *
 * const app = (request: Request) => worker.fetch(request, env, createExecutionContext());
 *
 * it("deletes a note once the user confirms", async () => {
 *   const client = await connect(app, { answers: { confirm: accept({ delete: true }) } });
 *   const notebook_id = (await client.callTool("create_notebook")).structuredContent.notebook_id;
 *   const note_id = (await client.callTool("add_note", { notebook_id, title: "Old", body: "x" })).structuredContent.id;
 *   const deleted = await client.callTool("delete_note", { notebook_id, note_id });
 *   expect(deleted.content[0]?.text).toContain("Deleted note");
 * });
 */

export {
  type Answer,
  type Answerers,
  accept,
  cancel,
  decline,
  type ElicitAnswer,
  type Handler,
  type Question,
  type RootsAnswer,
  roots,
  type SampleAnswer,
  type Script,
  type ScriptedAnswer,
  sampled,
} from "./answers";
export type { CallOptions } from "./channel";
export { type ConnectOptions, connect, McpTestClient } from "./client";
export { type AskedQuestion, type ClientFailure, McpClientError, McpError, McpHttpError } from "./errors";
export { type TestIssuer, testIssuer } from "./issuer";
export { Listener, type ListenFilter } from "./listen";
export { type SseEvent, type SseReader, sseReader } from "./sse";
export { type PollOptions, TaskRun } from "./tasks";
export type { Fetcher, RpcMessage } from "./transport";
export type {
  CallToolResult,
  CompleteResult,
  CompletionRef,
  ContentBlock,
  GetPromptResult,
  ListMethod,
  LogLevel,
  ReadResourceResult,
  Task,
} from "./types";
