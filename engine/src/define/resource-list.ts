/**
 * @module define/resource-list
 * `resources/list` when templates list concrete resources for the caller (`list`): the fixed resources first,
 * then each listing template's resources in declaration order, paged.
 *
 * A page takes up to PAGE_SIZE fixed resources, then, while it has room, asks each following template once; when a
 * template has more (it returned `nextCursor`), the page ends there. So a page holds at most PAGE_SIZE - 1 entries
 * plus one page of each template, and a request calls each template at most once. The cursor says where the next
 * page starts: an offset into the fixed resources (`f`), or a template by its URI template (`t`) with that
 * template's own cursor (`c`). It is sealed and bound to the caller (pagination.ts), so a template gets back only
 * a cursor it issued, from the caller it issued it to.
 *
 * Such a list depends on the caller and changes with the caller's own writes, so every page is private and not
 * cached (`ttlMs: 0`): a client that does not listen for `list_changed` would otherwise show its own new note
 * missing for LIST_TTL_MS.
 */

import { handlerContext } from "../run/context";
import { runUntilEnd } from "../run/end";
import { type RequestScope, requestChannel } from "../run/request";
import { invalidParams } from "../wire/errors";
import type { JsonObject } from "../wire/types";
import { openCursor, PAGE_SIZE, sealCursor } from "./pagination";
import { NOT_CACHED, type ResourceDefinition, type ResourceIndex } from "./resources";

/** Where a page starts, as sealed in the cursor. */
type Position = { f: number } | { t: string; c?: string };

export async function listResources(
  index: ResourceIndex,
  params: JsonObject,
  scope: RequestScope,
  /** Hides fixed resources from this caller (views it is not offered). */
  visible?: (resource: ResourceDefinition) => boolean,
  /** Listed after the fixed resources, as if they were some (each skill's SKILL.md). */
  extra: readonly JsonObject[] = [],
): Promise<JsonObject> {
  const fixed = [...index.fixed.descriptions(visible), ...extra];
  const templates = index.listing;
  const start =
    params.cursor === undefined
      ? { f: 0 }
      : positionIn(index, fixed.length, await openCursor(scope.config, scope.principal.id, params.cursor));
  const resources: JsonObject[] = [];
  const finish = async (next?: Position) => ({
    resources,
    ...(next && { nextCursor: await sealCursor(scope.config, scope.principal.id, next) }),
    ...NOT_CACHED,
  });

  let first = 0;
  let cursor: string | undefined;
  if ("f" in start) {
    resources.push(...fixed.slice(start.f, start.f + PAGE_SIZE));
    if (start.f + PAGE_SIZE < fixed.length) return finish({ f: start.f + PAGE_SIZE });
  } else {
    first = templates.findIndex((template) => template.uriTemplate === start.t);
    cursor = start.c;
  }
  // The templates' listings run as one run: it cannot ask, and ends early only when cancelled (then no one reads).
  const ended = await runUntilEnd(async (end): Promise<Position | undefined> => {
    const ctx = handlerContext(requestChannel(scope, end));
    for (let at = first; at < templates.length; at++) {
      const template = templates[at]!;
      if (resources.length >= PAGE_SIZE) return { t: template.uriTemplate };
      const page = await template.list!(ctx, at === first ? cursor : undefined);
      resources.push(...(page.resources as unknown as JsonObject[]));
      if (page.nextCursor !== undefined) return { t: template.uriTemplate, c: page.nextCursor };
    }
    return undefined;
  });
  return finish(ended.kind === "done" ? ended.value : undefined);
}

/**
 * The position in a verified cursor, checked against this deployment: the cursor is ours, but a deployment since
 * may have fewer fixed resources or no longer list that template. Such a cursor is -32602; the client starts over.
 */
function positionIn(index: ResourceIndex, fixedCount: number, body: unknown): Position {
  const { f, t, c } = (typeof body === "object" && body !== null ? body : {}) as { f?: unknown; t?: unknown; c?: unknown };
  if (typeof f === "number" && Number.isInteger(f) && f > 0 && f < fixedCount) return { f };
  const listed = typeof t === "string" && index.listing.some((template) => template.uriTemplate === t);
  if (listed && (c === undefined || typeof c === "string")) return { t, ...(c !== undefined && { c }) };
  throw invalidParams("Invalid cursor");
}
