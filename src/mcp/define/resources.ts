/**
 * @module resources
 * `defineResource` (a fixed URI) and `defineResourceTemplate` (an RFC 6570 URI template, optionally listing the
 * caller's concrete resources), and the `resources/templates/list` and `resources/read` methods
 * (`resources/list` of listing templates is in resource-list.ts).
 */

import { type HandlerContext, handlerContext } from "../handler/context";
import type { InputApi } from "../handler/questions";
import { type RequestScope, requestChannel } from "../handler/request";
import { invalidParams, ResourceNotFound, truncate } from "../wire/errors";
import type { Annotations, CacheHint, Icon, JsonObject, ResourceContents, ResourceLink } from "../wire/types";
import { Registry } from "./registry";
import { compileUriTemplate, type UriTemplate } from "./uri-template";

export type ResourceContext = HandlerContext & InputApi;

/** A completion callback: given what the user typed so far (and the other arguments), suggest values. */
export type Completer = (
  value: string,
  context: { arguments: Record<string, string>; ctx: HandlerContext },
) => Promise<string[]> | string[];

interface ResourceCommon {
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  icons?: Icon[];
  annotations?: Annotations;
  /** How long clients may cache a read, and for whom. Default: not cached (0, private). */
  cache?: CacheHint;
  _meta?: JsonObject;
}

export interface ResourceDefinition extends ResourceCommon {
  uri: string;
  size?: number;
  read: (ctx: ResourceContext) => Promise<ResourceContents[]> | ResourceContents[];
}

/** One concrete resource as `resources/list` shows it. */
export type ListedResource = ResourceLink;

/** One page of a template's listing; `nextCursor` (a string of your choosing) asks to be called again with it. */
export interface ResourceListPage {
  resources: ListedResource[];
  nextCursor?: string;
}

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

export type Resource = ResourceDefinition | ResourceTemplateDefinition;

export const defineResource = (definition: ResourceDefinition): Resource => definition;
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

  async read(params: JsonObject, scope: RequestScope): Promise<JsonObject> {
    const uri = params.uri;
    if (typeof uri !== "string") throw invalidParams('Invalid params: "uri" must be a string');
    const notFound = () => new ResourceNotFound(truncate(uri, 2048));
    const fixed = this.fixed.get(uri);
    const match = fixed ? undefined : this.match(uri);
    if (!fixed && !match) throw notFound();

    const cache = (fixed ?? match!.definition).cache ?? NOT_CACHED;
    const outcome = await scope.runWithInput({ method: "resources/read", name: uri, args: {} }, params, (input) => {
      const ctx = handlerContext(requestChannel(scope), input);
      return Promise.resolve(fixed ? fixed.read(ctx) : match!.definition.read(uri, match!.variables, ctx));
    });
    if (outcome.kind === "input_required") return outcome.result;
    // Why: an empty `contents` would read as "exists but empty"; a missing resource is an error (SEP-2164).
    if (!outcome.value || outcome.value.length === 0) throw notFound();
    // Results of a multi round-trip retry MUST NOT be cached.
    return { contents: outcome.value, ...(outcome.retried ? NOT_CACHED : cache) };
  }

  private match(uri: string) {
    for (const { definition, template } of this.matchers) {
      const variables = template.match(uri);
      if (variables) return { definition, variables };
    }
    return undefined;
  }
}
