/**
 * Startup cost of a Worker, two ways (both on fresh workerd instances, the empty Worker as the reference):
 *
 * 1. Module evaluation, wall time: a wrapper entry (the same idea as `wrangler check startup`) imports the bundle
 *    on one request; cost = that request's time minus the median of later requests, when the import is cached.
 *    Millisecond-precise, so it can tell +3 ms apart.
 * 2. `wrangler check startup --worker <bundle>` (wrangler 4.86 has it): a V8 CPU profile of the same import; we
 *    sum the non-idle samples. Its default sampling is sparse (a handful of samples for a small Worker), so the
 *    figure is coarse; it is reported because it is the official tool.
 */
import { readFileSync, rmSync } from "node:fs";
import { wrangler } from "./build.mjs";
import { lazyImporter } from "./miniflare.mjs";

async function timed(mf, path) {
  const started = performance.now();
  await (await mf.dispatchFetch(`http://localhost${path}`)).arrayBuffer();
  return performance.now() - started;
}

/** One fresh workerd: warm the wrapper, time the importing request, then the same request with nothing to import. */
export async function importCost(mainModule, compatibilityDate, compatibilityFlags) {
  const mf = await lazyImporter(readFileSync(mainModule, "utf8"), compatibilityDate, compatibilityFlags);
  try {
    await timed(mf, "/warm");
    await timed(mf, "/warm");
    const first = await timed(mf, "/import");
    const again = [];
    for (let i = 0; i < 5; i++) again.push(await timed(mf, "/import"));
    again.sort((a, b) => a - b);
    return first - again[2];
  } finally {
    await mf.dispose();
  }
}

/** Non-idle CPU time (ms) in the startup profile `wrangler check startup` writes. */
export async function checkStartup(bundle, profileFile) {
  await wrangler(["check", "startup", "--worker", bundle, "--outfile", profileFile], { timeoutMs: 60_000 });
  const profile = JSON.parse(readFileSync(profileFile, "utf8"));
  rmSync(profileFile, { force: true });
  const idle = new Set(profile.nodes.filter((node) => node.callFrame.functionName === "(idle)").map((node) => node.id));
  let busyMicros = 0;
  profile.samples.forEach((id, index) => {
    if (!idle.has(id)) busyMicros += profile.timeDeltas[index] ?? 0;
  });
  return busyMicros / 1000;
}
