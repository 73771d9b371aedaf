/**
 * The four bench scenarios as raw 2026-07-28 HTTP requests. Every Worker gets byte-identical requests, except the
 * MRTR retry, whose `requestState` each server minted for itself (see `mrtrRetry`).
 */
const VERSION = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": VERSION,
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
};
export const TEXT = "hello bench";

/** One JSON-RPC request as autocannon wants it: method, headers, body (a string, sent as is). */
export function rpc(method, params = {}, toolName) {
  const headers = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": VERSION,
    "mcp-method": method,
  };
  if (toolName) headers["mcp-name"] = toolName;
  return {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: META } }),
  };
}

export const discover = () => rpc("server/discover");
export const toolsList = () => rpc("tools/list");
export const echoCall = () => rpc("tools/call", { name: "echo", arguments: { text: TEXT } }, "echo");
/** First round of the MRTR tool: the server answers input_required with a signed requestState. */
export const mrtrFirst = () => rpc("tools/call", { name: "confirm", arguments: { text: TEXT } }, "confirm");
/** The retry: same call, the answer to the one form question, and the server's own requestState echoed back. */
export const mrtrRetry = (requestState) =>
  rpc(
    "tools/call",
    {
      name: "confirm",
      arguments: { text: TEXT },
      inputResponses: { confirm: { action: "accept", content: { ok: true } } },
      requestState,
    },
    "confirm",
  );

/**
 * Sends one request and checks it is a plain JSON (not SSE) 200 JSON-RPC result, so a broken endpoint is never
 * benchmarked. Returns the result; throws with the status and body text otherwise.
 */
export async function verify(url, request, check = () => true) {
  const response = await fetch(url, { ...request, signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  const type = response.headers.get("content-type") ?? "";
  let message;
  try {
    message = JSON.parse(text);
  } catch {
    message = undefined;
  }
  const result = message?.result;
  if (response.status !== 200 || !type.startsWith("application/json") || !result || !check(result)) {
    throw new Error(`unexpected answer (HTTP ${response.status}, ${type}): ${text.slice(0, 400)}`);
  }
  return result;
}
