/**
 * The bench scenarios as raw HTTP requests, the way a real client of each Worker's protocol sends them:
 *
 * - 2026-07-28 (the template, the SDK, tmcp, agents, mcp-handler): every request stands alone, with
 *   `MCP-Protocol-Version`, `Mcp-Method` and (for tools/call) `Mcp-Name` headers, and the revision and the client's
 *   capabilities in `params._meta`.
 * - 2025-06-18 (mcp-lite) and 2025-11-25 (@hono/mcp over SDK v1): a stateless Streamable HTTP POST after the
 *   client's one-time `initialize` (which the bench does not repeat): `MCP-Protocol-Version` of the negotiated
 *   revision, `Accept: application/json, text/event-stream` (a conforming client always sends both), no session id
 *   and no `_meta`.
 *
 * Every Worker of one protocol gets byte-identical requests, except the MRTR retry, whose `requestState` each
 * server minted for itself (see `mrtrRetry`), and the Accept header of the one row that is not called as a conforming
 * client calls it (mcp-lite's JSON path, its best case: `worker.accept`).
 */
export const MODERN = "2026-07-28";
export const TEXT = "hello bench";

const META = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
};

/** What a conforming client sends as `Accept` (the spec asks for both types on every POST). */
export const CONFORMING_ACCEPT = "application/json, text/event-stream";

/**
 * One JSON-RPC request as autocannon and the in-process driver want it: method, headers, body (a string, sent as
 * is). `accept`: the Accept header, a conforming client's unless a Worker answers JSON only to another one.
 */
export function rpc(protocol, method, params = {}, toolName, accept = CONFORMING_ACCEPT) {
  const headers = {
    "content-type": "application/json",
    accept,
    "mcp-protocol-version": protocol,
  };
  if (protocol === MODERN) {
    headers["mcp-method"] = method;
    if (toolName) headers["mcp-name"] = toolName;
  }
  const body = { jsonrpc: "2.0", id: 1, method, params: protocol === MODERN ? { ...params, _meta: META } : params };
  return { method: "POST", headers, body: JSON.stringify(body) };
}

/**
 * The requests for one Worker (its protocol revision, and the Accept header it is sent: `worker.accept`, else a
 * conforming client's): tools/list, tools/call echo, and (2026-07-28 only) the MRTR pair.
 */
export function scenariosFor({ protocol, accept = CONFORMING_ACCEPT }) {
  return {
    list: () => rpc(protocol, "tools/list", {}, undefined, accept),
    call: () => rpc(protocol, "tools/call", { name: "echo", arguments: { text: TEXT } }, "echo", accept),
    /** First round of the MRTR tool: the server answers input_required with a signed requestState. */
    mrtrFirst: () => rpc(protocol, "tools/call", { name: "confirm", arguments: { text: TEXT } }, "confirm", accept),
    /** The retry: same call, the answer to the one form question, and the server's own requestState echoed back. */
    mrtrRetry: (requestState) =>
      rpc(
        protocol,
        "tools/call",
        {
          name: "confirm",
          arguments: { text: TEXT },
          inputResponses: { confirm: { action: "accept", content: { ok: true } } },
          requestState,
        },
        "confirm",
        accept,
      ),
  };
}

/** What each scenario's answer must hold before a Worker is measured with it. */
export const CHECKS = {
  list: (result) => Array.isArray(result.tools) && result.tools.some((tool) => tool.name === "echo"),
  call: (result) => result.isError !== true && result.content?.[0]?.text === TEXT,
  mrtrFirst: (result) => result.resultType === "input_required" && typeof result.requestState === "string",
  mrtr: (result) => result.isError !== true && result.content?.[0]?.text === TEXT,
};

/**
 * The JSON-RPC message in an answer body: plain JSON, or the one `message` event of a request-scoped SSE stream
 * (mcp-lite, tmcp and @hono/mcp answer a POST that way). Undefined when neither holds a JSON-RPC response.
 */
export function messageOf(contentType, text) {
  const candidates = [];
  if (contentType.startsWith("text/event-stream")) {
    // Each event's data lines, joined; the response is the event carrying an `id` and a result or an error.
    for (const event of text.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart());
      if (data.length) candidates.push(data.join("\n"));
    }
  } else {
    candidates.push(text);
  }
  for (const candidate of candidates) {
    try {
      const message = JSON.parse(candidate);
      if (message && typeof message === "object" && ("result" in message || "error" in message)) return message;
    } catch {
      // Not JSON: a keep-alive or a comment frame.
    }
  }
  return undefined;
}

/**
 * Checks one answer (status, content type, body) as the bench got it, over HTTP or from the in-process driver:
 * a 200 whose JSON-RPC result passes `check`. Returns the result and how it came (JSON or SSE); throws with the
 * status and body text otherwise, so a broken endpoint is never measured.
 */
export function checkAnswer({ status, contentType, text }, check, form) {
  const result = messageOf(contentType, text)?.result;
  if (status !== 200 || !result || !check(result)) {
    throw new Error(`unexpected answer (HTTP ${status}, ${contentType || "no content type"}): ${text.slice(0, 400)}`);
  }
  const came = contentType.startsWith("text/event-stream") ? "SSE" : "JSON";
  // Why: the reports say which form each Worker answers in; a Worker that answers otherwise is not measured.
  if (form !== undefined && came !== form) throw new Error(`answered ${came}, expected ${form}: ${text.slice(0, 200)}`);
  return { result, form: came };
}

/** Sends one request over HTTP and checks its answer (see checkAnswer). */
export async function verify(url, request, check, form) {
  const response = await fetch(url, { ...request, signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  return checkAnswer({ status: response.status, contentType: response.headers.get("content-type") ?? "", text }, check, form);
}
