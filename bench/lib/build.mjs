/**
 * Builds a Worker the way it would ship (`wrangler deploy --dry-run --minify`) and measures the result.
 * Node built-ins only, so `bench/size-budget.mjs` can use it without installing bench/ dependencies.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
// wrangler's CLI itself, not its bin shim: the shim re-spawns node, which would leave a grandchild to clean up.
const WRANGLER = join(ROOT, "node_modules/wrangler/wrangler-dist/cli.js");

/** No Cloudflare network, no metrics, logs inside the checkout: the bench is offline and local. */
export const OFFLINE_ENV = {
  ...process.env,
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_SEND_METRICS: "false",
  WRANGLER_LOG_PATH: join(ROOT, ".wrangler/logs"),
  NO_COLOR: "1",
};

export function checkWrangler() {
  if (!existsSync(WRANGLER)) throw new Error("wrangler is not installed: run `npm ci` at the repository root first");
}

/** Every wrangler process still running, so an interrupted bench can stop them (see run.mjs). */
export const children = new Set();

export function killGroup(child) {
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/** Runs wrangler with a time limit; resolves with its combined output, rejects on failure or timeout. */
export function wrangler(args, { timeoutMs = 120_000 } = {}) {
  return new Promise((resolvePromise, reject) => {
    // Own process group, so a timeout or an interrupted bench can stop wrangler and any workerd it started.
    const child = spawn(process.execPath, ["--no-warnings", "--experimental-vm-modules", WRANGLER, ...args], {
      cwd: ROOT,
      env: OFFLINE_ENV,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    children.add(child);
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const timer = setTimeout(() => killGroup(child), timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      children.delete(child);
      if (code === 0) resolvePromise(output);
      else reject(new Error(`wrangler ${args.join(" ")} failed (${signal ?? `exit ${code}`}):\n${output.slice(-2000)}`));
    });
  });
}

/**
 * `wrangler deploy --dry-run --minify --outdir <outdir> -c <config>`, then the size of what would be uploaded:
 * raw bytes and gzip -9 bytes (node:zlib) of every emitted module, plus wrangler's own "Total Upload" figure.
 */
export async function buildWorker(config, outdir) {
  const output = await wrangler(["deploy", "--dry-run", "--minify", "--outdir", outdir, "--metafile", "-c", config]);
  const modules = readdirSync(outdir).filter((name) => !name.endsWith(".map") && name !== "README.md" && name !== META);
  let raw = 0;
  let gzip = 0;
  for (const name of modules) {
    const bytes = readFileSync(join(outdir, name));
    raw += bytes.length;
    gzip += gzipSync(bytes, { level: 9 }).length;
  }
  // e.g. "Total Upload: 97.80 KiB / gzip: 33.13 KiB"
  const upload = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(output);
  return {
    outdir,
    modules,
    raw,
    gzip,
    wrangler: upload ? { rawKiB: Number(upload[1]), gzipKiB: Number(upload[2]) } : undefined,
    ...contributors(join(outdir, META)),
  };
}

const META = "bundle-meta.json";

/**
 * From esbuild's metafile: minified bytes per package (or per source folder), largest first, and the packages
 * bundled from more than one node_modules folder (the same library twice in one Worker).
 */
function contributors(metafile) {
  if (!existsSync(metafile)) return { contributors: [], duplicates: [] };
  const totals = new Map();
  const copies = new Map();
  for (const output of Object.values(JSON.parse(readFileSync(metafile, "utf8")).outputs)) {
    for (const [path, { bytesInOutput }] of Object.entries(output.inputs ?? {})) {
      const inPackage = /^(.*node_modules\/((?:@[^/]+\/)?[^/]+))\//.exec(path);
      const name = inPackage ? inPackage[2] : path.replace(/^(\.\.\/)+/, "").replace(/\/[^/]+$/, "/");
      totals.set(name, (totals.get(name) ?? 0) + bytesInOutput);
      if (inPackage) copies.set(name, (copies.get(name) ?? new Set()).add(inPackage[1]));
    }
  }
  return {
    contributors: [...totals].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes),
    duplicates: [...copies].filter(([, folders]) => folders.size > 1).map(([name]) => name),
  };
}

/** The upload bundle (`--outfile`) that `wrangler check startup --worker` profiles. */
export async function buildUploadBundle(config, outfile) {
  await wrangler(["deploy", "--dry-run", "--minify", "--outfile", outfile, "-c", config]);
  return outfile;
}

export const kib = (bytes) => (bytes / 1024).toFixed(2);
