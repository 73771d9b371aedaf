/**
 * @module testing/transport
 * One POST through the Worker's `fetch` and its answer, read as the server chose to send it: one JSON object, or
 * an SSE stream whose last message is the response. Messages before the response (notifications, and in 2025 the
 * server's own requests) go to the caller, in order, while the stream is still open.
 */
import { McpClientError, McpError, McpHttpError } from "./errors";
import { sseReader } from "./sse";
import { isObject, type Json } from "./wire";

/**
 * How the client reaches the Worker: a function from a `Request` to its `Response`.
 *
 * @example
 * const app: Fetcher = (request) => worker.fetch(request, env, createExecutionContext());
 * const client = await connect(app);
 */
export type Fetcher = (request: Request) => Response | Promise<Response>;

/**
 * A JSON-RPC message as it arrives: a response (`result` or `error`), a request (`method` and `id`), or a notification.
 *
 * @example
 * const heard: RpcMessage = await listener.next();
 * expect(heard).toMatchObject({ method: "notifications/resources/updated", params: { uri } });
 */
export type RpcMessage = Json & { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: unknown };

/** Sends one message as a POST to `url`, with `headers` (null values are left out). */
export function post(fetcher: Fetcher, url: string, message: Json, headers: Record<string, string | undefined>): Promise<Response> {
  const sent = new Headers();
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) sent.set(name, value);
  return Promise.resolve(fetcher(new Request(url, { method: "POST", headers: sent, body: JSON.stringify(message) })));
}

/** What one request is, for reading its answer and naming it in errors. */
export interface Pending {
  id: string | number;
  method: string;
  /** How errors name it, e.g. `tools/call delete_note`. */
  label: string;
}

/**
 * The result of request `pending`, read from its response; a JSON-RPC error throws `McpError`, an answer without a
 * JSON-RPC message throws `McpHttpError`. `onMessage` gets every message the server sent before the response.
 */
export async function readAnswer(response: Response, pending: Pending, onMessage: (message: RpcMessage) => Promise<void>): Promise<Json> {
  const type = response.headers.get("content-type") ?? "";
  if (type.startsWith("text/event-stream")) return readStream(response, pending, onMessage);
  const body = await response.text();
  if (response.status === 202) throw new McpClientError("protocol", `${pending.label}: the server answered 202 Accepted, with no response`);
  let message: unknown;
  try {
    message = type.startsWith("application/json") ? JSON.parse(body) : undefined;
  } catch {
    message = undefined;
  }
  if (!isObject(message) || !("result" in message || "error" in message)) {
    throw new McpHttpError(`POST ${pending.label}`, response.status, response.headers, body);
  }
  return resultOf(message, pending, response);
}

async function readStream(response: Response, pending: Pending, onMessage: (message: RpcMessage) => Promise<void>): Promise<Json> {
  const stream = sseReader(response.body!);
  try {
    for (;;) {
      const event = await stream.next();
      if (event === "end") throw new McpClientError("protocol", `${pending.label}: the SSE stream ended before the response arrived`);
      if (event === "timeout" || !event.data) continue;
      const message = parseMessage(event.data, pending.label);
      if (typeof message.method === "string") {
        await onMessage(message);
        continue;
      }
      return resultOf(message, pending, response);
    }
  } finally {
    // The response has arrived (or the call failed): nothing more on this stream is for us.
    await stream.cancel();
  }
}

/** Parses one SSE event's data as a JSON-RPC message. */
export function parseMessage(data: string, label: string): RpcMessage {
  let message: unknown;
  try {
    message = JSON.parse(data);
  } catch {
    throw new McpClientError("protocol", `${label}: an SSE event is not JSON: ${data.slice(0, 200)}`);
  }
  if (!isObject(message) || message.jsonrpc !== "2.0") {
    throw new McpClientError("protocol", `${label}: an SSE event is not a JSON-RPC 2.0 message: ${data.slice(0, 200)}`);
  }
  return message;
}

/** The result of a response to `pending`; its error as an `McpError`. */
function resultOf(message: RpcMessage, pending: Pending, response: Response): Json {
  // An error without an id: the server refused the request before it read its id (Host, Origin, authorization).
  const refused = isObject(message.error) && !("id" in message);
  if (!refused && message.id !== pending.id) {
    throw new McpClientError(
      "protocol",
      `${pending.label}: the response has id ${JSON.stringify(message.id)}, not ${JSON.stringify(pending.id)}`,
    );
  }
  if (isObject(message.error)) {
    const { code, message: text, data } = message.error;
    throw new McpError(pending.method, Number(code), String(text), data, response.status, response.headers);
  }
  if (!isObject(message.result)) throw new McpClientError("protocol", `${pending.label}: the response has no result object`);
  return message.result;
}
