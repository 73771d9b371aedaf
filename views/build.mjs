/**
 * Builds every interactive view (views/<name>/: index.html, main.ts, style.css) into one self-contained HTML file,
 * build/assets/views/<name>.html, served to MCP hosts through the ASSETS binding (wrangler.toml [assets]).
 *
 * Why one file with the script and style inline: hosts render the view in a sandboxed iframe whose origin is
 * `null`, so a script or stylesheet loaded by URL is blocked (CORS, and the host's CSP allows no origin by default).
 *
 * Run by wrangler's [build] (npm run dev, npm run build, deploy; dev rebuilds on change: hot reload), and by the
 * tests as a vitest global setup: the Workers test pool does not run wrangler's [build], and refuses to start
 * without the assets directory.
 */
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { argv } from "node:process";
import { fileURLToPath } from "node:url";
import { build } from "vite";

const root = fileURLToPath(new URL("..", import.meta.url));
const out = `${root}build/assets/views`;

async function buildView(name) {
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

/** Builds every view (the default export, so vitest can run it as a global setup). */
export default async function buildViews() {
  await mkdir(out, { recursive: true });
  for (const entry of await readdir(`${root}views`, { withFileTypes: true })) {
    if (entry.isDirectory()) await buildView(entry.name);
  }
}

if (argv[1] === fileURLToPath(import.meta.url)) await buildViews();
