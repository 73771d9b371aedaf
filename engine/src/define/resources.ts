/**
 * @module define/resources
 * `defineResource` (a fixed URI) and `defineResourceTemplate` (an RFC 6570 URI template, optionally listing the
 * caller's concrete resources), and the `resources/templates/list` and `resources/read` methods
 * (`resources/list` of listing templates is in resource-list.ts).
 */

import type { InputApi } from "../ask/questions";
import type { HandlerContext } from "../run/context";
import { type Asking, answerOf } from "../run/request";
import { invalidParams, ResourceNotFound, truncate } from "../wire/errors";
import type { Annotations, CacheHint, Icon, JsonObject, ResourceContents, ResourceLink } from "../wire/types";
import { Registry } from "./registry";
import { compileUriTemplate, type UriTemplate } from "./uri-template";

/**
 * The `ctx` a resource's `read` receives: the same context a tool's handler gets (`env`, `principal`, `signal`...),
 * input API included, so a read may ask the user (`ctx.ask`) before it answers. A read that continued an earlier
 * round is never cached, whatever its `cache` says.
 *
 * @example
 * ```ts
 * export async function readOwnFile(ctx: ResourceContext, uri: string): Promise<ResourceContents[]> {
 *   const response = await fetch(`https://files.example/${encodeURIComponent(ctx.principal.id)}`, { signal: ctx.signal });
 *   return [{ uri, mimeType: "text/plain", text: await response.text() }];
 * }
 * ```
 */
export type ResourceContext = HandlerContext & InputApi;

/**
 * A completion callback, for a prompt argument (`PromptDefinition.complete`) or a template variable
 * (`ResourceTemplateDefinition.complete`): given what the user typed so far, and the other arguments, it suggests
 * values. The client is sent the first 100, with the total and whether there are more. Its `ctx` cannot ask the
 * user anything (`ctx.ask` throws).
 *
 * @param value - What the user typed so far (maybe `""`).
 * @param context - The other arguments, and the request's `ctx`.
 * @returns The suggestions, best first.
 *
 * @example
 * ```ts
 * export const completeColor: Completer = (value) => ["red", "green", "blue"].filter((color) => color.startsWith(value));
 * ```
 */
export type Completer = (value: string, context: CompletionContext) => Promise<string[]> | string[];

/**
 * The second argument of a `Completer`: the arguments the user has filled in so far, and the request's context.
 *
 * @example
 * ```ts
 * export const CITIES_BY_COUNTRY: Record<string, string[]> = { no: ["bergen", "oslo"], pe: ["cusco", "lima"] };
 * export function completeCity(value: string, { arguments: args }: CompletionContext): string[] {
 *   return (CITIES_BY_COUNTRY[args.country ?? ""] ?? []).filter((city) => city.startsWith(value));
 * }
 * ```
 */
export interface CompletionContext {
  /** The other arguments (or template variables) the client sent as context, by name: for example a chosen country. */
  arguments: Record<string, string>;
  /** The request's context (the caller, `env`, ...); without the input API. */
  ctx: HandlerContext;
}

interface ResourceCommon {
  /** A short name, listed; unique names help a client tell resources apart. */
  name: string;
  /** A name for people (clients show it instead of `name`). */
  title?: string;
  /** What the resource holds, for the model and the user. */
  description?: string;
  /** The media type of its contents, such as `text/markdown`. */
  mimeType?: string;
  /** Icons clients may show for the resource. */
  icons?: Icon[];
  /** Who the resource is for, how important it is, when it last changed. */
  annotations?: Annotations;
  /** How long clients may cache a read, and for whom. Default: not cached (0, private). */
  cache?: CacheHint;
  /** Metadata for the client, listed with the resource. */
  _meta?: JsonObject;
}

/**
 * Everything `defineResource` takes: a resource at one fixed URI, listed in `resources/list`, and its `read`. Name it
 * to write a function that builds resource declarations.
 *
 * @example
 * ```ts
 * export function markdownPage(uri: string, name: string, markdown: string): ResourceDefinition {
 *   return { uri, name, mimeType: "text/markdown", read: () => [{ uri, mimeType: "text/markdown", text: markdown }] };
 * }
 * ```
 */
export interface ResourceDefinition extends ResourceCommon {
  /** The resource's URI, such as `docs://readme`; unique within the server. */
  uri: string;
  /** Its size in bytes, when known, for a client deciding whether to read it. */
  size?: number;
  /** Reads the contents (one entry, or several for a resource made of parts). An empty list reads as "not found". */
  read: (ctx: ResourceContext) => Promise<ResourceContents[]> | ResourceContents[];
}

/**
 * One concrete resource as `resources/list` shows it: what a template's `list` returns in `ResourceListPage`, its
 * `uri` and `name` and optionally `title`, `description`, `mimeType`, `size`, `icons`, `annotations`.
 *
 * @example
 * ```ts
 * export function reportPage(ids: string[], cursor: string | undefined): ResourceListPage {
 *   const start = Number(cursor ?? "0");
 *   const resources: ListedResource[] = ids.slice(start, start + 50).map((id) => ({ uri: `report://${id}`, name: `Report ${id}` }));
 *   return start + 50 < ids.length ? { resources, nextCursor: String(start + 50) } : { resources };
 * }
 * ```
 */
export type ListedResource = ResourceLink;

/**
 * One page of a template's listing, as its `list` returns it; `nextCursor` (a string of your choosing) asks to be
 * called again with it for the next page. The engine seals the cursor and binds it to the caller, so it comes back
 * unaltered and only from the caller it was issued to.
 *
 * @example
 * ```ts
 * export function reportPage(ids: string[], cursor: string | undefined): ResourceListPage {
 *   const start = Number(cursor ?? "0");
 *   const resources: ListedResource[] = ids.slice(start, start + 50).map((id) => ({ uri: `report://${id}`, name: `Report ${id}` }));
 *   return start + 50 < ids.length ? { resources, nextCursor: String(start + 50) } : { resources };
 * }
 * ```
 */
export interface ResourceListPage {
  resources: ListedResource[];
  nextCursor?: string;
}

/**
 * Everything `defineResourceTemplate` takes: a family of resources under an RFC 6570 URI template (`{name}`
 * variables), its `read`, and optionally completion for its variables, which variables are handles, and a listing of
 * the caller's concrete resources. Name it to write a function that builds template declarations.
 *
 * @example
 * ```ts
 * export function jsonFamily(name: string, load: (id: string) => Promise<unknown>): ResourceTemplateDefinition {
 *   return {
 *     uriTemplate: `${name}://{id}`,
 *     name,
 *     mimeType: "application/json",
 *     async read(uri, { id }) {
 *       const value = id === undefined ? undefined : await load(id);
 *       return value === undefined ? undefined : [{ uri, mimeType: "application/json", text: JSON.stringify(value) }];
 *     },
 *   };
 * }
 * ```
 */
export interface ResourceTemplateDefinition extends ResourceCommon {
  /** RFC 6570 level 1 template, e.g. `note://{notebook_id}/{note_id}`. */
  uriTemplate: string;
  /** Reads one resource, or returns `undefined` when none exists at that URI. */
  read: (
    uri: string,
    variables: Record<string, string>,
    ctx: ResourceContext,
  ) => Promise<ResourceContents[] | undefined> | ResourceContents[] | undefined;
  /** Completion for template variables, by variable name. */
  complete?: Record<string, Completer>;
  /**
   * The variables that are handles: capabilities a caller must already hold, such as an unguessable `notebook_id`
   * (with authorization off every caller is the same principal, so holding the handle is all that sets them apart).
   * A `subscriptions/listen` (or 2025 `resources/subscribe`) URI then matches this template's sub-resources only if
   * it names every handle: `note://nb_1` hears about `note://nb_1/n_2`, `note://` about no note at all. Default:
   * every variable. `[]` for a public family of resources, where a prefix such as `docs://` may cover them all.
   */
  handles?: readonly string[];
  /**
   * The concrete resources of this template that the caller may see, listed in `resources/list` after the fixed
   * resources. Called with `undefined` for the first page, then with the `nextCursor` it returned. The engine seals
   * that cursor and binds it to the caller, so it comes back unaltered and only from the caller it was issued to.
   * A template that lists makes `resources/list` private and uncached (`ttlMs: 0`): it depends on the caller.
   * With authorization off every caller is the same principal: list nothing that belongs to one caller then.
   */
  list?: (ctx: HandlerContext, cursor: string | undefined) => Promise<ResourceListPage> | ResourceListPage;
}

/**
 * A declared resource or resource template, as `defineResource`, `defineResourceTemplate` and `defineView` return
 * it and `ServerDefinition.resources` takes it.
 *
 * @example
 * ```ts
 * export const resources: Resource[] = [
 *   defineResource({ uri: "docs://install", name: "install", read: () => [{ uri: "docs://install", text: "npm install" }] }),
 *   defineResource({ uri: "docs://usage", name: "usage", read: () => [{ uri: "docs://usage", text: "npm run dev" }] }),
 * ];
 * ```
 */
export type Resource = ResourceDefinition | ResourceTemplateDefinition;

/**
 * Declares a resource at one fixed URI: listed in `resources/list`, read with `resources/read`. Without `cache`, a
 * read is not cached (`ttlMs: 0`, private); a public document that changes only with a deploy can say so.
 *
 * @param definition - The resource: `uri`, `name`, `read`, and optionally `title`, `description`, `mimeType`,
 *   `size`, `icons`, `annotations`, `cache`, `_meta`.
 * @returns The resource, for `ServerDefinition.resources`.
 *
 * @example
 * ```ts
 * export const readme = defineResource({
 *   uri: "docs://readme",
 *   name: "readme",
 *   title: "Read me",
 *   mimeType: "text/markdown",
 *   cache: { ttlMs: 3_600_000, cacheScope: "public" },
 *   read: () => [{ uri: "docs://readme", mimeType: "text/markdown", text: "# Weather server\n\nAsk for a forecast." }],
 * });
 * ```
 */
export const defineResource = (definition: ResourceDefinition): Resource => definition;

/**
 * Declares a family of resources under a URI template such as `note://{notebook_id}/{note_id}` (RFC 6570 level 1):
 * listed in `resources/templates/list`; a `resources/read` of a URI that matches it calls `read` with the
 * variables, and `undefined` from `read` is "Resource not found" (-32602 with the URI; -32002 on 2025 revisions).
 * `complete` suggests variable values, `list` lists the caller's concrete resources in `resources/list`, and
 * `handles` says which variables a subscription must name to hear about the family's resources.
 *
 * @param definition - The template: `uriTemplate`, `name`, `read`, and optionally `complete`, `handles`, `list`,
 *   `title`, `description`, `mimeType`, `icons`, `annotations`, `cache`, `_meta`.
 * @returns The template, for `ServerDefinition.resources`.
 *
 * @example
 * ```ts
 * export const CITIES = ["lima", "oslo", "paris"];
 * export const cityWeather = defineResourceTemplate({
 *   uriTemplate: "weather://{city}",
 *   name: "city-weather",
 *   description: "Current weather in one city, as JSON.",
 *   mimeType: "application/json",
 *   // Public data: a subscription to `weather://` hears about every city.
 *   handles: [],
 *   read: (uri, { city }) =>
 *     city && CITIES.includes(city) ? [{ uri, mimeType: "application/json", text: JSON.stringify({ city, sky: "clear" }) }] : undefined,
 *   complete: { city: (value) => CITIES.filter((city) => city.startsWith(value)) },
 *   list: () => ({ resources: CITIES.map((city) => ({ uri: `weather://${city}`, name: `Weather in ${city}` })) }),
 * });
 * ```
 */
export const defineResourceTemplate = (definition: ResourceTemplateDefinition): Resource => definition;

export const isTemplate = (resource: Resource): resource is ResourceTemplateDefinition => "uriTemplate" in resource;

export const NOT_CACHED: CacheHint = { ttlMs: 0, cacheScope: "private" };

export function describeResource(resource: ResourceDefinition): JsonObject {
  // `view` is the declaration of an interactive view (views.ts): the engine's, never listed.
  const { read: _read, cache: _cache, view: _view, ...listing } = resource as ResourceDefinition & { view?: unknown };
  return listing as unknown as JsonObject;
}

export function describeTemplate(template: ResourceTemplateDefinition): JsonObject {
  const { read: _read, cache: _cache, complete: _complete, list: _list, handles: _handles, ...listing } = template;
  return listing as unknown as JsonObject;
}

/** Resolves URIs to resources: exact URIs first, then templates in declaration order. */
export class ResourceIndex {
  readonly fixed: Registry<ResourceDefinition>;
  readonly templates: Registry<ResourceTemplateDefinition>;
  /** The templates that list concrete resources (`list`), in declaration order. */
  readonly listing: readonly ResourceTemplateDefinition[];
  private readonly matchers: { definition: ResourceTemplateDefinition; template: UriTemplate }[];

  constructor(resources: readonly Resource[]) {
    const templates = resources.filter(isTemplate);
    this.fixed = new Registry(
      "Resource",
      resources.filter((resource) => !isTemplate(resource)) as ResourceDefinition[],
      (resource) => resource.uri,
      describeResource,
    );
    this.templates = new Registry("Resource template", templates, (template) => template.uriTemplate, describeTemplate);
    this.listing = templates.filter((template) => template.list !== undefined);
    this.matchers = templates.map((definition) => ({
      definition,
      template: compileUriTemplate(definition.uriTemplate, definition.handles),
    }));
  }

  get size(): number {
    return this.fixed.size + this.templates.size;
  }

  hasCompletions(): boolean {
    return this.matchers.some(({ definition }) => definition.complete !== undefined);
  }

  /**
   * The part of `uri` a subscription must name to hear about it as a sub-resource (see `UriTemplate.handlePart`):
   * "" for a fixed resource (its URI is public), the handle part for a template's resource, and the whole URI for
   * one this server does not declare (only a subscription to exactly that URI covers it).
   */
  handleOf(uri: string): string {
    if (this.fixed.get(uri)) return "";
    for (const { template } of this.matchers) {
      const part = template.handlePart(uri);
      if (part !== undefined) return part;
    }
    return uri;
  }

  template(uriTemplate: string): ResourceTemplateDefinition | undefined {
    return this.templates.get(uriTemplate);
  }

  async read(params: JsonObject, asking: Asking): Promise<JsonObject> {
    const uri = params.uri;
    if (typeof uri !== "string") throw invalidParams('Invalid params: "uri" must be a string');
    const notFound = () => new ResourceNotFound(truncate(uri, 2048));
    const fixed = this.fixed.get(uri);
    const match = fixed ? undefined : this.match(uri);
    if (!fixed && !match) throw notFound();

    const cache = (fixed ?? match!.definition).cache ?? NOT_CACHED;
    const asked = await asking.run({ method: "resources/read", name: uri, args: {} }, params, async (ctx) =>
      fixed ? fixed.read(ctx) : match!.definition.read(uri, match!.variables, ctx),
    );
    if (asked.kind !== "done") return answerOf(asked);
    // Why: an empty `contents` would read as "exists but empty"; a missing resource is an error (SEP-2164).
    if (!asked.value || asked.value.length === 0) throw notFound();
    // Results of a multi round-trip retry MUST NOT be cached.
    return { contents: asked.value, ...(asked.retried ? NOT_CACHED : cache) };
  }

  private match(uri: string) {
    for (const { definition, template } of this.matchers) {
      const variables = template.match(uri);
      if (variables) return { definition, variables };
    }
    return undefined;
  }
}
