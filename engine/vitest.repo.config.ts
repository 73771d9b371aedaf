/**
 * The engine's checks of itself in Node (its layers and public boundary, its documented API, its docs, the bench's
 * report, what its bundle holds): no Worker, no server. One of the two projects of the engine's suite.
 */
import { availableParallelism } from "node:os";
import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "engine-repo",
    // As many files at a time as the template's own projects run (vitest runs projects of one group only when they agree):
    // five on two cores, see the template's vitest.config.ts.
    maxWorkers: Math.max(5, availableParallelism()),
    include: ["test/repo/**/*.test.ts"],
    environment: "node",
    isolate: false,
    // Some checks run npm or the bundler (npm pack, esbuild): about 1.5 s alone, past 5 s on a busy 2-core machine.
    testTimeout: 30_000,
  },
});
