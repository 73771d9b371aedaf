/**
 * The request span's name and attributes (src/server/trace.ts), computed against the fixture server with a
 * span that records what it is told: workerd hands tests an untraced span, so what a traced one would carry is
 * checked here, and end to end in the template's test/e2e/tracing.test.ts.
 */
import { tracing } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { Reply } from "../../src/http/reply";
import type { RequestScope } from "../../src/run/request";
import { McpServer } from "../../src/server/server";
import { clientTraceparent, describeOutcome, describeRequest, inSpan, spanName, traceRequest } from "../../src/server/trace";
import { ErrorCode, RpcError } from "../../src/wire/errors";
import { ANONYMOUS, type Principal } from "../../src/wire/principal";
import { FIXTURE } from "../helpers/fixture";
import { call, MODERN } from "../helpers/rpc";

const server = new McpServer(FIXTURE);
const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID = "00f067aa0ba902b7";
const VALID = `00-${TRACE_ID}-${PARENT_ID}-01`;

/** A span that keeps what it is told; `failing` makes every attribute throw, as a broken runtime might. */
function recordingSpan(traced = true, failing = false) {
  const attributes: Record<string, unknown> = {};
  const span = {
    isTraced: traced,
    setAttribute(key: string, value?: boolean | number | string) {
      if (failing) throw new Error("span broken");
      attributes[key] = value;
    },
  } as unknown as Span;
  return { span, attributes };
}

function scopeOf(method: string, requestId: string | number = 1, protocolVersion = MODERN, principal: Principal = ANONYMOUS): RequestScope {
  const request = new Request("http://localhost/mcp", { method: "POST" });
  return {
    method,
    requestId,
    principal,
    meta: { protocolVersion, clientCapabilities: {} },
    request,
    reply: new Reply(undefined),
  } as unknown as RequestScope;
}

describe("traceparent from params._meta (W3C Trace Context)", () => {
  it("takes a well-formed version 00 value as it is", () => {
    expect(clientTraceparent(VALID)).toBe(VALID);
    expect(clientTraceparent(`00-${TRACE_ID}-${PARENT_ID}-00`)).toBe(`00-${TRACE_ID}-${PARENT_ID}-00`);
  });

  it("takes the four known fields of a later version and ignores what it appends", () => {
    expect(clientTraceparent(`01-${TRACE_ID}-${PARENT_ID}-01-what-comes-next`)).toBe(`01-${TRACE_ID}-${PARENT_ID}-01`);
  });

  it("ignores all-zero trace or parent ids, version ff, and extra fields on version 00", () => {
    expect(clientTraceparent(`00-${"0".repeat(32)}-${PARENT_ID}-01`)).toBeUndefined();
    expect(clientTraceparent(`00-${TRACE_ID}-${"0".repeat(16)}-01`)).toBeUndefined();
    expect(clientTraceparent(`ff-${TRACE_ID}-${PARENT_ID}-01`)).toBeUndefined();
    expect(clientTraceparent(`${VALID}-extra`)).toBeUndefined();
  });

  it("ignores malformed values: uppercase hex, wrong lengths, other separators, non-strings and overlong strings", () => {
    for (const value of [
      VALID.toUpperCase(),
      `00-${TRACE_ID.slice(1)}-${PARENT_ID}-01`,
      `00-${TRACE_ID}-${PARENT_ID}0-01`,
      `00-${TRACE_ID}-${PARENT_ID}-1`,
      `00_${TRACE_ID}_${PARENT_ID}_01`,
      ` ${VALID}`,
      "",
      "not a traceparent",
      `01-${TRACE_ID}-${PARENT_ID}-01-${"x".repeat(300)}`,
      42,
      null,
      { traceparent: VALID },
    ]) {
      expect(clientTraceparent(value), String(value)).toBeUndefined();
    }
  });
});

describe("request span name", () => {
  it("is the method and the tool or prompt, for ones the server has", () => {
    expect(spanName(server, "tools/call", { name: "echo", arguments: { text: "secret" } })).toBe("tools/call echo");
    expect(spanName(server, "prompts/get", { name: "brief" })).toBe("prompts/get brief");
  });

  it("is the method alone for a name the server does not have, and for every other method (never a URI)", () => {
    expect(spanName(server, "tools/call", { name: "typed by a client" })).toBe("tools/call");
    expect(spanName(server, "prompts/get", { name: "echo" })).toBe("prompts/get");
    expect(spanName(server, "tools/list", {})).toBe("tools/list");
    expect(spanName(server, "resources/read", { uri: "fixture://values/private" })).toBe("resources/read");
  });

  it("is _OTHER for a method that does not look like one", () => {
    expect(spanName(server, "say hello to Alice", {})).toBe("_OTHER");
    expect(spanName(server, `tools/${"x".repeat(100)}`, {})).toBe("_OTHER");
  });
});

describe("request span attributes", () => {
  it("describe a tool call: method, tool, operation, version, id as a string, transport and the client's traceparent", () => {
    const { span, attributes } = recordingSpan();
    const params = { name: "echo", arguments: { text: "private words" }, _meta: { traceparent: VALID, tracestate: "vendor=private" } };
    describeRequest(span, server, scopeOf("tools/call", 42), params);
    expect(attributes).toEqual({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "echo",
      "gen_ai.operation.name": "execute_tool",
      "mcp.protocol.version": MODERN,
      "jsonrpc.request.id": "42",
      "network.protocol.name": "http",
      "network.transport": "tcp",
      "mcp.client.traceparent": VALID,
    });
  });

  it("name the machine client that calls (client credentials), and never a person", () => {
    const machine: Principal = {
      id: "client-nightly",
      scopes: [],
      authenticated: true,
      name: "Nightly",
      client: { id: "nightly", name: "Nightly" },
    };
    const person: Principal = { id: "github-1", scopes: [], authenticated: true, name: "Alice" };
    const params = { name: "echo", arguments: {} };
    const asMachine = recordingSpan();
    describeRequest(asMachine.span, server, scopeOf("tools/call", 1, MODERN, machine), params);
    expect(asMachine.attributes["oauth.client.id"]).toBe("nightly");
    const asPerson = recordingSpan();
    describeRequest(asPerson.span, server, scopeOf("tools/call", 1, MODERN, person), params);
    expect(Object.values(asPerson.attributes)).not.toContain("github-1");
    expect(asPerson.attributes).not.toHaveProperty("oauth.client.id");
  });

  it("describe a prompt by its name, a 2025 session by its own id, and leave out an invalid traceparent", () => {
    const { span, attributes } = recordingSpan();
    const params = { name: "brief", arguments: { topic: "private" }, _meta: { traceparent: `00-${"0".repeat(32)}-${PARENT_ID}-01` } };
    describeRequest(span, server, scopeOf("prompts/get", "p-1", "2025-06-18"), params, "session-own-id");
    expect(attributes).toMatchObject({
      "mcp.method.name": "prompts/get",
      "gen_ai.prompt.name": "brief",
      "mcp.protocol.version": "2025-06-18",
      "jsonrpc.request.id": "p-1",
      "mcp.session.id": "session-own-id",
    });
    expect(attributes).not.toHaveProperty("gen_ai.tool.name");
    expect(attributes).not.toHaveProperty("mcp.client.traceparent");
  });

  it("never carry arguments, a resource URI, tracestate or an unbounded request id", () => {
    const { span, attributes } = recordingSpan();
    const params = { uri: "fixture://values/private-key", _meta: { traceparent: VALID, tracestate: "vendor=private-state" } };
    describeRequest(span, server, scopeOf("resources/read", "x".repeat(129)), params);
    const { span: toolSpan, attributes: toolAttributes } = recordingSpan();
    describeRequest(toolSpan, server, scopeOf("tools/call"), { name: "echo", arguments: { text: "private words" } });
    const recorded = JSON.stringify([attributes, toolAttributes]);
    for (const secret of ["private-key", "private-state", "private words", "xxxxx"]) expect(recorded).not.toContain(secret);
    expect(attributes["mcp.method.name"]).toBe("resources/read");
  });

  it("record a JSON-RPC error's code, a tool's isError as tool_error, and nothing for a success", () => {
    const error = recordingSpan();
    describeOutcome(error.span, { jsonrpc: "2.0", id: 1, error: { code: -32602, message: "Invalid params" } });
    expect(error.attributes).toEqual({ "error.type": "-32602", "rpc.response.status_code": "-32602" });
    const toolError = recordingSpan();
    describeOutcome(toolError.span, { jsonrpc: "2.0", id: 1, result: { content: [], isError: true } });
    expect(toolError.attributes).toEqual({ "error.type": "tool_error" });
    const success = recordingSpan();
    describeOutcome(success.span, { jsonrpc: "2.0", id: 1, result: { content: [], isError: false } });
    expect(success.attributes).toEqual({});
  });

  it("record an error thrown past the method by its JSON-RPC code, or as _OTHER", () => {
    const rpc = recordingSpan();
    describeOutcome(rpc.span, undefined, new RpcError(ErrorCode.InvalidRequest, "no"));
    expect(rpc.attributes).toEqual({ "error.type": "-32600" });
    const other = recordingSpan();
    describeOutcome(other.span, undefined, new TypeError("boom"));
    expect(other.attributes).toEqual({ "error.type": "_OTHER" });
  });
});

describe("tracing stays off the request's path", () => {
  it("describes nothing when the span is not traced, and still runs the request", async () => {
    const { span, attributes } = recordingSpan(false);
    expect(await inSpan(span, server, scopeOf("tools/call"), { name: "echo" }, async () => "answered")).toBe("answered");
    expect(attributes).toEqual({});
  });

  it("answers the request when describing its span throws, and passes the request's own failure through unchanged", async () => {
    const { span } = recordingSpan(true, true);
    const scope = scopeOf("tools/call");
    expect(await inSpan(span, server, scope, { name: "echo" }, async () => "answered")).toBe("answered");
    expect(inSpan(span, server, scope, { name: "echo" }, () => "answered at once")).toBe("answered at once");
    const failure = new Error("the request's own failure");
    await expect(
      inSpan(span, server, scope, {}, async () => {
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(() =>
      inSpan(span, server, scope, {}, () => {
        throw failure;
      }),
    ).toThrow(failure);
  });

  it("records how the request ended once its promise settles, from the reply's final message", async () => {
    const { span, attributes } = recordingSpan();
    const scope = scopeOf("tools/call");
    await inSpan(span, server, scope, { name: "echo" }, async () => {
      expect(attributes).not.toHaveProperty("error.type");
      scope.reply.finish({ jsonrpc: "2.0", id: 1, error: { code: -32603, message: "Internal error" } }, 500);
    });
    expect(attributes["error.type"]).toBe("-32603");
  });

  it("runs requests through the runtime's span, untraced without a consumer, and serves them as before", async () => {
    expect(tracing.enterSpan("probe", (span) => span.isTraced)).toBe(false);
    expect(await traceRequest(server, scopeOf("tools/list"), {}, async () => "answered")).toBe("answered");
    const result = await call<{ structuredContent: { text: string } }>("tools/call", { name: "echo", arguments: { text: "hi" } });
    expect(result.structuredContent.text).toBe("hi");
  });
});
