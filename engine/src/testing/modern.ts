/**
 * @module testing/modern
 * Requests as a 2026-07-28 client sends them: every request carries its version, capabilities and client info in
 * `params._meta`, and the headers that mirror the body (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, and the
 * tool's `Mcp-Param-*`). Nothing is kept between requests: there is no session.
 */
import { type Call, type ClientSetup, deliver } from "./channel";
import { McpClientError } from "./errors";
import { post, readAnswer } from "./transport";
import { headerValue, type Json, META_KEYS, MODERN_VERSION, mcpNameOf, POST_HEADERS } from "./wire";

/** POSTs one 2026-07-28 request, with its `_meta` and headers, and returns the raw response. */
export async function postModern(setup: ClientSetup, method: string, params: Json, call: Call) {
  const id = setup.nextId();
  const { options } = call;
  const progressToken = options.onProgress ? `progress-${id}` : undefined;
  const meta: Json = {
    ...options.meta,
    [META_KEYS.protocolVersion]: MODERN_VERSION,
    [META_KEYS.clientCapabilities]: setup.capabilities,
    [META_KEYS.clientInfo]: setup.clientInfo,
    ...(progressToken !== undefined && { progressToken }),
    ...(options.logLevel !== undefined && { [META_KEYS.logLevel]: options.logLevel }),
  };
  const name = mcpNameOf(method, params);
  const headers = {
    ...setup.headers,
    ...POST_HEADERS,
    "mcp-protocol-version": MODERN_VERSION,
    "mcp-method": method,
    ...(name !== undefined && { "mcp-name": headerValue(name) }),
    ...call.headers,
  };
  const response = await post(setup.fetcher, setup.url, { jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } }, headers);
  return { id, response, progressToken };
}

/** Sends one 2026-07-28 request and returns its result (any `resultType`; the caller decides what to do with it). */
export async function sendModern(setup: ClientSetup, method: string, params: Json, call: Call): Promise<Json> {
  const { id, response, progressToken } = await postModern(setup, method, params, call);
  const result = await readAnswer(response, { id, method, label: call.label }, async (message) => {
    // Why a failure: on 2026-07-28 the server asks through input_required results, never with a request of its own.
    if ("id" in message) {
      throw new McpClientError("protocol", `${call.label}: a 2026-07-28 server sends no requests, yet ${String(message.method)} arrived`);
    }
    deliver(message, call.options, progressToken);
  });
  if (typeof result.resultType !== "string") {
    throw new McpClientError("protocol", `${call.label}: the result has no resultType (a 2026-07-28 server must send one)`);
  }
  return result;
}
