/**
 * @module config/scopes
 * The `scopeHierarchy` option: which granted OAuth scopes imply which others (see auth/scopes.ts for how a grant is
 * checked against it).
 */

export interface ScopeHierarchy {
  /** A scope implies every scope that extends it after a colon (`notes` implies `notes:read`). */
  readonly prefix: boolean;
  /** Explicit rules: holding `broader` (or anything implying it) implies `narrower`. */
  readonly rules: readonly (readonly [broader: string, narrower: string])[];
}

/** A scope-token of RFC 6749 §3.3, less `,` and `>`, which separate rules here. */
const SCOPE_TOKEN = /^[\x21\x23-\x2b\x2d-\x3d\x3f-\x5b\x5d-\x7e]+$/;

/** Parses the `scopeHierarchy` option's rules; `problem` says what is wrong when they are malformed. */
export function parseScopeHierarchy(items: readonly string[]): { hierarchy: ScopeHierarchy; problem?: string } {
  const problem = 'must be ["none"], or a list of "prefix" and "broader>narrower" rules (two different scopes)';
  if (items.length === 1 && items[0] === "none") return { hierarchy: { prefix: false, rules: [] } };
  const rules: [string, string][] = [];
  let prefix = false;
  for (const item of items) {
    if (item === "prefix") {
      prefix = true;
      continue;
    }
    const sides = item.split(">");
    const [broader, narrower] = sides;
    if (sides.length !== 2 || !SCOPE_TOKEN.test(broader!) || !SCOPE_TOKEN.test(narrower!) || broader === narrower) {
      return { hierarchy: { prefix: false, rules: [] }, problem };
    }
    rules.push([broader!, narrower!]);
  }
  return { hierarchy: { prefix, rules } };
}
