/**
 * @module define/registry
 * One registry for everything a server lists (tools, prompts, resources, resource templates): names are unique,
 * each entry is described for its list once per isolate, and lists are paged with opaque cursors.
 */

import { isObject } from "../wire/envelope";
import { invalidParams, truncate } from "../wire/errors";
import type { JsonObject } from "../wire/types";
import { paginate } from "./pagination";

/**
 * The entry a `tools/call` or `prompts/get` names, with its arguments as sent, or -32602: a name that is not a string
 * or names no entry (quoted cut to 128 characters, as it is the caller's text), arguments that are not an object.
 */
export function namedCall<T>(registry: Registry<T>, params: JsonObject, kind: "tool" | "prompt"): { item: T; args: JsonObject } {
  const name = params.name;
  if (typeof name !== "string") throw invalidParams('Invalid params: "name" must be a string');
  const item = registry.get(name);
  if (!item) throw invalidParams(`Unknown ${kind}: ${truncate(name, 128)}`);
  // Why null is refused, not read as absent: the schema makes `arguments` an optional object, never null, and the
  // official SDK answers it -32602; a client that sends null has a bug it should hear of, not a tool run on {}.
  const args = params.arguments === undefined ? {} : params.arguments;
  if (!isObject(args)) throw invalidParams('Invalid params: "arguments" must be an object');
  return { item, args };
}

export class Registry<T> {
  private readonly entries = new Map<string, T>();
  private listing?: { item: T; description: JsonObject }[];

  constructor(
    /** Used in error messages: "Tool", "Prompt", "Resource", ... */
    kind: string,
    items: readonly T[],
    /** The key that must be unique: a name, a URI or a URI template. */
    keyOf: (item: T) => string,
    /** The item's list entry; called once per item, on the first list (not at startup: schemas convert lazily). */
    private readonly describe: (item: T) => JsonObject,
  ) {
    for (const item of items) {
      const key = keyOf(item);
      if (this.entries.has(key)) throw new Error(`${kind} "${key}" is declared twice`);
      this.entries.set(key, item);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): T | undefined {
    return this.entries.get(key);
  }

  values(): IterableIterator<T> {
    return this.entries.values();
  }

  /** Every list entry (or those `visible`), in declaration order. */
  descriptions(visible?: (item: T) => boolean): JsonObject[] {
    const listing = this.described();
    return (visible ? listing.filter(({ item }) => visible(item)) : listing).map(({ description }) => description);
  }

  /**
   * Which entries `visible` lets a caller see, as a key: `*` for all of them (no filter), else one 0 or 1 per entry in
   * declaration order. Two callers with the same key get the same list.
   */
  visibility(visible?: (item: T) => boolean): string {
    if (!visible) return "*";
    let key = "";
    for (const { item } of this.described()) key += visible(item) ? "1" : "0";
    return key;
  }

  /** One page of list entries; `visible` hides items from a caller (tools it lacks the scopes for). */
  page(cursor: unknown, visible?: (item: T) => boolean): { page: JsonObject[]; nextCursor?: string } {
    const listing = this.described();
    const shown = visible ? listing.filter(({ item }) => visible(item)) : listing;
    const { page, nextCursor } = paginate(shown, cursor);
    return { page: page.map(({ description }) => description), ...(nextCursor && { nextCursor }) };
  }

  private described(): { item: T; description: JsonObject }[] {
    this.listing ??= [...this.entries.values()].map((item) => ({ item, description: this.describe(item) }));
    return this.listing;
  }
}
