/**
 * @module testing/wire
 * What a conforming client puts on the wire, written from the specification rather than taken from the engine, so
 * that the client checks the server instead of sharing its mistakes: the revisions, the `_meta` keys, the headers
 * of each era, and the header value encoding of 2026-07-28.
 */

export const MODERN_VERSION = "2026-07-28";
/** The 2025 revisions a client may pick (`era: "2025"`), newest first; the first is the default. */
export const LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;
export type LegacyVersion = (typeof LEGACY_VERSIONS)[number];

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

export const META_KEYS = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** The headers every POST carries: a JSON body, and both answer forms accepted (the server picks per request). */
export const POST_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" } as const;

/**
 * The target a 2026-07-28 request mirrors in `Mcp-Name`: the tool or prompt name, the resource URI, or (Tasks
 * extension) the task id; undefined for every other method.
 */
export function mcpNameOf(method: string, params: Json): string | undefined {
  const target =
    method === "tools/call" || method === "prompts/get"
      ? params.name
      : method === "resources/read"
        ? params.uri
        : method === "tasks/get" || method === "tasks/update" || method === "tasks/cancel"
          ? params.taskId
          : undefined;
  return typeof target === "string" ? target : undefined;
}

/** Visible ASCII, with spaces only inside: what a header may carry as it is (servers trim the outside). */
const SAFE_HEADER_VALUE = /^(?:[\x21-\x7E](?:[\x20-\x7E]*[\x21-\x7E])?)?$/;

/**
 * A value as a 2026-07-28 header carries it: as it is when it is safe ASCII, else `=?base64?<UTF-8, base64>?=`; a
 * plain value that looks like that form is encoded too, so the server cannot mistake it.
 */
export function headerValue(value: string): string {
  const looksEncoded = value.startsWith("=?base64?") && value.endsWith("?=");
  if (SAFE_HEADER_VALUE.test(value) && !looksEncoded) return value;
  return `=?base64?${new TextEncoder().encode(value).toBase64()}?=`;
}

/** A header-bound tool argument (`x-mcp-header` in the tool's input schema): where it sits, and its header's name. */
export interface ParamHeader {
  path: string[];
  header: string;
}

/**
 * The `x-mcp-header` declarations of an input schema that a client honours: on a string, integer or boolean reached
 * from the root through `properties` alone. (A server that declares others fails at startup, so none reach here.)
 */
export function paramHeadersOf(schema: unknown): ParamHeader[] {
  const found: ParamHeader[] = [];
  const walk = (node: unknown, path: string[]) => {
    if (!isObject(node)) return;
    const header = node["x-mcp-header"];
    if (typeof header === "string" && ["string", "integer", "boolean"].includes(String(node.type))) found.push({ path, header });
    if (isObject(node.properties)) for (const [name, child] of Object.entries(node.properties)) walk(child, [...path, name]);
  };
  walk(schema, []);
  return found;
}

/** The `Mcp-Param-*` headers of one call: a bound argument that is absent or null has none. */
export function paramHeaderValues(bindings: ParamHeader[], args: Json): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const { path, header } of bindings) {
    const value = path.reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), args);
    if (value === undefined || value === null) continue;
    headers[`mcp-param-${header.toLowerCase()}`] = headerValue(String(value));
  }
  return headers;
}
