/**
 * @module views
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

/** Origins the view may reach, as CSP source lists (the host builds the iframe's CSP from them; default: none). */
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

/** Browser features the view asks the host to allow in its iframe (default: none). */
export interface ViewPermissions {
  camera?: Record<string, never>;
  microphone?: Record<string, never>;
  geolocation?: Record<string, never>;
  clipboardWrite?: Record<string, never>;
}

export interface ViewDefinition {
  /** The view's `ui://` URI, named by the tools that show it. */
  uri: `ui://${string}`;
  name: string;
  title?: string;
  description?: string;
  /** Path of the built HTML in the static assets, e.g. `/views/notebook.html` (one self-contained file). */
  asset: string;
  csp?: ViewCsp;
  permissions?: ViewPermissions;
  /** Whether the host should draw a border around the view. */
  prefersBorder?: boolean;
}

/** A view as the engine holds it: a resource, marked so listing and reading can offer it only where it works. */
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

/** Declares a view. Add it to the server's `resources`, and name it as `view` on the tools that show it. */
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
      // Listing and reading check the same thing (server.ts); this also covers a direct read by a client that
      // did not declare the extension: it finds nothing, as before views existed.
      if (!viewsOffered(ctx.env, ctx.client.capabilities)) return [];
      const html = await readAsset(assetsOf(ctx.env)!, definition.asset);
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
 * The asset's text. Why the fixed origin: the assets binding serves by path only; any host works. A missing asset
 * is a deployment bug (the view was not built), reported loudly rather than served as an empty view.
 */
async function readAsset(assets: Fetcher, path: string): Promise<string> {
  const response = await assets.fetch(new Request(`https://assets.invalid${path}`));
  if (!response.ok) throw new Error(`View asset ${path} answered HTTP ${response.status}: run npm run build`);
  return response.text();
}
