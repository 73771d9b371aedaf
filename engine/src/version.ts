/**
 * @module version
 * The engine's own version, the `version` of its package.json (test/repo/package.test.ts keeps the two equal).
 */
/**
 * The release of the engine this Worker runs, as its package.json and CHANGELOG.md name it.
 *
 * @example
 * ```ts
 * export const serverInfo = { name: "weather", version: `1.0.0+engine.${ENGINE_VERSION}` };
 * ```
 * @see CHANGELOG.md
 */
export const ENGINE_VERSION = "3.1.1";
