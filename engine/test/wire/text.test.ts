/**
 * Text that is not well-formed Unicode (a lone surrogate, sent as a `\uD800`-style JSON escape) is refused before
 * anything stores or signs it: UTF-8 storage would keep U+FFFD instead, after the write was acknowledged. A tool's
 * arguments get an `isError` result the model can act on; anything else in params is -32602.
 */
import { describe, expect, it } from "vitest";
import { scanJson } from "../../src/http/body";
import { illFormedTextAt } from "../../src/util/encoding";
import { call, meta, post, readMessage, send, standardHeaders } from "../helpers/rpc";

const LONE = "a\ud800b";
const PAIR = "smile \ud83d\ude00";

describe("text that is not well-formed Unicode", () => {
  it("answers a tool call whose arguments hold a lone surrogate with an isError result naming where, and runs nothing", async () => {
    for (const text of [LONE, "\udc00", `${"x".repeat(10)}\ud83d`]) {
      const result = await call("tools/call", { name: "put", arguments: { key: "lone", value: text } });
      expect(result).toMatchObject({ isError: true });
      expect((result.content as { text: string }[])[0]!.text).toBe(
        "Invalid arguments for tool put: value is not well-formed Unicode: it holds a lone surrogate (U+D800 to U+DFFF, half of a pair); send the text as valid UTF-8",
      );
    }
    // Nothing was stored under the key.
    const read = await readMessage(await send("resources/read", { uri: "fixture://values/lone" }));
    expect(read.error).toMatchObject({ code: -32602, message: "Resource not found" });
  });

  it("names a lone surrogate in a nested value or a key without echoing it", async () => {
    const args = { text: "ok", nested: [{ deep: LONE }] };
    const result = await call("tools/call", { name: "echo", arguments: args });
    expect((result.content as { text: string }[])[0]!.text).toContain("nested[0].deep is not well-formed Unicode");
    expect(illFormedTextAt({ a: { [LONE]: 1 } })).toBe("a.(a key)");
    expect(illFormedTextAt([1, "x", { b: PAIR }])).toBeUndefined();
  });

  it("accepts and answers a surrogate pair sent as escapes exactly as sent", async () => {
    const result = await call("tools/call", { name: "echo", arguments: { text: PAIR } });
    expect(result.structuredContent).toMatchObject({ text: PAIR });
  });

  it("answers -32602 for a lone surrogate anywhere else in params: a resource URI, prompt arguments, answers, clientInfo", async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ["resources/read", { uri: `fixture://values/${LONE}` }, "uri"],
      ["prompts/get", { name: "brief", arguments: { topic: LONE } }, "arguments.topic"],
      [
        "tools/call",
        { name: "ask", arguments: { kind: "form" }, inputResponses: { answer: { action: "accept", content: { ok: LONE } } } },
        "inputResponses.answer.content.ok",
      ],
    ];
    for (const [method, params, where] of cases) {
      const body = { jsonrpc: "2.0", id: 9, method, params: { ...params, _meta: meta() } };
      // A header value cannot hold the lone surrogate; the body is refused before headers are compared with it.
      const headers = { ...standardHeaders(method, params), "mcp-name": "x" };
      const message = await readMessage(await post(body, headers));
      expect(message.error, method).toMatchObject({
        code: -32602,
        message: `Invalid params: ${where} is not well-formed Unicode: it holds a lone surrogate (U+D800 to U+DFFF, half of a pair); send the text as valid UTF-8`,
      });
      expect(message.id).toBe(9);
    }
    const clientInfo = { ...meta(), "io.modelcontextprotocol/clientInfo": { name: LONE, version: "1" } };
    const listed = await readMessage(
      await post({ jsonrpc: "2.0", id: 10, method: "tools/list", params: { _meta: clientInfo } }, standardHeaders("tools/list")),
    );
    expect(listed.error?.code).toBe(-32602);
  });

  it("refuses it on 2025 revisions too: an initialize clientInfo, and a batch item (the other items answered)", async () => {
    const legacy = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const init = await readMessage(
      await post(
        {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: LONE, version: "1" } },
        },
        { ...legacy, "mcp-protocol-version": "2025-11-25" },
      ),
    );
    expect(init.error).toMatchObject({ code: -32602, message: expect.stringContaining("clientInfo.name is not well-formed Unicode") });
    const batch = await post(
      [
        { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: LONE } } },
        { jsonrpc: "2.0", id: 2, method: "prompts/get", params: { name: "brief", arguments: { topic: LONE } } },
        { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo", arguments: { text: "fine" } } },
      ],
      legacy,
    );
    const answers = (await batch.json()) as { id: number; result?: { isError?: boolean }; error?: { code: number } }[];
    expect(answers.find((answer) => answer.id === 1)?.result?.isError).toBe(true);
    expect(answers.find((answer) => answer.id === 2)?.error?.code).toBe(-32602);
    expect(answers.find((answer) => answer.id === 3)?.result?.isError).toBeUndefined();
  });

  it("checks text only in bodies that have a surrogate escape: the scan notes \\uD800-\\uDFFF escapes and nothing else", () => {
    const limits = { maxDepth: 64, maxMembers: 100, maxElements: 100 };
    expect(scanJson(JSON.stringify({ a: LONE }), limits).surrogateEscapes).toBe(true);
    expect(scanJson('{"a":"\\uDFFF"}', limits).surrogateEscapes).toBe(true);
    expect(scanJson(JSON.stringify({ a: PAIR }), limits).surrogateEscapes).toBe(false); // raw UTF-8, no escape
    expect(scanJson('{"a":"\\ud83d\\ude00"}', limits).surrogateEscapes).toBe(true); // a pair as escapes: checked, then accepted
    expect(scanJson('{"a":"\\\\ud800"}', limits).surrogateEscapes).toBe(false); // an escaped backslash, then plain text
    expect(scanJson('{"a":"\\u00e9\\ud7ff"}', limits).surrogateEscapes).toBe(false);
  });
});
