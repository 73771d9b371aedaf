/**
 * @module protocol
 * Names, versions and wire types of the Model Context Protocol that the engine speaks
 * (schema: modelcontextprotocol `schema/2026-07-28/schema.ts`; older revisions for the legacy path).
 */

export const STATELESS_VERSION = "2026-07-28";
/** 2025-era revisions served through the `initialize` handshake, newest first. */
export const LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26"] as const;
export type LegacyVersion = (typeof LEGACY_VERSIONS)[number];
export const isLegacyVersion = (value: unknown): value is LegacyVersion => (LEGACY_VERSIONS as readonly unknown[]).includes(value);
/**
 * Every revision this server serves, as discover's `supportedVersions` and -32022's `data.supported` list them:
 * 2026-07-28 first, then the 2025 revisions (served through `initialize`) while LEGACY_CLIENTS is on.
 */
export const servedVersions = (legacyClients: boolean): string[] =>
  legacyClients ? [STATELESS_VERSION, ...LEGACY_VERSIONS] : [STATELESS_VERSION];

export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

/** HTTP header names the engine reads or sends (lower case, as the Fetch API reports them). */
export const HEADER = {
  protocolVersion: "mcp-protocol-version",
  method: "mcp-method",
  name: "mcp-name",
  /** Prefix of the headers that mirror tool arguments (`x-mcp-header` declarations). */
  paramPrefix: "mcp-param-",
  /** 2025 revisions only. */
  sessionId: "mcp-session-id",
  lastEventId: "last-event-id",
  /** The server's trace id for the request; quote it when reporting a problem. */
  requestId: "x-request-id",
} as const;

export type RequestId = string | number;
export type JsonObject = Record<string, unknown>;

export const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
}

export interface ClientCapabilities {
  elicitation?: { form?: JsonObject; url?: JsonObject };
  sampling?: { context?: JsonObject; tools?: JsonObject };
  roots?: JsonObject;
  experimental?: JsonObject;
  extensions?: JsonObject;
}

export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: "light" | "dark";
}

export interface Annotations {
  audience?: ("user" | "assistant")[];
  priority?: number;
  lastModified?: string;
}

export type ResourceContents =
  | { uri: string; mimeType?: string; text: string; _meta?: JsonObject }
  | { uri: string; mimeType?: string; blob: string; _meta?: JsonObject };

/** A resource named without its contents: a `resource_link` content block, or an entry of `resources/list`. */
export interface ResourceLink {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  icons?: Icon[];
  annotations?: Annotations;
  _meta?: JsonObject;
}

export type ContentBlock =
  | { type: "text"; text: string; annotations?: Annotations; _meta?: JsonObject }
  | { type: "image"; data: string; mimeType: string; annotations?: Annotations; _meta?: JsonObject }
  | { type: "audio"; data: string; mimeType: string; annotations?: Annotations; _meta?: JsonObject }
  | ({ type: "resource_link" } & ResourceLink)
  | { type: "resource"; resource: ResourceContents; annotations?: Annotations; _meta?: JsonObject };

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface PromptMessage {
  role: "user" | "assistant";
  content: ContentBlock;
}

/** `ttlMs` / `cacheScope` (SEP-2549): how long and for whom a client may cache a result. */
export interface CacheHint {
  ttlMs: number;
  cacheScope: "public" | "private";
}
