#!/usr/bin/env node
/**
 * `npm run bench:size`: builds the real template (root wrangler.toml, src/index.ts with every example) exactly as
 * `wrangler deploy --minify` would upload it, prints raw and gzip sizes, and exits 1 when the gzip size is over
 * the budget. Needs only the root install (wrangler), not bench/ dependencies, so CI can run it cheaply.
 *
 * Budget: 100 KiB gzip (102,400 bytes), gzip -9 via node:zlib, the performance issue's budget for the whole upload
 * with every feature; override with BENCH_GZIP_BUDGET_BYTES. History: 48.4 KiB for the first engine; 55.3 KiB with
 * 2025 stream resumption and hardening; 95.8 KiB with the built-in OAuth authorization server (workers-oauth-provider
 * ~31, oauth4webapi ~7; evaluated only in that mode, through a dynamic import); 100.5 KiB with Tasks; 103.4 KiB with
 * tracing and sharded listen hubs; 97.4 KiB once JWT verification moved from jose to WebCrypto (-5.5 KiB); 104.6 KiB
 * with later features; 99.7 KiB once the upstream login's oauth4webapi gave way to src/oauth/oauth-client.ts, which
 * verifies ID tokens with src/auth/jwt.ts (-4.9 KiB); 102.1 KiB with skills; 100.3 KiB once only workers-oauth-provider is
 * imported lazily and the engine's own checks stopped pulling in zod's record and union types (-1.8 KiB); 101.4 KiB
 * with later features; 65.1 KiB once the authorization server became an import of its own (`authorizationServer`,
 * -36.5 KiB: the template does not pass it; a Worker that does, such as the template's the template's test/e2e/oauth/worker.ts, is 99.2 KiB).
 *
 * Also prints the size of each feature (bench/lib/build.mjs FEATURES), from the bundle's source map.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildWorker, checkWrangler, kib, ROOT } from "./lib/build.mjs";

const budget = Number(process.env.BENCH_GZIP_BUDGET_BYTES ?? 100 * 1024);
checkWrangler();
const outdir = mkdtempSync(join(tmpdir(), "mcp-size-"));
try {
  const size = await buildWorker(join(ROOT, "wrangler.toml"), outdir);
  const fromWrangler = size.wrangler ? ` (wrangler: ${size.wrangler.rawKiB} KiB / gzip ${size.wrangler.gzipKiB} KiB)` : "";
  console.log(
    `Template bundle, minified: ${size.raw} B raw (${kib(size.raw)} KiB), ${size.gzip} B gzip -9 (${kib(size.gzip)} KiB)${fromWrangler}`,
  );
  if (size.duplicates.length) console.warn(`Warning: bundled more than once: ${size.duplicates.join(", ")}`);
  const parts = size.contributors.slice(0, 5).map((part) => `${part.name} ${kib(part.bytes)} KiB`);
  console.log(`Largest parts (minified, before gzip): ${parts.join(", ")}`);
  console.log("Size per feature (minified bytes; gzip: what the upload would shrink by without it, so these overlap):");
  for (const { name, bytes, gzip } of size.features) {
    console.log(`  ${name.padEnd(82)} ${String(bytes).padStart(7)} B  gzip ${String(gzip).padStart(6)} B (${kib(gzip)} KiB)`);
  }
  if (size.gzip > budget) {
    console.error(`FAIL: gzip size ${size.gzip} B is over the budget of ${budget} B (${kib(budget)} KiB)`);
    process.exitCode = 1;
  } else {
    console.log(`OK: within the budget of ${budget} B (${kib(budget)} KiB); ${budget - size.gzip} B to spare`);
  }
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
