/**
 * The engine's own suite, `npm test` in this folder: its tests inside workerd (vitest.workerd.config.ts) and its
 * checks of itself in Node (vitest.repo.config.ts). The template's `npm test` at the repository root runs both
 * projects beside the app's.
 */
import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // Much of the suite waits (hubs left idle until they hibernate, streams held open): more files than cores.
    maxWorkers: Math.max(4, availableParallelism()),
    projects: ["vitest.workerd.config.ts", "vitest.repo.config.ts"],
  },
});
