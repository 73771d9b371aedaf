#!/usr/bin/env node
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
/**
 * `npm run bench:state`: what minting and verifying a `requestState` costs, measured in workerd.
 *
 * workerd freezes the clock during execution (a Spectre mitigation), so the cost cannot be timed from inside the
 * Worker. Instead a small Worker built from src/config/signing.ts answers three requests: one that does nothing, one
 * that seals `OPS` tokens and one that opens `OPS` tokens (with the same binding as a real MRTR retry). Each is
 * requested `RUNS` times from Node; the cost per operation is (median request time - median no-op time) / OPS.
 * 127.0.0.1 only, bounded, nothing kept running.
 */
import { build } from "esbuild";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const OPS = 200;
const RUNS = Number(process.env.STATE_RUNS ?? 40);

const entry = `
import { parseKeySpec } from "./src/config/keys.ts";
import { canonicalJson, importKeyRing, open, seal } from "./src/config/signing.ts";
const ring = importKeyRing(parseKeySpec("k1:" + btoa("bench-only-state-key-0123456789abcdef")).keys);
const args = { notebook_id: "nb_AAAAAAAAAAAAAAAAAAAAAA", note_id: "n_0123456789ab" };
const body = { answers: { confirm: { action: "accept", content: { delete: true } } }, state: {}, asked: { confirm: "form" } };
const bindFor = async () => ({ method: "tools/call", name: "delete_note", args: canonicalJson(args), principal: "anonymous" });
const OPS = ${OPS};
export default {
  async fetch(request) {
    const what = new URL(request.url).pathname;
    const keys = await ring;
    if (what === "/seal") {
      // A retry's mint: spell the arguments canonically, then seal.
      for (let i = 0; i < OPS; i++) await seal(keys, { purpose: "mcp.requestState", bind: await bindFor(), ttlMs: 600000, body });
    } else if (what === "/open") {
      const bind = await bindFor();
      const token = await seal(keys, { purpose: "mcp.requestState", bind, ttlMs: 600000, body });
      // A retry's verify: spell the arguments canonically, then open (kid, MAC, JSON, expiry, binding).
      for (let i = 0; i < OPS; i++) {
        const result = await open(keys, token, { purpose: "mcp.requestState", bind: await bindFor(), maxLength: 16384 });
        if (!result.ok) throw new Error(result.reason);
      }
    }
    return new Response("ok");
  },
};`;

const { outputFiles } = await build({
  stdin: { contents: entry, resolveDir: root, loader: "js" },
  bundle: true,
  format: "esm",
  write: false,
  minify: true,
  conditions: ["workerd", "worker", "browser"],
});
// Miniflare 5 takes its own option shape; its converter reads the Miniflare 4 one written here (lib/miniflare.mjs).
const mf = new Miniflare(
  convertV4MiniflareOptions({
    modules: true,
    script: outputFiles[0].text,
    compatibilityDate: "2026-11-17",
    host: "127.0.0.1",
    port: 0,
    cf: false,
  }),
);
try {
  const url = await mf.ready;
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const time = async (path) => {
    const samples = [];
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      const response = await fetch(new URL(path, url));
      if ((await response.text()) !== "ok") throw new Error(`${path} failed`);
      samples.push(performance.now() - started);
    }
    return median(samples);
  };
  await time("/noop"); // warm up (module evaluation, key import)
  const noop = await time("/noop");
  const sealMs = await time("/seal");
  const openMs = await time("/open");
  const perOp = (ms) => (((ms - noop) / OPS) * 1000).toFixed(1);
  console.log(`requestState cost in workerd (median of ${RUNS} requests x ${OPS} operations, minus a no-op request):`);
  console.log(`  mint   (canonical arguments + seal):                 ${perOp(sealMs)} us per token`);
  console.log(`  verify (canonical arguments + open: kid, MAC, bind): ${perOp(openMs)} us per token`);
} finally {
  await mf.dispose();
}
