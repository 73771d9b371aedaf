/**
 * The template bench Worker's wrangler configs, derived from the root wrangler.toml so the bench serves the engine
 * with exactly what the template ships (every binding, var, trigger, flag and setting), never a hand-kept copy:
 *
 *   shipped    - the root config with `main` pointing at bench/workers/template/worker.ts. Its `[assets]` block
 *                (run_worker_first) puts Miniflare's asset router Worker in front of every request, as `wrangler dev` does.
 *   no-assets  - the same without `[assets]` and `[build]`: no asset hop in front of the Worker (and no ASSETS binding,
 *                which only the views and skills read; the bench Worker declares neither).
 *
 * Written as wrangler.json files under bench/dist/ (never committed), with the root's paths made absolute.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { ROOT } from "./build.mjs";

const BENCH_ENTRY = join(ROOT, "engine/bench/workers/template/worker.ts");
// Why: bench/node_modules has its own zod (for the peers), and worker.ts would pick it up while the engine in src/
// uses the root one. Send its `zod/mini` to the root copy's ESM entry, the very file src/ resolves to, so the bundle
// holds zod once, as the real template does. (Wrangler matches alias keys exactly.)
const ZOD_MINI = join(ROOT, "node_modules/zod/mini/index.js");

/** The Durable Object classes the bench Worker exports: the engine's, from its createMcpWorker result. */
const ENGINE_CLASSES = ["ReplayGuard", "SubscriptionHub", "LegacySession", "TaskRunner"];

export function writeTemplateConfigs(dist) {
  const { experimental_readRawConfig } = createRequire(join(ROOT, "package.json"))("wrangler");
  const { rawConfig } = experimental_readRawConfig({ config: join(ROOT, "wrangler.toml") });
  if (!rawConfig.assets) throw new Error("root wrangler.toml has no [assets]: the 'as shipped' and 'no assets' rows would be the same");
  const { assets, build, ...rest } = rawConfig;
  const common = {
    ...rest,
    main: BENCH_ENTRY,
    alias: { ...rest.alias, "zod/mini": ZOD_MINI },
    // The engine's objects only: the bench Worker has none of the app's (the example's notebooks).
    durable_objects: { bindings: rest.durable_objects.bindings.filter(({ class_name }) => ENGINE_CLASSES.includes(class_name)) },
  };
  const shipped = {
    ...common,
    assets: { ...assets, directory: join(ROOT, assets.directory) },
    // The custom build (views and skills into build/assets) runs from the repository, as it does for the template.
    ...(build && {
      build: { ...build, cwd: join(ROOT, build.cwd ?? "."), watch_dir: [build.watch_dir ?? []].flat().map((dir) => join(ROOT, dir)) },
    }),
  };
  const paths = {};
  for (const [id, config] of Object.entries({ shipped, "no-assets": common })) {
    const dir = join(dist, `config-template-${id}`);
    mkdirSync(dir, { recursive: true });
    paths[id] = join(dir, "wrangler.json");
    writeFileSync(paths[id], `${JSON.stringify(config, null, 2)}\n`);
  }
  return paths;
}

/**
 * bench:listen's config: the root config without `[assets]` and `[build]` (the fan-out reads no asset), with `main`
 * pointing at bench/workers/listen/worker.ts (the template with a caller's listener share lifted). Its path.
 */
export function writeListenConfig(dist) {
  const { experimental_readRawConfig } = createRequire(join(ROOT, "package.json"))("wrangler");
  const { rawConfig } = experimental_readRawConfig({ config: join(ROOT, "wrangler.toml") });
  const { assets: _assets, build: _build, ...rest } = rawConfig;
  const dir = join(dist, "config-listen");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "wrangler.json");
  writeFileSync(path, `${JSON.stringify({ ...rest, main: join(ROOT, "engine/bench/workers/listen/worker.ts") }, null, 2)}\n`);
  return path;
}
