/**
 * The engine's own suite, `npm test` in this folder: its tests inside workerd (vitest.workerd.config.ts) and its
 * checks of itself in Node (vitest.repo.config.ts). The template's `npm test` at the repository root runs both
 * projects beside the app's.
 */
import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";
import { EveryFileRan } from "./test/every-file-ran";

export default defineConfig({
  test: {
    // Much of the suite waits (hubs left idle until they hibernate, streams held open): more files than cores.
    maxWorkers: Math.max(5, availableParallelism()),
    // A file planned for the run that never ran (its project failed to start) fails the run, named in the summary
    // (test/every-file-ran.ts); first, so the summary counts it; then vitest's own (the default, or an agent's).
    reporters: [new EveryFileRan(), ...configDefaults.reporters],
    projects: ["vitest.workerd.config.ts", "vitest.repo.config.ts"],
  },
});
