/**
 * Builds every interactive view (views/<name>/: index.html, main.ts, style.css) into one self-contained HTML file,
 * build/assets/views/<name>.html, served to MCP hosts through the ASSETS binding (wrangler.toml [assets]).
 *
 * Why one file with the script and style inline: hosts render the view in a sandboxed iframe whose origin is
 * `null`, so a script or stylesheet loaded by URL is blocked (CORS, and the host's CSP allows no origin by default).
 *
 * Run by wrangler's [build] (npm run dev, npm run build, deploy; dev runs it again when a watched file changes), and
 * by the tests before the runtime starts (test/build-assets.ts): the Workers test pool does not run wrangler's
 * [build], and refuses to start without the assets directory. It does nothing when no view's file (nor this script)
 * changed since its last build: a digest of them is kept in build/.stamps/, outside the assets.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { argv } from "node:process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const out = `${root}build/assets/views`;
const stamp = `${root}build/.stamps/views.sha256`;

async function buildView(name) {
  // Imported only when a view is built: loading Vite costs more than checking that nothing changed.
  const { build } = await import("vite");
  const dir = `${root}views/${name}`;
  const result = await build({
    configFile: false,
    logLevel: "warn",
    build: {
      write: false,
      minify: true,
      target: "es2022",
      lib: { entry: `${dir}/main.ts`, formats: ["es"], fileName: "main" },
    },
  });
  const output = (Array.isArray(result) ? result[0] : result).output;
  const script = output
    .filter((chunk) => chunk.type === "chunk")
    .map((chunk) => chunk.code)
    .join("\n");
  const style = await readFile(`${dir}/style.css`, "utf8");
  const html = (await readFile(`${dir}/index.html`, "utf8"))
    // A literal "</script" inside the script would end the element early.
    .replace("<!-- script -->", () => `<script type="module">${script.replaceAll("</script", "<\\/script")}</script>`)
    .replace("<!-- style -->", () => `<style>${style}</style>`);
  await writeFile(`${out}/${name}.html`, html);
  return html;
}

/** The views (each folder of views/) and a digest of everything their build reads, this script included. */
async function viewsAndDigest() {
  const hash = createHash("sha256").update(await readFile(fileURLToPath(import.meta.url)));
  const views = [];
  for (const entry of await readdir(`${root}views`, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    views.push(entry.name);
    for (const file of (await readdir(`${root}views/${entry.name}`, { recursive: true, withFileTypes: true })).filter((f) => f.isFile())) {
      const path = `${file.parentPath}/${file.name}`;
      hash.update(`${path.slice(root.length)}\0`).update(await readFile(path));
    }
  }
  return { views, digest: hash.digest("hex") };
}

/** Builds every view unless none changed since the last build (and its files are still there); whether it built. */
export default async function buildViews() {
  const { views, digest } = await viewsAndDigest();
  const current =
    existsSync(stamp) && views.every((name) => existsSync(`${out}/${name}.html`)) && (await readFile(stamp, "utf8")) === digest;
  if (current) return false;
  await mkdir(out, { recursive: true });
  for (const name of views) await buildView(name);
  await mkdir(`${root}build/.stamps`, { recursive: true });
  await writeFile(stamp, digest);
  return true;
}

if (argv[1] === fileURLToPath(import.meta.url)) {
  console.log((await buildViews()) ? "views: built views/ into build/assets/views/" : "views: build/assets/views/ is up to date");
}
