/**
 * The template bench Worker's wrangler configs, derived from the root wrangler.toml so the bench serves the engine
 * with exactly what the template ships (every binding, var, trigger, flag and setting), never a hand-kept copy:
 *
 *   shipped    - the root config with `main` pointing at bench/workers/template/worker.ts. Its `[assets]` block
 *                (run_worker_first) puts Miniflare's asset router Worker in front of every request, as `wrangler dev` does.
 *   no-assets  - the same without `[assets]` and `[build]`: no asset hop in front of the Worker (and no ASSETS binding,
 *                which only the views and skills read; the bench Worker declares neither).
 *
 * Written under bench/dist/ as one wrangler config per Worker (never committed), with the root's paths made absolute.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { ROOT } from "./build.mjs";

const BENCH_ENTRY = join(ROOT, "engine/bench/workers/template/worker.ts");
// Why: bench/node_modules has its own zod (for the peers), and workers/template/worker.ts would pick it up while the engine in src/
// uses the root one. Send its `zod/mini` to the root copy's ESM entry, the very file src/ resolves to, so the bundle
// holds zod once, as the real template does. (Wrangler matches alias keys exactly.)
const ZOD_MINI = join(ROOT, "node_modules/zod/mini/index.js");

/** The Durable Object classes the bench Workers export: the engine's, from their createMcpWorker results. */
const ENGINE_CLASSES = ["ReplayGuard", "SubscriptionHub", "LegacySession", "TaskRunner"];

/**
 * The root config with `main` pointing at `entry`, zod once, and the engine's objects only (a bench Worker has none
 * of the app's, the example's notebooks): its `[assets]` and `[build]` apart, for the caller to keep or drop.
 */
function rootConfigFor(entry) {
  const { experimental_readRawConfig } = createRequire(join(ROOT, "package.json"))("wrangler");
  const { rawConfig } = experimental_readRawConfig({ config: join(ROOT, "wrangler.toml") });
  const { assets, build, ...rest } = rawConfig;
  const config = {
    ...rest,
    main: entry,
    alias: { ...rest.alias, "zod/mini": ZOD_MINI },
    durable_objects: { bindings: rest.durable_objects.bindings.filter(({ class_name }) => ENGINE_CLASSES.includes(class_name)) },
    // The migrations name the app's classes too: workerd warns of every class they name that the Worker does not export.
    migrations: rest.migrations?.map((migration) => ({
      ...migration,
      ...(migration.new_sqlite_classes && {
        new_sqlite_classes: migration.new_sqlite_classes.filter((name) => ENGINE_CLASSES.includes(name)),
      }),
    })),
  };
  return { config, assets, build };
}

function writeConfig(dist, id, config) {
  const dir = join(dist, `config-${id}`);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "wrangler.json");
  writeFileSync(path, `${JSON.stringify(config, null, 2)}\n`);
  return path;
}

export function writeTemplateConfigs(dist) {
  const { config: common, assets, build } = rootConfigFor(BENCH_ENTRY);
  if (!assets) throw new Error("root wrangler.toml has no [assets]: the 'as shipped' and 'no assets' rows would be the same");
  const shipped = {
    ...common,
    assets: { ...assets, directory: join(ROOT, assets.directory) },
    // The custom build (views and skills into build/assets) runs from the repository, as it does for the template.
    ...(build && {
      build: { ...build, cwd: join(ROOT, build.cwd ?? "."), watch_dir: [build.watch_dir ?? []].flat().map((dir) => join(ROOT, dir)) },
    }),
  };
  return { shipped: writeConfig(dist, "template-shipped", shipped), "no-assets": writeConfig(dist, "template-no-assets", common) };
}

/** bench:listen's config: the root config without `[assets]` and `[build]` (the fan-out reads no asset). Its path. */
export function writeListenConfig(dist) {
  return writeConfig(dist, "listen", rootConfigFor(join(ROOT, "engine/bench/workers/listen/worker.ts")).config);
}
