/**
 * What the test client sends, as the Worker receives it: a fetcher that keeps each request's method, headers and
 * JSON body before passing it on. The client's own tests read these to check what a conforming client puts on the
 * wire, while the real Worker answers.
 */
import * as z from "zod/mini";
import { defineTool, elicitForm, text } from "../../src";
import type { Fetcher } from "../../src/testing";
import { FIXTURE } from "../helpers/fixture";
import { testServer } from "../helpers/rpc";

export interface Sent {
  method: string;
  headers: Record<string, string>;
  body: Record<string, any> | undefined;
}

export function recording(fetcher: Fetcher) {
  const sent: Sent[] = [];
  const fetch = async (request: Request) => {
    const body = request.method === "POST" ? ((await request.clone().json()) as Record<string, any>) : undefined;
    sent.push({ method: request.method, headers: Object.fromEntries(request.headers), body });
    return fetcher(request);
  };
  /** The POSTed JSON-RPC requests and notifications with this method. */
  const posted = (method: string) => sent.filter((request) => request.body?.method === method);
  return { fetch, sent, posted };
}

/** Asks `count` questions, one per round (`step1`, `step2`...), then reports how many were accepted. */
export const steps = defineTool({
  name: "steps",
  description: "Asks one question per round, `count` rounds.",
  input: z.strictObject({ count: z.int().check(z.minimum(1), z.maximum(20)) }),
  async handler({ count }, ctx) {
    let accepted = 0;
    for (let step = 1; step <= count; step++) {
      const answers = await ctx.ask({ [`step${step}`]: elicitForm(`Step ${step}?`, z.object({ ok: z.boolean() })) });
      if (answers[`step${step}`]?.action === "accept") accepted++;
    }
    return { content: [text(`accepted ${accepted} of ${count}`)] };
  },
});

/** Routes on a header-bound argument (`x-mcp-header`): the server checks `Mcp-Param-Region` against the body. */
export const routed = defineTool({
  name: "routed",
  description: "Echoes its region, which clients mirror in Mcp-Param-Region.",
  input: z.strictObject({
    region: z.string().check(z.meta({ "x-mcp-header": "Region" })),
    shard: z.optional(z.int().check(z.meta({ "x-mcp-header": "Shard" }))),
  }),
  handler: ({ region, shard }) => ({ content: [text(`region ${region}${shard === undefined ? "" : ` shard ${shard}`}`)] }),
});

/** The engine's fixture with the two tools above. */
export const clientFixture = testServer({ ...FIXTURE, tools: [...FIXTURE.tools, steps, routed] });
