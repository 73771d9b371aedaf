/**
 * @module scopes
 * Scope hierarchies. The spec (2026-07-28, Authorization, Scope Challenge Handling): "Servers MUST account for scope
 * hierarchies, where a broader scope implies narrower ones, when deciding whether a token is sufficient". OAuth gives
 * scopes no structure, so the hierarchy is this server's rule, set by AUTH_SCOPE_HIERARCHY:
 * - `prefix` (the default): a scope implies every scope that extends it after a colon, so `notes` implies
 *   `notes:read` and `notes:read:own`. Never the other way: `notes:read` does not imply `notes`.
 * - `broader>narrower`: an explicit rule, for hierarchies names do not show (`notes:write>notes:read`).
 * - `none`: scopes must match exactly.
 * Rules chain with each other and with the prefix rule. Setting the variable replaces the default, so
 * `prefix` must be listed to keep it.
 */

export interface ScopeHierarchy {
  /** A scope implies every scope that extends it after a colon (`notes` implies `notes:read`). */
  readonly prefix: boolean;
  /** Explicit rules: holding `broader` (or anything implying it) implies `narrower`. */
  readonly rules: readonly (readonly [broader: string, narrower: string])[];
}

/** A scope-token of RFC 6749 §3.3, less `,` and `>`, which separate rules here. */
const SCOPE_TOKEN = /^[\x21\x23-\x2b\x2d-\x3d\x3f-\x5b\x5d-\x7e]+$/;

/** Parses AUTH_SCOPE_HIERARCHY (already split on commas); `problem` is set, naming the setting only, if malformed. */
export function parseScopeHierarchy(items: readonly string[]): { hierarchy: ScopeHierarchy; problem?: string } {
  const problem =
    'AUTH_SCOPE_HIERARCHY must be "none", or a comma-separated list of "prefix" and "broader>narrower" rules (two different scopes)';
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

/**
 * Whether holding `granted` satisfies a required scope, under the hierarchy: a predicate over required scopes,
 * built once per decision so a tool needing several scopes expands the grant once.
 */
export function scopeHolder(granted: readonly string[], hierarchy: ScopeHierarchy): (required: string) => boolean {
  const held = new Set(granted);
  const holds = (scope: string) => held.has(scope) || (hierarchy.prefix && broaderScopes(scope).some((broader) => held.has(broader)));
  // Explicit rules chain (a>b, b>c) and combine with the prefix rule: apply them until nothing new is implied.
  // Each pass adds at least one scope from a finite set of rules, so this ends.
  let grew = true;
  while (grew) {
    grew = false;
    for (const [broader, narrower] of hierarchy.rules) {
      if (!held.has(narrower) && holds(broader)) {
        held.add(narrower);
        grew = true;
      }
    }
  }
  return holds;
}

/** The scopes that imply `scope` by the prefix rule: `a:b:c` → `a`, `a:b`. */
function broaderScopes(scope: string): string[] {
  const parts = scope.split(":");
  return parts.slice(1).map((_, index) => parts.slice(0, index + 1).join(":"));
}
