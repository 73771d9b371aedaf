import { existsSync, mkdirSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { configDefaults, defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { EveryFileRan } from "./test/every-file-ran.ts";
import { NoStrayErrors } from "./test/no-stray-errors.ts";

/** A fixed test key (not secret): tests exercise real signing, never the built-in development key. */
export const TEST_BINDINGS = {
  MCP_ENV: "development",
  STATE_KEYS: "test:dGVzdC1rZXktdGhhdC1pcy1hdC1sZWFzdC0zMi1ieXRlcy1sb25n",
};

/** Where a developer keeps local settings, as wrangler reads them beside wrangler.toml (.env files only without .dev.vars). */
const LOCAL_SETTINGS_FILES = [".dev.vars", ".env", ".env.local"];

/**
 * The wrangler config the app's tests run on: wrangler.toml, or a copy of it elsewhere when a developer keeps local
 * settings beside it. Why: the pool builds the Worker's env from its config the way `wrangler dev` does, `.dev.vars`
 * beside it included, and has no option to skip it; a local AUTH_ISSUER would turn authorization on in every test.
 * Blanking them is no way out (a setting present but empty is a configuration problem, and fails closed), so the
 * pool reads a copy in a folder that has none (`copyTemplateConfig`: paths made absolute, the build left to the
 * project's global setup). The end-to-end setup and `npm run check` point wrangler at test/no-local-settings.env.
 */
async function appWranglerConfig(): Promise<string> {
  if (!LOCAL_SETTINGS_FILES.some((file) => existsSync(join(import.meta.dirname, file)))) return "./wrangler.toml";
  const { copyTemplateConfig } = await import("./test/e2e/dev-server.ts");
  const dir = join(import.meta.dirname, "node_modules/.cache/app-tests");
  mkdirSync(dir, { recursive: true });
  return copyTemplateConfig(dir);
}

/**
 * The template's own promises to a fork, each checked by running a copy of the repository's commands: the README's
 * first tool added as it says, then the tests that list tools (readme-tool); `npm run blank`, then the blank copy's
 * whole `npm test` and build (start-from-blank). Not in `npm test`: they run the suite again inside a copy, which
 * costs more CPU than the rest of the inner loop can spare on a 2-core machine, and they check the template's
 * README and its blank script, not your server. Their project, `template`, exists in vitest's mode "template":
 * `npm run test:template`, which .ci/run runs after `npm test`.
 */
const TEMPLATE_CHECKS = ["test/repo/readme-tool.test.ts", "test/repo/start-from-blank.test.ts"];

/**
 * End-to-end files that mostly wait: the browser's (views.browser, the longest of its project: a page painted and
 * screenshot in two themes), ext-tasks (pauses between a task's batches; its requester polls once a second),
 * dev-server-example (a wrangler dev of its own, and the tool's pauses). They start beside the copies and the
 * runtime's files, which keep the cores busy meanwhile; after them, a file that starts a wrangler dev, the slowest
 * of the rest of its project. Why lists: vitest orders by the durations of the last run, and CI starts with none. A
 * file a fork has removed is simply not there.
 */
const WAITING_END_TO_END = ["test/e2e/views.browser.test.ts", "test/e2e/dev-server-example.test.ts", "test/e2e/ext-tasks.test.ts"];
const SLOWEST_END_TO_END = ["test/e2e/local-settings.test.ts", "test/e2e/dev-server.test.ts", "test/e2e/legacy-clients.test.ts"];

/**
 * The engine's files that mostly wait (a hub left idle until it hibernates, a lagging KV, replayed and held streams,
 * heartbeats): spread out among the engine's other files, so that fewer wait at a time while the rest compute.
 * Started together (vitest starts the slowest first), they held all the workers waiting while the cores idled for
 * about 15 s; started last, the same.
 */
const WAITING_ENGINE = [
  "engine/test/oauth/state-consistency.test.ts",
  "engine/test/listen/hibernation.test.ts",
  "engine/test/listen/replay.test.ts",
  "engine/test/legacy/streams.test.ts",
  "engine/test/http/heartbeat.test.ts",
];

const endsWith = (spec: TestSpecification, file: string) => spec.moduleId.endsWith(`/${file}`);
const fileIn = (files: string[]) => files.map((file) => (spec: TestSpecification) => endsWith(spec, file));

/**
 * The order files start in, first match wins (within a rank, vitest's own: failed, then slowest, first). The
 * end-to-end files that wait first; then the app's files, then the rest of the end-to-end files, the slowest first,
 * then the engine's: many short files in one runtime, which fill the cores while the last long files end (a worker
 * is reused only while the next file queued is of its own project; a runtime takes seconds to start, so each
 * project's files stay together), its waiting files spread among them; then the repository checks.
 */
const RANKS: ((spec: TestSpecification) => boolean)[] = [
  ...fileIn(WAITING_END_TO_END),
  (spec) => spec.project.name === "app",
  ...fileIn(SLOWEST_END_TO_END),
  (spec) => spec.project.name === "e2e",
  (spec) => spec.project.name === "engine",
];

class StartOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const index = RANKS.findIndex((matches) => matches(spec));
      return index === -1 ? RANKS.length : index;
    };
    const ranked = (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
    return spreadOut(ranked, (spec) => WAITING_ENGINE.some((file) => endsWith(spec, file)));
  }
}

/** `files` with the ones `waits` picks moved to even intervals among the other files of their project. */
function spreadOut(files: TestSpecification[], waits: (spec: TestSpecification) => boolean): TestSpecification[] {
  const waiting = files.filter(waits);
  const spread = files.filter((spec) => !waits(spec));
  const project = waiting[0]?.project.name;
  const first = spread.findIndex((spec) => spec.project.name === project);
  // Nothing to spread them among (none selected, or only they of their project): the order stays.
  if (first === -1) return files;
  const others = spread.filter((spec) => spec.project.name === project).length;
  const gap = Math.max(1, Math.floor(others / waiting.length));
  // Each one inserted moves the later places one further.
  for (const [i, spec] of waiting.entries()) spread.splice(first + i * (gap + 1), 0, spec);
  return spread;
}

export default defineConfig(async ({ mode }) => ({
  test: {
    // More test files at a time than cores (vitest's default is one fewer): much of the suite waits rather than
    // computes (wrangler dev starting, a task's pauses, a hub left idle until it hibernates, streams held open).
    // Five on two cores: with four, the engine's waiting files held every worker while the cores idled (npm test
    // 147 to 180 s, median 160, in four runs; with five 135 to 150 s, median 141, in three). The suite needs about
    // 200 s of CPU (time(1)'s user and system), so more runtimes, each started at a cost, would not make it faster.
    maxWorkers: Math.max(5, availableParallelism()),
    sequence: { sequencer: StartOrder },
    // A file planned for the run that never ran (its project failed to start) fails the run, named in the summary
    // (test/every-file-ran.ts), and so does an error-level log line a test printed without capturing it
    // (test/no-stray-errors.ts); first, so the summary counts them; then vitest's own (the default, or an agent's).
    reporters: [new EveryFileRan(), new NoStrayErrors(), ...configDefaults.reporters],
    // One access log line per request is right in production and noise in a run of thousands of requests; so is the
    // development startup line (the engine's worker/startup.ts) once per test file.
    onConsoleLog: (log: string) => !log.includes('"message":"mcp request"') && !log.includes('"message":"development mode: '),
    projects: [
      {
        // The app's tests inside workerd, against the Worker as wrangler.toml builds it, through the engine's test
        // client (`npm run test:app`: the inner loop).
        plugins: [
          cloudflareTest({
            wrangler: { configPath: await appWranglerConfig() },
            miniflare: {
              bindings: TEST_BINDINGS,
              // The suite sends hundreds of requests from one address (the engine's tests refuse them on tight limiters).
              ratelimits: {
                RATE_LIMITER: { namespace_id: "1001", simple: { limit: 1_000_000, period: 60 } },
                RETAG_LIMITER: { namespace_id: "1003", simple: { limit: 1_000_000, period: 60 } },
              },
            },
          }),
        ],
        test: {
          name: "app",
          // One runtime and one module graph for all the files; each file starts with no Durable Object
          // (test/app/fresh-state.ts).
          isolate: false,
          setupFiles: ["test/app/fresh-state.ts"],
          testTimeout: 20_000,
          include: ["test/app/**/*.test.ts"],
          // The views' HTML and the skills (build/assets): the pool binds it as ASSETS, and does not start without it.
          globalSetup: ["test/build-assets.ts"],
        },
      },
      {
        // Checks of the repository itself (the README, the docs, the deploy paths, the engine's update path), in Node.
        // One Node process for all the files, as for the runtime's: a fresh one per file cost about 0.4 s of CPU.
        test: {
          name: "repo",
          include: ["test/repo/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...TEMPLATE_CHECKS],
          environment: "node",
          isolate: false,
        },
      },
      // The template's promises to a fork (TEMPLATE_CHECKS, above): `npm run test:template` only. Both files mostly
      // wait on their copy's processes, so they run side by side. A fork that ran `npm run blank` has neither.
      ...(mode === "template" ? [{ test: { name: "template", include: TEMPLATE_CHECKS, environment: "node", isolate: false } }] : []),
      {
        // End-to-end tests in Node: the Worker served by wrangler on 127.0.0.1, driven by real MCP clients.
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          environment: "node",
          // One Node process for all the files (the clients' modules loaded once); each file starts its own clients.
          isolate: false,
          globalSetup: ["test/e2e/global-setup.ts"],
          // The global setup does not wait for its Worker: each file does, before its first test.
          setupFiles: ["test/e2e/worker-ready.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      // The engine's own suite (engine/vitest.*.config.ts), while the engine is a package folder of this repository.
      // A fork that installs the published package instead has no engine/ folder: the pattern matches nothing.
      "engine/vitest.*.config.ts",
    ],
  },
}));
