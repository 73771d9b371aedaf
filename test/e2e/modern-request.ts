/**
 * A 2026-07-28 request as a conforming client sends it over HTTP, for the end-to-end tests that speak the wire by hand
 * (the others use a real client): `_meta` carries the protocol version and the client's capabilities, and the headers
 * mirror the method and, when the params have one, the name.
 */
export const MODERN = "2026-07-28";

export interface ModernRequest {
  id: string | number;
  method: string;
  params?: Record<string, unknown>;
  /** The client's capabilities (none by default). */
  capabilities?: Record<string, unknown>;
  /** More `_meta` members (a progress token, a traceparent). */
  meta?: Record<string, unknown>;
  /** Aborting it hangs up, as a client going away does. */
  signal?: AbortSignal;
}

export function postModern(
  url: string,
  { id, method, params = {}, capabilities = {}, meta = {}, signal }: ModernRequest,
): Promise<Response> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MODERN,
    "mcp-method": method,
  };
  if (typeof params.name === "string") headers["mcp-name"] = params.name;
  const _meta = { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": capabilities, ...meta };
  return fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta } }),
    signal,
  });
}
