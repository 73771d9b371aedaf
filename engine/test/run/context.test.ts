/**
 * A handler's `ctx` (src/run/context.ts): one object per run whose methods are made on first read. What a handler
 * may rely on, whichever way it reads its context: methods taken apart from `ctx` (destructured, passed on) work as
 * `ctx.method(...)` does, each read gives the same function, and `ctx.state` set by assignment travels to the next
 * round. Its own properties are its data alone. Through the real Worker, on a multi round-trip call.
 */
import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { defineTool, elicitForm, text } from "../../src";
import { MODERN, readSse, testServer } from "../helpers/rpc";

const FORMS = { elicitation: { form: {} } };

const server = testServer({
  tools: [
    defineTool({
      name: "destructured",
      description: "Uses every member of its ctx taken apart from it, over two rounds.",
      input: z.strictObject({}),
      async handler(_args, ctx) {
        const { ask, progress, supports, checkpoint, waitUntil, log, signal, publish, client, requestId, traceId } = ctx;
        // Its own properties are its data; spreading it copies those alone (CHANGELOG 3.1.1).
        const own = Object.keys(ctx).join(",");
        // The same function on every read: a handler may compare, store or pass on a member.
        const stable = ctx.ask === ask && ctx.progress === progress && ctx.supports === supports && ctx.checkpoint === checkpoint;
        progress(1, 3, "first");
        progress(1, 3, "a repeat, dropped");
        progress(2, 3, "second");
        log("info", "never sent on 2026-07-28");
        waitUntil(Promise.resolve());
        await checkpoint();
        ctx.state = { ...ctx.state, rounds: Number(ctx.state.rounds ?? 0) + 1 };
        const { ok } = await ask({ ok: elicitForm("Go on?", z.object({ ok: z.boolean() })) });
        const seen = [
          `own=${own}`,
          `stable=${stable}`,
          `forms=${supports("form")}`,
          `sampling=${supports("sampling")}`,
          `aborted=${signal.aborted}`,
          `publish=${typeof publish.resourceUpdated}`,
          `client=${client.protocolVersion}`,
          `id=${requestId}`,
          `trace=${typeof traceId}`,
          `rounds=${ctx.state.rounds}`,
          `ok=${ok.action === "accept" && ok.content.ok}`,
        ];
        return { content: [text(seen.join(" "))] };
      },
    }),
  ],
});

describe("a handler's ctx", () => {
  it("works with its methods taken apart from it, each the same function on every read, and carries ctx.state set by assignment to the next round", async () => {
    const first = await server.send(
      "tools/call",
      { name: "destructured", arguments: {} },
      { id: "r1", capabilities: FORMS, metaExtra: { progressToken: "p" } },
    );
    const firstEvents = await readSse(first);
    // Progress values must increase: the repeat is dropped, however the handler called progress.
    const progress = firstEvents
      .filter((event) => event.method === "notifications/progress")
      .map((event) => (event.params as { progress: number }).progress);
    expect(progress).toEqual([1, 2]);
    const asked = firstEvents.at(-1)!.result as { resultType: string; requestState: string };
    expect(asked.resultType).toBe("input_required");

    const retry = await server.send(
      "tools/call",
      {
        name: "destructured",
        arguments: {},
        requestState: asked.requestState,
        inputResponses: { ok: { action: "accept", content: { ok: true } } },
      },
      { id: "r2", capabilities: FORMS },
    );
    const done = (await retry.json()) as { result: { content: { text: string }[] } };
    expect(done.result.content[0]!.text).toBe(
      `own=env,principal,client,requestId,traceId stable=true forms=true sampling=false aborted=false publish=function client=${MODERN} id=r2 trace=string rounds=2 ok=true`,
    );
  });
});
