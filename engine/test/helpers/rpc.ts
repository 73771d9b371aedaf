/**
 * Request builders for raw-wire tests against a Worker: a 2026-07-28 request is a POST with the version,
 * method and name headers mirrored from the body, and the required `_meta`. `send`, `call` and `post` target the
 * engine's fixture server (fixture.ts), never the example app, so the engine's tests pass whatever a fork's
 * src/ declares; the app's own tests bind `rpc` to the app's Worker.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { createMcpWorker, type EngineOptions, type ServerDefinition } from "../../src";
import { FIXTURE } from "./fixture";
import { runsTasksOf } from "./task-servers";

export const MODERN = "2026-07-28";
/** Every revision the server serves with legacyClients on (the default): 2026-07-28 first, then 2025 newest first. */
export const SERVED_VERSIONS = [MODERN, "2025-11-25", "2025-06-18", "2025-03-26"];
export const URL_MCP = "http://localhost:8787/mcp";

export type Json = Record<string, unknown>;

export function meta(capabilities: Json = {}, extra: Json = {}): Json {
  return {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientCapabilities": capabilities,
    "io.modelcontextprotocol/clientInfo": { name: "test-client", version: "1.0.0" },
    ...extra,
  };
}

let nextId = 1;

export interface CallOptions {
  id?: string | number;
  capabilities?: Json;
  metaExtra?: Json;
  headers?: Record<string, string | null>;
  /** Send params as given, without adding `_meta`. */
  rawParams?: boolean;
}

/** Headers a conforming 2026-07-28 client sends for this message. */
export function standardHeaders(method: string, params: Json = {}): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MODERN,
    "mcp-method": method,
  };
  const name = method === "resources/read" ? params.uri : method === "tools/call" || method === "prompts/get" ? params.name : undefined;
  if (typeof name === "string") headers["mcp-name"] = name;
  return headers;
}

type Fetcher = (request: Request) => Promise<Response>;

/**
 * Raw-wire helpers bound to one Worker's `fetch`, called in this isolate with the real bindings: a test server
 * built in the test, or (in the app's tests) the app's Worker. Why not the pool's own entry point (`exports`):
 * in pool 0.15.1 each call through it gets slower (2 ms at first, 25 ms after a few hundred), and the suite sends
 * thousands.
 */
export function rpc(fetcher: Fetcher) {
  const post = (body: unknown, headers: Record<string, string | null>, init: RequestInit = {}): Promise<Response> => {
    const requestHeaders = new Headers();
    for (const [name, value] of Object.entries(headers)) if (value !== null) requestHeaders.set(name, value);
    const raw = typeof body === "string" || body instanceof Uint8Array || body instanceof ReadableStream;
    const payload = raw ? (body as BodyInit) : JSON.stringify(body);
    return fetcher(new Request(URL_MCP, { method: "POST", headers: requestHeaders, body: payload, ...init }));
  };
  /** Sends one 2026-07-28 request and returns the raw response. */
  const send = (method: string, params: Json = {}, options: CallOptions = {}): Promise<Response> => {
    const fullParams = options.rawParams ? params : { ...params, _meta: meta(options.capabilities, options.metaExtra) };
    const body = { jsonrpc: "2.0", id: options.id ?? nextId++, method, params: fullParams };
    return post(body, { ...standardHeaders(method, params), ...options.headers });
  };
  /** Sends a request and returns the JSON-RPC result, failing the test on an error. */
  const call = async <T = Json>(method: string, params: Json = {}, options: CallOptions = {}): Promise<T> => {
    const message = await readMessage(await send(method, params, options));
    if (message.error) throw new Error(`${method} failed: ${JSON.stringify(message.error)}`);
    return message.result as T;
  };
  /** Any other HTTP request (GET stream, DELETE, OPTIONS, /health, the landing page), as `fetch` takes it. */
  const fetch = (input: Request | string, init?: RequestInit): Promise<Response> =>
    fetcher(input instanceof Request && init === undefined ? input : new Request(input, init));
  return { post, send, call, fetch };
}

/**
 * A server built from test-only declarations, served with the real bindings (storage, hubs, secrets).
 * `vars` override settings for this server only (for example a short keep-alive).
 */
export function testServer(definition: Partial<ServerDefinition & EngineOptions>, vars: Record<string, string> = {}) {
  const full = { name: "test-server", version: "1.0.0", ...definition };
  const worker = createMcpWorker(full);
  runsTasksOf(full);
  const testEnv = { ...env, ...vars } as Env;
  return rpc((request) => worker.fetch(request, testEnv, createExecutionContext()));
}

/** The engine's fixture server (fixture.ts), served with the real bindings: what `send`, `call` and `post` target. */
export const fixture = testServer(FIXTURE);
export const { post, send, call } = fixture;

/**
 * The session's own id inside a 2025 session token (`v2.<kid>.<payload>.<mac>`; the payload is signed, not
 * encrypted): the name of its Durable Object, and of its stream's sockets in the hubs (`s:<id>`).
 */
export function sessionName(token: string): string {
  const payload = Uint8Array.fromBase64(token.split(".")[2]!, { alphabet: "base64url" });
  return JSON.parse(new TextDecoder().decode(payload)).x.id;
}

/** The final JSON-RPC message of a response, whether it came as JSON or as the last SSE event. */
export async function readMessage(
  response: Response,
): Promise<Json & { result?: Record<string, any>; error?: { code: number; message: string; data?: Json } }> {
  if (response.headers.get("content-type")?.startsWith("text/event-stream")) {
    const events = await readSse(response);
    return events[events.length - 1]!;
  }
  return (await response.json()) as Json;
}

/** Every SSE `data:` message of a finished stream, parsed. */
export async function readSse(response: Response): Promise<Json[]> {
  const text = await response.text();
  return text.split("\n\n").flatMap((frame) =>
    frame
      .split("\n")
      // A priming event (an id and empty data, 2025-11-25) carries no message.
      .filter((line) => line.startsWith("data: ") && line.length > 6)
      .map((line) => JSON.parse(line.slice(6)) as Json),
  );
}
