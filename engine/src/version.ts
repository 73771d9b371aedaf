/**
 * @module version
 * The engine's own version. A fork carries the engine as code; this says which release it is (see
 * `src/mcp/CHANGELOG.md`, and docs/development.md, "Updating the engine").
 */
/**
 * The engine's release, as `src/mcp/CHANGELOG.md` names it: which engine a fork carries as code. `npm run
 * engine:update` reports the change from one release to the next.
 *
 * @example
 * ```ts
 * export const serverInfo = { name: "weather", version: `1.0.0+engine.${ENGINE_VERSION}` };
 * ```
 * @see src/mcp/CHANGELOG.md
 */
export const ENGINE_VERSION = "1.4.1";
