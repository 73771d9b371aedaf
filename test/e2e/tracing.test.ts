/**
 * Tracing end to end: the template under wrangler's dev server with a streaming tail consumer (test/e2e/tail/),
 * which receives every span the runtime records. Each MCP request, on either wire, is one span named and described
 * per the OpenTelemetry MCP conventions; nothing a client sent as arguments ever reaches a trace. The Worker is the
 * one the global setup starts for every end-to-end test: the other files' requests are traced too, so each request
 * here has an id no other file sends, and the marker below appears in no other file.
 */
import { describe, expect, inject, it } from "vitest";
import { MODERN, modernRequest } from "../wire";
import { mcpSpans, type RecordedSpan, receivedEvents } from "./tail/start";

/** Sent in arguments and note text: it must appear nowhere in what the tail consumer receives (spans, logs...). */
const MARKER = "zq-private-marker-7c41";
const TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

const url = inject("mcpUrl");
const events = () => receivedEvents(inject("tailEventsUrl"));

/** The span of the request with this JSON-RPC id, once the tail consumer has received it. */
async function spanOf(id: string): Promise<RecordedSpan> {
  const find = async () => mcpSpans(await events()).find((span) => span.attributes["jsonrpc.request.id"] === id);
  await expect.poll(async () => (await find()) !== undefined, { timeout: 15_000 }).toBe(true);
  return (await find())!;
}

/** A 2026-07-28 request, its answer read as JSON; `_meta` extras (traceparent) merged in. */
async function modern(id: string, method: string, params: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) {
  const response = await fetch(modernRequest(url, { id, method, params, meta }));
  return (await response.json()) as { result?: any; error?: { code: number } };
}

/** A 2025 request (or batch), in a session when its token is given. */
async function legacy(body: unknown, version: string, session?: string) {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": version,
  };
  if (session) headers["mcp-session-id"] = session;
  return fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
}

describe("one span per MCP request, per the OpenTelemetry MCP conventions", () => {
  it("names a 2026-07-28 tool call after its tool, with the method, tool, version, id and the client's traceparent", async () => {
    const created = await modern("t-create", "tools/call", { name: "create_notebook", arguments: {} }, { traceparent: TRACEPARENT });
    expect(created.result.structuredContent.notebook_id).toMatch(/^nb_/);
    const span = await spanOf("t-create");
    expect(span.name).toBe("tools/call create_notebook");
    expect(span.attributes).toEqual({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "create_notebook",
      "gen_ai.operation.name": "execute_tool",
      "mcp.protocol.version": MODERN,
      "jsonrpc.request.id": "t-create",
      "network.protocol.name": "http",
      "network.transport": "tcp",
      "mcp.client.traceparent": TRACEPARENT,
    });
  });

  it("names a list request after its method alone, and records no error and no malformed or all-zero traceparent", async () => {
    expect(
      (await modern("t-list", "tools/list", {}, { traceparent: `00-${"0".repeat(32)}-00f067aa0ba902b7-01` })).result.tools.length,
    ).toBeGreaterThan(0);
    expect((await modern("t-list-2", "tools/list", {}, { traceparent: "not a traceparent" })).result).toBeDefined();
    for (const id of ["t-list", "t-list-2"]) {
      const span = await spanOf(id);
      expect(span.name).toBe("tools/list");
      expect(span.attributes["mcp.method.name"]).toBe("tools/list");
      expect(span.attributes).not.toHaveProperty("error.type");
      expect(span.attributes).not.toHaveProperty("mcp.client.traceparent");
      expect(span.attributes).not.toHaveProperty("gen_ai.tool.name");
    }
  });

  it("records a JSON-RPC error's code as error.type, and names no tool the server does not have", async () => {
    // A client can send any text as a tool name: only a name the server declared is a span name or attribute.
    const name = "no-such-tool-typed-by-a-client";
    const answer = await modern("t-unknown", "tools/call", { name, arguments: { note: MARKER } });
    expect(answer.error?.code).toBe(-32602);
    const span = await spanOf("t-unknown");
    expect(span.name).toBe("tools/call");
    expect(span.attributes).toMatchObject({ "error.type": "-32602", "rpc.response.status_code": "-32602" });
    expect(span.attributes).not.toHaveProperty("gen_ai.tool.name");
    expect(JSON.stringify(span)).not.toContain(name);
  });

  it("records a tool's isError result (the call succeeded, the tool did not) as tool_error", async () => {
    const invalid = { title: MARKER, body: MARKER };
    expect((await modern("t-invalid", "tools/call", { name: "add_note", arguments: invalid })).result.isError).toBe(true);
    const unknownNotebook = { notebook_id: `nb_${"A".repeat(22)}`, query: MARKER };
    expect((await modern("t-tool-error", "tools/call", { name: "search_notes", arguments: unknownNotebook })).result.isError).toBe(true);
    for (const [id, tool] of [
      ["t-invalid", "add_note"],
      ["t-tool-error", "search_notes"],
    ]) {
      const span = await spanOf(id!);
      expect(span.name).toBe(`tools/call ${tool}`);
      expect(span.attributes["error.type"]).toBe("tool_error");
      expect(span.attributes).not.toHaveProperty("rpc.response.status_code");
    }
  });

  it("records a 2025 session's own id (never its token) and the negotiated revision", async () => {
    const initialize = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "trace-test", version: "1.0.0" } };
    const opened = await legacy({ jsonrpc: "2.0", id: "s-init", method: "initialize", params: initialize }, "2025-11-25");
    const token = opened.headers.get("mcp-session-id");
    expect(token).toBeTruthy();
    await legacy({ jsonrpc: "2.0", method: "notifications/initialized" }, "2025-11-25", token!);
    const called = await legacy(
      { jsonrpc: "2.0", id: "s-call", method: "tools/call", params: { name: "create_notebook", arguments: {} } },
      "2025-11-25",
      token!,
    );
    expect(called.status).toBe(200);
    const span = await spanOf("s-call");
    expect(span.name).toBe("tools/call create_notebook");
    expect(span.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "create_notebook",
      "mcp.protocol.version": "2025-11-25",
      "mcp.session.id": sessionIdOf(token!),
    });
    expect((await spanOf("s-init")).attributes).not.toHaveProperty("mcp.session.id");
  });

  it("gives each request of a 2025-03-26 batch its own span", async () => {
    const batch = [
      { jsonrpc: "2.0", id: "b-list", method: "tools/list" },
      { jsonrpc: "2.0", id: "b-prompt", method: "prompts/list" },
    ];
    expect(await (await legacy(batch, "2025-03-26")).json()).toHaveLength(2);
    expect((await spanOf("b-list")).attributes).toMatchObject({ "mcp.method.name": "tools/list", "mcp.protocol.version": "2025-03-26" });
    expect((await spanOf("b-prompt")).name).toBe("prompts/list");
  });

  it("never sends arguments or note text to the trace consumer, in any span, attribute or log", async () => {
    const created = await modern("p-create", "tools/call", { name: "create_notebook", arguments: { title: MARKER } });
    const notebook = created.result.structuredContent.notebook_id;
    const note = { notebook_id: notebook, title: MARKER, body: `${MARKER} body`, tags: [MARKER] };
    expect((await modern("p-add", "tools/call", { name: "add_note", arguments: note })).result.isError).toBeUndefined();
    expect(
      (await modern("p-search", "tools/call", { name: "search_notes", arguments: { notebook_id: notebook, query: MARKER } })).result,
    ).toBeDefined();
    await spanOf("p-search");
    expect(JSON.stringify(await events())).not.toContain(MARKER);
  });
});

/** The session's own id inside a 2025 session token (`v1.<kid>.<payload>.<mac>`; signed, not encrypted). */
function sessionIdOf(token: string): string {
  return JSON.parse(Buffer.from(token.split(".")[2]!, "base64url").toString("utf8")).x.id;
}
