/**
 * @module legacy/shapes
 * Turns a 2026-07-28 result into the shape a 2025 revision expects: no `resultType`, `ttlMs`, `cacheScope` or
 * result `_meta` identity, and for older revisions none of the fields they did not know yet.
 */
import { isObject } from "../wire/envelope";
import type { JsonObject, LegacyVersion } from "../wire/types";
import { META } from "../wire/types";

/** Fields each listed item type gained after a revision: `title` and `outputSchema` in 2025-06-18, `icons` in 2025-11-25. */
function newerFields(version: LegacyVersion): string[] {
  if (version === "2025-03-26") return ["title", "outputSchema", "icons"];
  if (version === "2025-06-18") return ["icons"];
  return [];
}

const LISTS: Record<string, string> = {
  "tools/list": "tools",
  "prompts/list": "prompts",
  "resources/list": "resources",
  "resources/templates/list": "resourceTemplates",
};

export function legacyResult(method: string, result: JsonObject, version: LegacyVersion): JsonObject {
  const { resultType: _type, ttlMs: _ttl, cacheScope: _scope, _meta, ...shaped } = result;
  const meta = isObject(_meta) ? { ..._meta } : {};
  delete meta[META.serverInfo];
  if (Object.keys(meta).length > 0) shaped._meta = meta;

  const drop = newerFields(version);
  const list = LISTS[method];
  if (list && drop.length > 0) {
    shaped[list] = (shaped[list] as JsonObject[]).map((item) =>
      Object.fromEntries(Object.entries(item).filter(([key]) => !drop.includes(key))),
    );
  }
  if (version === "2025-03-26") {
    // 2025-03-26 had neither structured tool output nor resource links.
    if (method === "tools/call") {
      delete shaped.structuredContent;
      shaped.content = (shaped.content as JsonObject[]).map(withoutResourceLink);
    }
    if (method === "prompts/get") {
      shaped.messages = (shaped.messages as JsonObject[]).map((message) => ({
        ...message,
        content: withoutResourceLink(message.content as JsonObject),
      }));
    }
  }
  return shaped;
}

function withoutResourceLink(block: JsonObject): JsonObject {
  if (block.type !== "resource_link") return block;
  return { type: "text", text: `${String(block.title ?? block.name)}: ${String(block.uri)}` };
}
