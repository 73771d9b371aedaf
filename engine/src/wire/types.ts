/**
 * @module wire/types
 * Names, versions and wire types of the Model Context Protocol that the engine speaks
 * (the specification repository's `schema/2026-07-28/schema.ts`; older revisions for the legacy path).
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

/**
 * A JSON-RPC request id, as the client chose it (`ctx.requestId`): a string or a number, and `"1"` is not `1`.
 *
 * @example
 * ```ts
 * export function requestLabel(id: RequestId): string {
 *   return typeof id === "number" ? `#${id}` : id;
 * }
 * ```
 */
export type RequestId = string | number;

/**
 * A JSON object: `ctx.state`, `_meta`, raw JSON Schema, and the arguments of a `jsonSchema` tool.
 *
 * @example
 * ```ts
 * export function remember(ctx: ToolContext, key: string, value: string): JsonObject {
 *   ctx.state[key] = value; // carried, signed, to the next round of this request
 *   return ctx.state;
 * }
 * ```
 */
export type JsonObject = Record<string, unknown>;

export const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;
/**
 * The severity of a log message (`ctx.log`), least severe first: `debug` ... `emergency` (RFC 5424's levels).
 *
 * @example
 * ```ts
 * export function logAt(ctx: HandlerContext, level: LogLevel, message: string): void {
 *   ctx.log(level, { message, traceId: ctx.traceId }, "weather");
 * }
 * ```
 */
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * A client's or server's name and version, as it introduces itself (`ctx.client.info`).
 *
 * @example
 * ```ts
 * export function clientName(client: Implementation | undefined): string {
 *   return client?.title ?? client?.name ?? "unknown";
 * }
 * ```
 */
export interface Implementation {
  /** Its name, such as `claude-ai`. */
  name: string;
  /** Its version. */
  version: string;
  /** A name for people. */
  title?: string;
  /** What it is. */
  description?: string;
  /** Its website (an http or https URL). */
  websiteUrl?: string;
}

/**
 * What a client declared it can do (`ctx.client.capabilities`): answer forms and URLs (`elicitation`), lend its
 * model (`sampling`), share its workspace folders (`roots`), and the extensions it speaks. Client input: a field may
 * hold anything, so prefer `ctx.supports(kind)`, which checks them properly.
 *
 * @example
 * ```ts
 * export function asksUrls(capabilities: ClientCapabilities): boolean {
 *   return capabilities.elicitation?.url !== undefined;
 * }
 * ```
 */
export interface ClientCapabilities {
  /** Forms (`form`) and URLs (`url`); `{}` alone counts as forms. */
  elicitation?: { form?: JsonObject; url?: JsonObject };
  /** The client's model; with `tools` and `context` when it takes those too. */
  sampling?: { context?: JsonObject; tools?: JsonObject };
  /** The client's workspace folders. */
  roots?: JsonObject;
  /** Non-standard capabilities. */
  experimental?: JsonObject;
  /** Extensions, by identifier, such as `io.modelcontextprotocol/ui` and `io.modelcontextprotocol/tasks`. */
  extensions?: JsonObject;
}

/**
 * An icon for a server, tool, prompt or resource, as clients may show it.
 *
 * @example
 * ```ts
 * export const sunIcon: Icon = { src: "https://weather.example/sun.png", mimeType: "image/png", sizes: ["48x48"] };
 * ```
 */
export interface Icon {
  /** An `https:` or `data:` URL of the image. */
  src: string;
  /** Its media type, such as `image/png`. */
  mimeType?: string;
  /** The sizes it is drawn for, such as `48x48`, or `any` for a scalable image. */
  sizes?: string[];
  /** The theme it is drawn for. */
  theme?: "light" | "dark";
}

/**
 * Hints about a resource or a content block: who it is for, how important it is, when it last changed.
 *
 * @example
 * ```ts
 * export const forTheUser: Annotations = { audience: ["user"], priority: 0.9, lastModified: "2026-01-31T12:00:00Z" };
 * ```
 */
export interface Annotations {
  /** Who it is meant for: the user, the model (`assistant`), or both. */
  audience?: ("user" | "assistant")[];
  /** How important it is, from 0 (least) to 1 (most). */
  priority?: number;
  /** When it last changed, as an ISO 8601 date-time. */
  lastModified?: string;
}

/**
 * A resource's contents, as a `read` returns them (and `embeddedResource` takes them): its `uri` with `text`, or
 * with `blob` (base64 bytes: `bytes.toBase64()`), and optionally its `mimeType`.
 *
 * @example
 * ```ts
 * export const logo: ResourceContents = { uri: "brand://logo.svg", mimeType: "image/svg+xml", text: "<svg></svg>" };
 * ```
 */
export type ResourceContents =
  | { uri: string; mimeType?: string; text: string; _meta?: JsonObject }
  | { uri: string; mimeType?: string; blob: string; _meta?: JsonObject };

/**
 * A resource named without its contents: a `resource_link` content block, or an entry of `resources/list`.
 *
 * @example
 * ```ts
 * export const forecastLink: ResourceLink = { uri: "weather://oslo", name: "Weather in Oslo", mimeType: "application/json" };
 * ```
 */
export interface ResourceLink {
  /** The resource's URI, which `resources/read` reads. */
  uri: string;
  /** A short name. */
  name: string;
  /** A name for people. */
  title?: string;
  /** What it holds. */
  description?: string;
  /** The media type of its contents. */
  mimeType?: string;
  /** Its size in bytes, when known. */
  size?: number;
  /** Icons clients may show for it. */
  icons?: Icon[];
  /** Who it is for, how important it is, when it last changed. */
  annotations?: Annotations;
  /** Metadata for the client. */
  _meta?: JsonObject;
}

/**
 * One block of a tool result or a prompt message: text, an image, audio, a link to a resource, or an embedded
 * resource. Build them with `text`, `image`, `audio`, `resourceLink` and `embeddedResource`.
 *
 * @example
 * ```ts
 * export function bulletList(lines: string[]): ContentBlock[] {
 *   return lines.map((line) => text(`- ${line}`));
 * }
 * ```
 */
export type ContentBlock =
  | { type: "text"; text: string; annotations?: Annotations; _meta?: JsonObject }
  | { type: "image"; data: string; mimeType: string; annotations?: Annotations; _meta?: JsonObject }
  | { type: "audio"; data: string; mimeType: string; annotations?: Annotations; _meta?: JsonObject }
  | ({ type: "resource_link" } & ResourceLink)
  | { type: "resource"; resource: ResourceContents; annotations?: Annotations; _meta?: JsonObject };

/**
 * Hints about a tool for the client (`ToolDefinition.annotations`), for example to ask the user before a destructive
 * call. Hints only: a client may ignore them, and nothing enforces them.
 *
 * @example
 * ```ts
 * export const readOnly: ToolAnnotations = { readOnlyHint: true, openWorldHint: false };
 * ```
 */
export interface ToolAnnotations {
  /** A name for people. */
  title?: string;
  /** The tool changes nothing. Default false. */
  readOnlyHint?: boolean;
  /** The tool may delete or overwrite (when not read-only). Default true. */
  destructiveHint?: boolean;
  /** Calling it again with the same arguments changes nothing more (when not read-only). Default false. */
  idempotentHint?: boolean;
  /** The tool reaches outside this server (the web, another service). Default true. */
  openWorldHint?: boolean;
}

/**
 * One message of a prompt (`PromptResult.messages`): who says it, and one content block.
 *
 * @example
 * ```ts
 * export const question: PromptMessage = { role: "user", content: text("What should I pack for Oslo?") };
 * ```
 */
export interface PromptMessage {
  /** `user` for what the user says; `assistant` for what the model said before. */
  role: "user" | "assistant";
  /** The message's one block. */
  content: ContentBlock;
}

/**
 * `ttlMs` / `cacheScope` (SEP-2549): how long and for whom a client may cache a result. A resource's `cache`
 * says it for its reads: `ttlMs` in milliseconds (0: not cached), `cacheScope` `"public"` (any cache, any caller) or
 * `"private"` (this caller only).
 *
 * @example
 * ```ts
 * export const hourly: CacheHint = { ttlMs: 3_600_000, cacheScope: "public" };
 * ```
 */
export interface CacheHint {
  ttlMs: number;
  cacheScope: "public" | "private";
}
