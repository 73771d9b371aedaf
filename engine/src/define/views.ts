/**
 * @module define/views
 * MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865): a tool names an interactive HTML view, a `ui://` resource the
 * host renders in a sandboxed iframe. `defineView` declares one; its HTML is a Workers static asset, read through
 * the ASSETS binding only when `resources/read` asks for it (never at startup, never in the Worker bundle).
 *
 * Offered only to a request that declares the extension (`capabilities.extensions["io.modelcontextprotocol/ui"]`,
 * per request on 2026-07-28, at `initialize` on 2025 revisions) on a Worker with the ASSETS binding: every other
 * client gets exactly the answers it got before views existed (no `_meta.ui`, no `ui://` resource, no extension).
 */
import { isObject } from "../wire/envelope";
import type { ClientCapabilities, JsonObject, ResourceContents } from "../wire/types";
import type { Resource, ResourceDefinition } from "./resources";

export const UI_EXTENSION = "io.modelcontextprotocol/ui";

/** The binding views are read through: Workers static assets (wrangler.toml `[assets]`). */
export interface AssetBindings {
  ASSETS?: Fetcher;
}

export const assetsOf = (env: object) => (env as AssetBindings).ASSETS;
export const VIEW_MIME_TYPE = "text/html;profile=mcp-app";

/**
 * Origins the view may reach, as CSP source lists: the host builds the iframe's Content Security Policy from them.
 * Default: none at all, which is right for a view that reaches the server only through the host (`callServerTool`).
 * Sent as the view's `_meta.ui.csp` only when declared.
 *
 * @example
 * ```ts
 * export const tileCsp: ViewCsp = { connectDomains: ["https://api.weather.example"], resourceDomains: ["https://tiles.example"] };
 * ```
 */
export interface ViewCsp {
  /** fetch/XHR/WebSocket (`connect-src`). */
  connectDomains?: string[];
  /** Images, scripts, styles, fonts, media. */
  resourceDomains?: string[];
  /** Nested iframes (`frame-src`). */
  frameDomains?: string[];
  /** `base-uri`. */
  baseUriDomains?: string[];
}

/**
 * Browser features the view asks the host to allow in its iframe, each as `{}`. Default: none. Sent as the
 * view's `_meta.ui.permissions` only when declared; the host decides whether to grant them.
 *
 * @example
 * ```ts
 * export const clipboardOnly: ViewPermissions = { clipboardWrite: {} };
 * ```
 */
export interface ViewPermissions {
  /** The camera. */
  camera?: Record<string, never>;
  /** The microphone. */
  microphone?: Record<string, never>;
  /** The user's location. */
  geolocation?: Record<string, never>;
  /** Writing to the clipboard. */
  clipboardWrite?: Record<string, never>;
}

/**
 * Everything `defineView` takes: the view's `ui://` URI, its name, the path of its built HTML among the Worker's
 * static assets, and what the host should allow it (CSP origins, browser permissions, a border).
 *
 * @example
 * ```ts
 * export const mapDefinition: ViewDefinition = { uri: "ui://weather/map", name: "map", asset: "/views/map.html" };
 * export const mapView: View = defineView(mapDefinition);
 * ```
 */
export interface ViewDefinition {
  /** The view's `ui://` URI, named by the tools that show it. */
  uri: `ui://${string}`;
  /** A short name, listed with the resource. */
  name: string;
  /** A name for people. */
  title?: string;
  /** What the view shows. */
  description?: string;
  /** Path of the built HTML in the static assets, e.g. `/views/notebook.html` (one self-contained file). */
  asset: string;
  /** Origins the view may reach. Default: none. */
  csp?: ViewCsp;
  /** Browser features the view asks for. Default: none. */
  permissions?: ViewPermissions;
  /** Whether the host should draw a border around the view. */
  prefersBorder?: boolean;
}

/**
 * A declared view, as `defineView` returns it and `ToolDefinition.view` takes it: a `ui://` resource, marked so
 * that listing and reading offer it only where it works (a client that declared the extension, a Worker with the
 * ASSETS binding).
 *
 * @example
 * ```ts
 * export function showDashboard(view: View): Tool {
 *   return defineTool({
 *     name: "show_dashboard",
 *     description: "Show the weather dashboard.",
 *     input: z.strictObject({}),
 *     view,
 *     handler: () => ({ content: [text("Clear skies in all three cities.")] }),
 *   });
 * }
 * ```
 */
export type View = ResourceDefinition & { readonly view: ViewDefinition };

/** Whether these capabilities declare the extension with HTML views (`mimeTypes`, when given, must include ours). */
export function declaresUi(capabilities: ClientCapabilities): boolean {
  const extensions = (capabilities as JsonObject).extensions;
  const ui = isObject(extensions) ? extensions[UI_EXTENSION] : undefined;
  if (!isObject(ui)) return false;
  return !Array.isArray(ui.mimeTypes) || ui.mimeTypes.includes(VIEW_MIME_TYPE);
}

/** Whether views are offered to this request: the Worker can read them, and the client declared it renders them. */
export function viewsOffered(env: object, capabilities: ClientCapabilities): boolean {
  return assetsOf(env) !== undefined && declaresUi(capabilities);
}

export const isView = (resource: Resource): resource is View => "view" in resource;

/** The `_meta` a tool carries when it has a view: `ui.resourceUri`, and the flat key hosts of 2025 still read. */
export function toolViewMeta(view: View): JsonObject {
  return { ui: { resourceUri: view.uri }, "ui/resourceUri": view.uri };
}

/**
 * Declares an interactive view (MCP Apps, `io.modelcontextprotocol/ui`): HTML a host renders in a sandboxed iframe
 * next to a tool's result. Name it as `view` on the tools that show it (the server then serves it as a resource);
 * its HTML is a Workers static asset, read through the ASSETS binding only when a host reads the view. Clients that
 * did not declare the extension see nothing of it, so keep the tool's result useful as text.
 *
 * @param definition - The view: `uri` (`ui://...`), `name`, `asset` (a path starting with `/`), and optionally
 *   `title`, `description`, `csp`, `permissions`, `prefersBorder`.
 * @returns The view, for `ToolDefinition.view` (and, if you like, `ServerDefinition.resources`).
 * @throws When `uri` does not start with `ui://` or `asset` does not start with `/`.
 *
 * @example
 * ```ts
 * export const dashboard = defineView({
 *   uri: "ui://weather/dashboard",
 *   name: "dashboard",
 *   title: "Weather dashboard",
 *   asset: "/views/dashboard.html",
 *   csp: { connectDomains: ["https://api.weather.example"] },
 *   prefersBorder: true,
 * });
 * ```
 */
export function defineView(definition: ViewDefinition): View {
  if (!definition.uri.startsWith("ui://")) throw new Error(`View "${definition.name}": uri must start with ui://`);
  if (!definition.asset.startsWith("/")) throw new Error(`View "${definition.name}": asset must be a path starting with /`);
  const meta = { ui: uiMeta(definition) };
  const { uri, name, title, description } = definition;
  return {
    view: definition,
    uri,
    name,
    ...(title && { title }),
    ...(description && { description }),
    mimeType: VIEW_MIME_TYPE,
    _meta: meta,
    // Why not cached by default: a new deployment changes the asset, and hosts re-read a view per render anyway.
    async read(ctx): Promise<ResourceContents[]> {
      // Listing and reading check the same thing (server/server.ts); this also covers a direct read by a client that
      // did not declare the extension: it finds nothing, as before views existed.
      if (!viewsOffered(ctx.env, ctx.client.capabilities)) return [];
      const html = await (await fetchAsset(assetsOf(ctx.env)!, definition.asset)).text();
      return [{ uri, mimeType: VIEW_MIME_TYPE, text: html, _meta: meta }];
    },
  } as View;
}

/** The resource's `_meta.ui`: CSP domain lists, permissions and border preference, only those declared. */
function uiMeta({ csp, permissions, prefersBorder }: ViewDefinition): JsonObject {
  return {
    ...(csp && { csp: csp as JsonObject }),
    ...(permissions && { permissions: permissions as JsonObject }),
    ...(prefersBorder !== undefined && { prefersBorder }),
  };
}

/**
 * A static asset (a view's HTML, a skill's file). Why the fixed origin: the assets binding serves by path only; any
 * host works. A missing asset is a deployment bug (it was not built), reported loudly rather than served as empty.
 */
export async function fetchAsset(assets: Fetcher, path: string): Promise<Response> {
  const response = await assets.fetch(new Request(`https://assets.invalid${path}`));
  if (!response.ok)
    throw new Error(
      `Asset ${path} answered HTTP ${response.status}: build the assets (wrangler.toml's [build], which wrangler dev and deploy run)`,
    );
  return response;
}
