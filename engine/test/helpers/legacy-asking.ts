/**
 * What the 2025 session tests of asking share: the headers every POST carries, a JSON-RPC request, and a tool that
 * asks three questions in one call (legacy/answers.test.ts, legacy/waiting-calls.test.ts).
 */
import * as z from "zod/mini";
import { defineTool, elicitForm, text } from "../../src";
import type { Json } from "./rpc";

export const BASE = { "content-type": "application/json", accept: "application/json, text/event-stream" };

export const rpc = (method: string, params: Json = {}, id: number | string = 1) => ({ jsonrpc: "2.0", id, method, params });

/** Asks three forms at once and reports each answer's action, by key: one call, three questions. */
export const confirmThree = defineTool({
  name: "confirm_three",
  description: "Asks three questions at once.",
  input: z.strictObject({}),
  async handler(_args, ctx) {
    const form = (key: string) => elicitForm(`Sure about ${key}?`, z.object({ ok: z.boolean() }));
    const { a, b, c } = await ctx.ask({ a: form("a"), b: form("b"), c: form("c") });
    return { content: [text(`a=${a.action} b=${b.action} c=${c.action}`)] };
  },
});
