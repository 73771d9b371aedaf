/**
 * Builds a Worker the way it would ship (`wrangler deploy --dry-run --minify`) and measures the result.
 * Node built-ins only, so `bench/size-budget.mjs` can use it without installing bench/ dependencies.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { delimiter, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

/** The repository's root (the template): the bench lives in engine/bench/. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
// wrangler's CLI itself, not its bin shim: the shim re-spawns node, which would leave a grandchild to clean up.
const WRANGLER = join(ROOT, "node_modules/wrangler/wrangler-dist/cli.js");

/**
 * No Cloudflare network, no metrics, logs inside the checkout: the bench is offline and local. The repository's
 * `node_modules/.bin` first on PATH, as `npm run` puts it: the root config's custom build (`mcp-build-skills`) runs
 * from there even when the bench is started as `node bench/run.mjs`.
 */
export const OFFLINE_ENV = {
  ...process.env,
  PATH: [join(ROOT, "node_modules/.bin"), process.env.PATH].filter(Boolean).join(delimiter),
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
    features: features(outdir, modules),
    ...contributors(join(outdir, META)),
  };
}

/**
 * The parts of the template a reader can name (a feature, a library), first match wins. Paths are relative to the
 * repository root, or a package's folder under node_modules: the engine's sources are `engine/src/...` in this
 * repository (the workspace link resolved) and `mcp-workers-engine/src/...` where the package is installed.
 */
const ENGINE = String.raw`(?:engine|mcp-workers-engine)\/src\/`;
const engine = (rest) => new RegExp(`^${ENGINE}${rest}`);
const FEATURES = [
  [
    "OAuth authorization server (oauth/, workers-oauth-provider)",
    new RegExp(`^(${ENGINE}oauth\\/|@cloudflare\\/workers-oauth-provider\\/)`),
  ],
  ["JWT resource server (auth/jwt.ts, auth/jwks.ts)", engine(String.raw`auth\/jw(t|ks)\.ts`)],
  ["zod", /^zod\//],
  ["@cfworker/json-schema (jsonSchema() tools)", /^@cfworker\/json-schema\//],
  ["Tasks (tasks/)", engine(String.raw`tasks\/`)],
  ["views, MCP Apps (define/views.ts, src/views.ts)", new RegExp(`^(${ENGINE}define\\/views\\.ts|src\\/views\\.ts)`)],
  ["2025 clients (legacy/)", engine(String.raw`legacy\/`)],
  ["subscriptions/listen (listen/)", engine(String.raw`listen\/`)],
  ["skills (skills/, src/skills.ts)", new RegExp(`^(${ENGINE}skills\\/|src\\/skills\\.ts)`)],
  ["server card (worker/card.ts)", engine(String.raw`worker\/card\.ts`)],
  ["engine core (rest of engine/src/, itty-router)", new RegExp(`^(${ENGINE}|itty-router\\/)`)],
  ["example app (src/*.ts)", /^src\/[^/]+$/],
];

/**
 * Size per feature, from each module's source map: the minified bytes that came from the feature's sources, and
 * its marginal gzip size (gzip -9 of the whole module minus gzip -9 of the module without those bytes), i.e. what
 * the upload would shrink by without it. Marginal sizes do not add up exactly to the total: gzip shares patterns
 * across features.
 */
export function features(outdir, modules) {
  const totals = new Map(FEATURES.map(([name]) => [name, { name, bytes: 0, gzip: 0 }]));
  for (const module of modules) {
    const mapFile = join(outdir, `${module}.map`);
    if (!existsSync(mapFile)) continue;
    const code = readFileSync(join(outdir, module), "utf8");
    const map = JSON.parse(readFileSync(mapFile, "utf8"));
    const featureOf = map.sources.map((source) => featureOfPath(resolve(outdir, map.sourceRoot ?? "", source)));
    const owner = sourceOfEachCharacter(code, map.mappings);
    const whole = gzipSync(code, { level: 9 }).length;
    for (const name of new Set(featureOf)) {
      let bytes = 0;
      const rest = [];
      for (let i = 0; i < code.length; i++) {
        if (owner[i] >= 0 && featureOf[owner[i]] === name) bytes++;
        else rest.push(code[i]);
      }
      const total = totals.get(name) ?? { name, bytes: 0, gzip: 0 };
      total.bytes += bytes;
      total.gzip += whole - gzipSync(rest.join(""), { level: 9 }).length;
      totals.set(name, total);
    }
  }
  return [...totals.values()];
}

function featureOfPath(absolute) {
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+\/.*)$/.exec(absolute);
  const path = inPackage ? inPackage[1] : relative(ROOT, absolute);
  const feature = FEATURES.find(([, pattern]) => pattern.test(path));
  return feature ? feature[0] : inPackage ? `other: ${inPackage[1].split("/")[0]}` : `other: ${path}`;
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** For each character of the generated code, the index of the source it came from (-1: none), per source map v3. */
function sourceOfEachCharacter(code, mappings) {
  const owner = new Int32Array(code.length).fill(-1);
  const lines = code.split("\n");
  let lineStart = 0;
  let source = 0;
  mappings.split(";").forEach((segments, lineIndex) => {
    const lineLength = (lines[lineIndex] ?? "").length;
    let column = 0;
    let from = -1;
    let fromSource = -1;
    const mark = (to) => {
      if (from >= 0 && fromSource >= 0) owner.fill(fromSource, lineStart + from, lineStart + Math.min(to, lineLength));
    };
    for (const segment of segments ? segments.split(",") : []) {
      const fields = decodeVlq(segment);
      column += fields[0];
      mark(column);
      if (fields.length > 1) source += fields[1];
      from = column;
      fromSource = fields.length > 1 ? source : -1;
    }
    mark(lineLength);
    lineStart += lineLength + 1;
  });
  return owner;
}

function decodeVlq(segment) {
  const fields = [];
  let value = 0;
  let shift = 0;
  for (const character of segment) {
    const digit = BASE64.indexOf(character);
    value += (digit & 31) << shift;
    if (digit & 32) shift += 5;
    else {
      fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return fields;
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
