/**
 * Requests as a conforming client writes them, for the app's tests that speak the wire by hand (the others use the
 * engine's test client, or a real client): a 2026-07-28 request carries the protocol version and the client's
 * capabilities in `_meta`, and its headers mirror the method and, when the params have one, the name; a 2025
 * request names its revision and session in headers. Plain code: the workerd tests (test/app/) and the end-to-end
 * tests in Node (test/e2e/) both use it.
 */
export const MODERN = "2026-07-28";
export const LEGACY = "2025-11-25";
/** The test client's default endpoint, which the Worker answers in tests whatever the host. */
export const MCP_URL = "http://localhost:8787/mcp";

export interface ModernRequest {
  id: string | number;
  method: string;
  params?: Record<string, unknown>;
  /** The client's capabilities (none by default). */
  capabilities?: Record<string, unknown>;
  /** More `_meta` members (a progress token, a traceparent). */
  meta?: Record<string, unknown>;
}

/**
 * A 2026-07-28 request to `url`, ready for `fetch` (or a Worker's `fetch` in the test's isolate). To hang up, give the
 * signal to fetch, `fetch(request, { signal })`, never to the Request: Node's fetch copies a Request it is given, and
 * the copy follows the original's signal only while the original lives; once it is garbage collected, aborting never
 * reaches the call (nodejs/undici#4068).
 */
export function modernRequest(url: string, { id, method, params = {}, capabilities = {}, meta = {} }: ModernRequest): Request {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MODERN,
    "mcp-method": method,
  };
  const name = method === "resources/read" ? params.uri : params.name;
  if (typeof name === "string") headers["mcp-name"] = name;
  const _meta = { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": capabilities, ...meta };
  return new Request(url, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta } }),
  });
}

/** A 2025-11-25 request (`initialize` without a session, anything else in one), ready for `fetch`. */
export function legacyRequest(url: string, method: string, params: Record<string, unknown>, session?: string): Request {
  return new Request(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": LEGACY,
      ...(session && { "mcp-session-id": session }),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
}

/** The JSON-RPC message of an answer, whether it came as JSON or as the last message of an SSE stream. */
export async function answerOf(response: Response): Promise<Record<string, any>> {
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) return response.json();
  const messages = (await response.text())
    .split("\n")
    .filter((line) => line.startsWith("data: ") && line.length > 6)
    .map((line) => JSON.parse(line.slice(6)));
  return messages[messages.length - 1];
}
