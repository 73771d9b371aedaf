/**
 * @module auth/scopes
 * Scope hierarchies. The spec (2026-07-28, Authorization, Scope Challenge Handling): "Servers MUST account for scope
 * hierarchies, where a broader scope implies narrower ones, when deciding whether a token is sufficient". OAuth gives
 * scopes no structure, so the hierarchy is this server's rule (the `scopeHierarchy` option, parsed in
 * config/scopes.ts):
 * - `prefix` (the default): a scope implies every scope that extends it after a colon, so `notes` implies
 *   `notes:read` and `notes:read:own`. Never the other way: `notes:read` does not imply `notes`.
 * - `broader>narrower`: an explicit rule, for hierarchies names do not show (`notes:write>notes:read`).
 * - `none`: scopes must match exactly.
 * Rules chain with each other and with the prefix rule. Setting the option replaces the default, so `prefix` must
 * be listed to keep it.
 */
import type { ScopeHierarchy } from "../config/scopes";

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
