/**
 * Miniflare and workerd exactly as the template's pinned wrangler uses them (resolved through wrangler's own
 * dependency), so every bench Worker runs under the same workerd as `npm run dev` and the tests.
 */

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { ROOT } from "./build.mjs";
import { workerdPids } from "./cpu.mjs";

const fromRoot = createRequire(join(ROOT, "package.json"));
const fromWrangler = createRequire(fromRoot.resolve("wrangler/package.json"));
const miniflare = fromWrangler("miniflare");
export const { Miniflare, Log, LogLevel } = miniflare;

/**
 * Miniflare 5 takes its own option shape (each Worker under `workers`, its settings under `config`); the bench, like
 * wrangler's `unstable_getMiniflareWorkerOptions`, writes Miniflare 4's. Its own converter turns one into the other.
 */
export const miniflareOptions = (options) => miniflare.convertV4MiniflareOptions?.(options) ?? options;
export const MINIFLARE_VERSION = fromWrangler("miniflare/package.json").version;
export const WORKERD_VERSION = createRequire(fromWrangler.resolve("miniflare/package.json"))("workerd/package.json").version;

/**
 * Drops what the Workers and workerd print (access-log lines, workerd's warnings): nothing they print is part of a
 * measurement. Miniflare 5 hands workerd's output, line by line, to `handleStructuredLogs` (Miniflare 4's
 * `handleRuntimeStdio` is gone: given it, Miniflare 5 printed every line).
 */
export const quiet = {
  log: new Log(LogLevel.ERROR),
  handleStructuredLogs: () => {},
};

/** Every workerd still running, so an interrupted bench can stop them all (see run.mjs). */
export const live = new Set();

async function start(options) {
  const before = new Set(workerdPids());
  const mf = new Miniflare(miniflareOptions(options));
  live.add(mf);
  const dispose = mf.dispose.bind(mf);
  mf.dispose = () => {
    live.delete(mf);
    return dispose();
  };
  const url = await mf.ready;
  // The workerd process(es) this instance started, for CPU accounting (see cpu.mjs).
  return { mf, url, pids: workerdPids().filter((pid) => !before.has(pid)) };
}

/**
 * Compatibility date, flags, vars and bindings as wrangler would give the Worker in `wrangler dev`, without a
 * developer's local settings: test/no-local-settings.env stands in for `.dev.vars`, so a local AUTH_ISSUER never
 * changes what is measured. (`envFiles` is read by wrangler 4.86 here, though its type declaration omits it.)
 */
export function workerOptionsOf(config) {
  const envFiles = [join(ROOT, "test/no-local-settings.env")];
  return fromRoot("wrangler").unstable_getMiniflareWorkerOptions(config, undefined, { envFiles }).workerOptions;
}

/**
 * Serves a built bundle on 127.0.0.1 (random port) straight from workerd: no wrangler dev proxy in front.
 * Bindings, vars and Durable Objects come from the Worker's own wrangler.toml.
 */
export async function serveBundle(config, mainModule, overrides = {}) {
  const options = workerOptionsOf(config);
  const { mf, url, pids } = await start({
    ...options,
    ...overrides,
    bindings: { ...options.bindings, ...overrides.bindings },
    ...quiet,
    // The bundle as one module (Miniflare 5 converts no `modulesRules` beside a `scriptPath`): it imports nothing.
    modulesRoot: dirname(mainModule),
    modules: [{ type: "ESModule", path: mainModule, contents: readFileSync(mainModule, "utf8") }],
    host: "127.0.0.1",
    port: 0,
    cf: false,
  });
  return { mf, pids, url: new URL("/mcp", url).href };
}

/**
 * The in-process driver (see inprocess.mjs): `driverSource` as the entry module, the Worker's bundle beside it as
 * its module `worker.js` (written beside it), and the Worker's own bindings, vars, Durable Objects and assets from its wrangler config. Served on
 * 127.0.0.1 too, so a check can reach it over HTTP, but only dispatchFetch is used.
 */
export async function startDriver(config, driverSource, workerSource, overrides = {}) {
  const options = workerOptionsOf(config);
  return start({
    ...options,
    ...overrides,
    bindings: { ...options.bindings, ...overrides.bindings },
    ...quiet,
    modulesRoot: "/",
    modules: [
      { type: "ESModule", path: "/bench-driver.mjs", contents: driverSource },
      { type: "ESModule", path: "/worker.js", contents: workerSource },
    ],
    host: "127.0.0.1",
    port: 0,
    cf: false,
  });
}

/**
 * A fresh workerd whose entry module imports the bundle (`mainSource`) only when asked, the same wrapper `wrangler check
 * startup` profiles. Used to time module evaluation (see startup.mjs).
 */
export async function lazyImporter(mainSource, compatibilityDate, compatibilityFlags) {
  const { mf } = await start({
    ...quiet,
    compatibilityDate,
    compatibilityFlags,
    modulesRoot: "/",
    modules: [
      {
        type: "ESModule",
        path: "/bench-entry.mjs",
        contents: `export default { async fetch(request) {
          if (new URL(request.url).pathname === "/import") await import("./worker.js");
          return new Response("ok");
        } };`,
      },
      { type: "ESModule", path: "/worker.js", contents: mainSource },
    ],
    cf: false,
  });
  return mf;
}
