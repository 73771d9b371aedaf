import { it, expect } from "vitest";
import * as z from "zod/mini";
import { defineTool, defineResource, definePrompt, elicitForm, text } from "../../src/mcp";
import { readMessage, send, post, testServer, standardHeaders } from "../helpers/rpc";

it("scratch", async () => {
  const r1 = await send("prompts/get", { name: "review_notes", arguments: { notebook_id: "x" } });
  console.log("A modern prompts/get bad id", r1.status, JSON.stringify(await readMessage(r1)));
  const r2 = await post({ jsonrpc: "2.0", id: 1, method: "prompts/get", params: { name: "review_notes", arguments: { notebook_id: "x" } } }, { "content-type": "application/json", accept: "application/json, text/event-stream" });
  console.log("A legacy", r2.status, await r2.text());
  const s = testServer({
    tools: [defineTool({ name: "ask", description: "d", input: z.strictObject({}), async handler(_a, ctx) { await ctx.ask({ q: elicitForm("Q?", z.object({ a: z.string() })) }); return { content: [] }; } })],
    resources: [defineResource({ uri: "test://gated", name: "g", async read(ctx) { await ctx.ask({ q: elicitForm("Q?", z.object({ a: z.string() })) }); return [{ uri: "test://gated", text: "x" }]; } })],
    prompts: [definePrompt({ name: "p", description: "d", async get(_a, ctx) { await ctx.ask({ q: elicitForm("Q?", z.object({ a: z.string() })) }); return { messages: [] }; } })],
  });
  for (const [m, p] of [["tools/call", { name: "ask", arguments: {} }], ["resources/read", { uri: "test://gated" }], ["prompts/get", { name: "p" }]] as const) {
    const r = await s.send(m, p as any, { capabilities: { elicitation: null } as any });
    console.log("B", m, r.status, JSON.stringify(await readMessage(r)));
  }
  const body = '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}';
  const big = new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode(body)); c.close(); } });
  let pulled = 0;
  const counting = new ReadableStream<Uint8Array>({ pull(c) { pulled++; c.enqueue(new Uint8Array(65536).fill(32)); } });
  const r3 = await post(counting, { ...standardHeaders("server/discover"), "content-length": String(2 * 1024 * 1024) }, { duplex: "half" } as RequestInit);
  console.log("C", r3.status, pulled, await r3.text());
});
