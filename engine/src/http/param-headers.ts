/**
 * @module http/param-headers
 * Header-bound tool arguments (spec 2026-07-28, `x-mcp-header`): a tool marks an argument with
 * `.check(z.meta({ "x-mcp-header": "Region" }))`, and clients mirror its value in an `Mcp-Param-Region` header so
 * that gateways can route on it without parsing the body. The server checks the header against the body.
 *
 * The declaration rules are checked when the server starts: a token name, unique (ignoring case), on a string,
 * integer or boolean, reachable from the root through `properties` alone.
 */

import { isObject } from "../wire/envelope";
import { headerMismatch, truncate } from "../wire/errors";
import type { JsonObject } from "../wire/types";
import { readMcpHeader } from "./headers";

export interface HeaderBinding {
  /** Property names from the arguments object down to the value. */
  path: string[];
  /** The name after `Mcp-Param-`. */
  header: string;
  type: "string" | "integer" | "boolean";
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Keywords whose subschemas a header-bound value must not sit under. */
const NOT_REACHABLE = [
  "items",
  "prefixItems",
  "anyOf",
  "oneOf",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "additionalProperties",
  "$defs",
  "contains",
];

/** The header bindings of a tool's input schema; throws when a declaration breaks the rules (on first use; `npm test` derives them all). */
export function headerBindings(tool: string, schema: JsonObject): HeaderBinding[] {
  const bindings: HeaderBinding[] = [];
  const fail = (path: string[], problem: string) => {
    throw new Error(`Tool ${tool}: x-mcp-header on "${path.join(".") || "(root)"}" ${problem}`);
  };
  const walk = (node: unknown, path: string[], reachable: boolean): void => {
    if (!isObject(node)) return;
    const header = node["x-mcp-header"];
    if (header !== undefined) {
      if (!reachable) fail(path, "must be reachable from the root through properties only");
      if (typeof header !== "string" || !TOKEN.test(header)) fail(path, "must be a non-empty HTTP token");
      if (!["string", "integer", "boolean"].includes(String(node.type))) fail(path, "may only mark a string, integer or boolean");
      if (bindings.some((binding) => binding.header.toLowerCase() === String(header).toLowerCase())) fail(path, `repeats "${header}"`);
      bindings.push({ path, header: header as string, type: node.type as HeaderBinding["type"] });
    }
    if (isObject(node.properties)) for (const [name, child] of Object.entries(node.properties)) walk(child, [...path, name], reachable);
    for (const keyword of NOT_REACHABLE) {
      const child = node[keyword];
      for (const sub of Array.isArray(child) ? child : isObject(child) && keyword === "$defs" ? Object.values(child) : [child])
        walk(sub, path, false);
    }
  };
  walk(schema, [], true);
  return bindings;
}

/** Throws -32020 when a bound argument's `Mcp-Param-*` header is missing or differs from the body. */
export function checkParamHeaders(request: Request, bindings: HeaderBinding[], args: unknown, maxLength: number): void {
  for (const binding of bindings) {
    const value = binding.path.reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), args);
    // Absent or null arguments have no header to check.
    if (value === undefined || value === null) continue;
    const name = `Mcp-Param-${binding.header}`;
    const header = readMcpHeader(request, name, maxLength);
    if (header === undefined) throw headerMismatch(`Header mismatch: missing required ${name} header`);
    if (!matches(binding.type, header, value)) {
      throw headerMismatch(
        `Header mismatch: ${name} header value '${truncate(header, 100)}' does not match body value '${truncate(String(value), 100)}'`,
      );
    }
  }
}

/** A decimal number: optional minus, digits, optional fraction and exponent (no hex, no `Infinity`, no spaces). */
const DECIMAL = /^-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

function matches(type: HeaderBinding["type"], header: string, value: unknown): boolean {
  // Why numerically: the spec asks integer values to be compared as numbers, so `42.0` and `42` are the same value.
  if (type === "integer") return DECIMAL.test(header) && Number(header) === value;
  if (type === "boolean") return header === String(value) && typeof value === "boolean";
  return header === value;
}
