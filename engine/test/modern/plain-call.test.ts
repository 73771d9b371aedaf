/**
 * A call that waits for nothing pays for nothing it does not use: a handler that returns its result (not a promise)
 * is answered at once, with no keep-alive timer armed for it (a timer could not fire before such a call ended), while
 * a handler that returns a promise gets the keep-alive as before. Either way the answers and the errors are the same.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import * as z from "zod/mini";
import { defineTool, text } from "../../src";
import { STREAM_AFTER_MS } from "../../src/http/reply";
import { readMessage, testServer } from "../helpers/rpc";
import { withLogs, withoutAccessLog } from "../helpers/wire";

const input = z.strictObject({ text: z.string() });
const server = testServer({
  tools: [
    defineTool({ name: "plain", description: "Answers at once.", input, handler: ({ text: value }) => ({ content: [text(value)] }) }),
    defineTool({
      name: "awaited",
      description: "Answers after a promise.",
      input,
      handler: async ({ text: value }) => {
        await Promise.resolve();
        return { content: [text(value)] };
      },
    }),
    defineTool({
      name: "thenable",
      description: "Answers with a thenable that is not a Promise.",
      input,
      handler: ({ text: value }) =>
        // biome-ignore lint/suspicious/noThenProperty: a thenable on purpose, which the engine must wait for as await would
        ({ then: (resolve: (result: unknown) => void) => resolve({ content: [text(value)] }) }) as unknown as { content: [] },
    }),
    defineTool({
      name: "throws",
      description: "Throws at once.",
      input,
      handler: () => {
        throw new Error("a secret detail");
      },
    }),
    defineTool({
      name: "rejects",
      description: "Rejects.",
      input,
      handler: async () => {
        throw new Error("a secret detail");
      },
    }),
  ],
});

const call = async (name: string) => readMessage(await server.send("tools/call", { name, arguments: { text: "hello" } }));

/** The keep-alive timers armed while `run` runs: setTimeout calls with the keep-alive's delay. */
async function keepAlivesArmedBy(run: () => Promise<unknown>): Promise<number> {
  const spy = vi.spyOn(globalThis, "setTimeout");
  try {
    await run();
    return spy.mock.calls.filter(([, delay]) => delay === STREAM_AFTER_MS).length;
  } finally {
    spy.mockRestore();
  }
}

describe("a plain tools/call", () => {
  afterEach(() => vi.restoreAllMocks());

  it("answers a handler that returns its result without arming a keep-alive, and arms one for a handler's promise", async () => {
    let plain: Awaited<ReturnType<typeof call>> | undefined;
    expect(await keepAlivesArmedBy(async () => (plain = await call("plain")))).toBe(0);
    expect(plain?.result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "hello" }] });
    let awaited: Awaited<ReturnType<typeof call>> | undefined;
    expect(await keepAlivesArmedBy(async () => (awaited = await call("awaited")))).toBe(1);
    expect(awaited?.result).toEqual(plain?.result);
  });

  it("waits for a handler's thenable as it would for a promise", async () => {
    expect((await call("thenable")).result).toMatchObject({ content: [{ type: "text", text: "hello" }] });
  });

  it("answers a handler that throws at once with the same tool error as one that rejects, never with the detail", async () => {
    // The detail goes to the log, as an error naming the tool, and only there: captured here, where it is expected.
    const { value: results, entries } = await withLogs(async () => [(await call("throws")).result, (await call("rejects")).result]);
    for (const result of results) {
      expect(result).toMatchObject({
        isError: true,
        content: [{ type: "text", text: expect.stringMatching(/failed unexpectedly\. Reference: /) }],
      });
      expect(JSON.stringify(result)).not.toContain("a secret detail");
    }
    expect(withoutAccessLog(entries)).toMatchObject([
      { level: "error", message: "tool handler threw", tool: "throws", detail: "a secret detail" },
      { level: "error", message: "tool handler threw", tool: "rejects", detail: "a secret detail" },
    ]);
  });

  it("refuses an unknown tool and arguments its schema refuses as before, from the same path", async () => {
    const unknown = await call("no_such_tool");
    expect(unknown.error?.code).toBe(-32602);
    const refused = (await readMessage(await server.send("tools/call", { name: "plain", arguments: { text: 1 } }))).result;
    expect(refused).toMatchObject({ isError: true });
  });
});
