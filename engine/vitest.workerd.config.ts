/**
 * The engine's tests inside workerd, against its test Worker (test/wrangler.toml, every binding the engine
 * understands, so every feature is on). One of the two projects of the engine's suite (vitest.config.ts); the
 * template's `npm test` at the repository root runs both beside the app's.
 */
import { availableParallelism } from "node:os";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineProject } from "vitest/config";

/**
 * How many cases the property-based tests run (test/helpers/seed.ts reads it): FC_RUNS when set, every case in CI
 * (CI=true, as .ci/run and most CI services set), otherwise "" (a local run's smaller default).
 */
function fuzzCases(): string {
  const ci = process.env.CI !== undefined && !["", "0", "false"].includes(process.env.CI);
  return process.env.FC_RUNS ?? (ci ? "full" : "");
}

export default defineProject({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./test/wrangler.toml" },
      miniflare: { bindings: { FC_SEED: process.env.FC_SEED ?? "", FC_RUNS: fuzzCases() } },
    }),
  ],
  test: {
    name: "engine",
    // As many files at a time as the template's own projects run (vitest runs projects of one group only when they agree):
    // five on two cores, see the template's vitest.config.ts.
    maxWorkers: Math.max(5, availableParallelism()),
    // One runtime and one module graph for all the files (a fresh one per file cost about 2.5 s a file); each file
    // still starts with no Durable Object and an empty fixture (test/helpers/fresh-state.ts).
    isolate: false,
    setupFiles: ["test/helpers/fresh-state.ts"],
    // Why longer than vitest's 5 s: with five files at a time on two cores and CI's full fuzz counts beside them, a
    // test that runs a task over 60 notes or fills a replay buffer went past 5 s.
    testTimeout: 20_000,
    include: ["test/**/*.test.ts"],
    exclude: ["test/repo/**", "test/tarball/**"],
  },
});
