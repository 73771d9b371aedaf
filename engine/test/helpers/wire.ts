/**
 * Assertions on raw responses, shared by the bad-input checklist and the property-based fuzz tests: a JSON-RPC
 * error with a given HTTP status and code, the shape of any JSON-RPC message the server sends, and the server's
 * structured log lines (captured from the console, since the Worker runs in the test's isolate).
 */
import { expect, vi } from "vitest";
import type { Principal } from "../../src";
import { type Json, readMessage } from "./rpc";

/** Asserts the HTTP status and the JSON-RPC error code; `id: null` means the answer must carry no id at all. */
export async function expectError(response: Response, status: number, code: number, id?: string | number | null) {
  expect(response.status).toBe(status);
  const message = await readMessage(response);
  expect(message.jsonrpc).toBe("2.0");
  expect(message.error?.code).toBe(code);
  if (id === null) expect(message).not.toHaveProperty("id");
  else if (id !== undefined) expect(message.id).toBe(id);
  return message;
}

/** HTTP statuses the server documents for refusals (docs/security.md, src/wire/errors.ts); otherwise 200 or 202. */
export const DOCUMENTED_STATUSES = new Set([400, 401, 403, 404, 405, 406, 413, 415, 429]);

/**
 * Why a message is not a well-formed JSON-RPC message from this server, or `undefined` when it is: an object with
 * `jsonrpc: "2.0"`, and either a response (exactly one of `result`/`error`, an integer `error.code`, an id that is
 * absent or a string or safe integer, never null) or a notification/request (a string `method`).
 */
export function malformation(message: unknown): string | undefined {
  if (typeof message !== "object" || message === null || Array.isArray(message)) return "not a JSON object";
  const m = message as Json;
  if (m.jsonrpc !== "2.0") return `jsonrpc is ${JSON.stringify(m.jsonrpc)}`;
  if ("method" in m) {
    if (typeof m.method !== "string") return "method is not a string";
    if ("result" in m || "error" in m) return "a request or notification that also carries result/error";
    return undefined;
  }
  if ("result" in m === "error" in m) return "not exactly one of result and error";
  if ("id" in m && !(typeof m.id === "string" || Number.isSafeInteger(m.id))) return `id is ${JSON.stringify(m.id)}`;
  if ("result" in m && (typeof m.result !== "object" || m.result === null || Array.isArray(m.result))) return "result is not an object";
  if ("error" in m) {
    const error = m.error as Json | null;
    if (typeof error !== "object" || error === null) return "error is not an object";
    if (!Number.isInteger(error.code)) return `error.code is ${JSON.stringify(error.code)}`;
    if (typeof error.message !== "string") return "error.message is not a string";
  }
  return undefined;
}

export interface Inspected {
  status: number;
  headers: Headers;
  /** "json", "sse" or "empty" (202), or "text" for a non-JSON body. */
  kind: "json" | "sse" | "empty" | "text";
  /** The final JSON-RPC message(s): one for a plain answer or an SSE stream, several for a batch. */
  messages: Json[];
  /** Every message of an SSE stream, in order (notifications before the final answer). */
  stream: Json[];
}

/**
 * Reads a response completely and checks the wire invariants every answer must keep, whatever was sent: no 5xx,
 * only documented statuses, a 202 with an empty body, JSON bodies that are well-formed JSON-RPC (each element of
 * a batch answer too), SSE streams whose every message is well-formed and whose last one is a response.
 * Returns what it read so a property can check more.
 */
export async function inspect(response: Response): Promise<Inspected> {
  const { status } = response;
  const fail = (why: string, body?: string): never => {
    throw new Error(`HTTP ${status}: ${why}${body === undefined ? "" : `; body: ${body.slice(0, 500)}`}`);
  };
  if (status >= 500) fail("a 5xx answer", await response.text());
  if (status !== 200 && status !== 202 && !DOCUMENTED_STATUSES.has(status)) fail("an undocumented status", await response.text());
  const type = response.headers.get("content-type") ?? "";
  const body = await response.text();
  if (status === 202) {
    if (body !== "") fail("a 202 with a body", body);
    return { status, headers: response.headers, kind: "empty", messages: [], stream: [] };
  }
  if (type.startsWith("text/event-stream")) {
    if (status !== 200) fail("an SSE stream with a status other than 200");
    const stream = body
      .split("\n\n")
      .map((frame) =>
        frame
          .split("\n")
          .filter((line) => line.startsWith("data: "))
          .map((line) => line.slice(6))
          .join("\n"),
      )
      .filter(Boolean)
      .map((data) => {
        try {
          return JSON.parse(data) as Json;
        } catch {
          return fail("an SSE data line that is not JSON", data);
        }
      });
    for (const message of stream) {
      const why = malformation(message);
      if (why) fail(`a malformed SSE message (${why})`, JSON.stringify(message));
    }
    const last = stream.at(-1);
    if (!last || "method" in last) fail("an SSE stream that does not end with a response", body);
    return { status, headers: response.headers, kind: "sse", messages: [last!], stream };
  }
  if (type.startsWith("application/json")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return fail("a JSON content type with a body that is not JSON", body);
    }
    const messages = (Array.isArray(parsed) ? parsed : [parsed]) as Json[];
    if (Array.isArray(parsed) && parsed.length === 0) fail("an empty batch answer", body);
    for (const message of messages) {
      const why = malformation(message);
      if (why) fail(`a malformed JSON-RPC answer (${why})`, body);
      if ("method" in message) fail("a request or notification where an answer belongs", body);
    }
    if (Array.isArray(parsed) && status !== 200) fail("a batch answer with a status other than 200", body);
    return { status, headers: response.headers, kind: "json", messages, stream: [] };
  }
  // Only refusals made before there is a JSON-RPC message may be plain text.
  if (status === 200) fail(`a 200 answer of type ${JSON.stringify(type)}`, body);
  return { status, headers: response.headers, kind: "text", messages: [], stream: [] };
}

/** Own property names of the built-in prototypes that prototype pollution would touch. */
export function prototypeSnapshot(): string {
  return [Object.prototype, Array.prototype, Function.prototype]
    .map((proto) => Reflect.ownKeys(proto).map(String).sort().join(","))
    .join("|");
}

/** Throws when a well-known pollution marker has appeared on every object. */
export function assertUnpolluted(baseline: string): void {
  const probe = {} as Record<string, unknown>;
  if (probe.polluted !== undefined || probe.isAdmin !== undefined) {
    throw new Error("Object.prototype was polluted");
  }
  if (prototypeSnapshot() !== baseline) throw new Error("a built-in prototype gained or lost an own property");
}

/**
 * Runs `action` while capturing the server's console output (and keeping it out of the test report).
 * Returns the action's value and every line, with the structured ones parsed.
 */
export async function withLogs<T>(action: () => Promise<T>): Promise<{ value: T; lines: string[]; entries: Json[] }> {
  const lines: string[] = [];
  const capture = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
  const spies = (["log", "info", "warn", "error", "debug"] as const).map((level) => vi.spyOn(console, level).mockImplementation(capture));
  try {
    const value = await action();
    const entries = lines.flatMap((line) => {
      try {
        const parsed = JSON.parse(line) as unknown;
        return typeof parsed === "object" && parsed !== null ? [parsed as Json] : [];
      } catch {
        return [];
      }
    });
    return { value, lines, entries };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

/** `entries` but the access log's (one "mcp request" line per request, for errors by default): what a test checks. */
export const withoutAccessLog = (entries: Json[]): Json[] => entries.filter((entry) => entry.message !== "mcp request");

/** A signed-in principal, for tests that publish or listen as one without minting a token. */
export const user = (id: string): Principal => ({ id, scopes: [], authenticated: true });
