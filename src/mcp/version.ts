/**
 * @module version
 * The engine's own version. A fork carries the engine as code; this says which release it is (see
 * `src/mcp/CHANGELOG.md`, and docs/development.md, "Updating the engine").
 */
export const ENGINE_VERSION = "1.3.0";
