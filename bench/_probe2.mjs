import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
const req = createRequire("/work/main/node_modules/wrangler/package.json");
const { Miniflare, Log, LogLevel } = req("miniflare");
async function timeFetch(mf, path) { const t = performance.now(); const r = await mf.dispatchFetch("http://localhost" + path); await r.text(); return performance.now() - t; }
async function once(script) {
  const mf = new Miniflare({
    compatibilityDate: "2026-04-01", compatibilityFlags: ["enable_request_signal"], modulesRoot: "/",
    modules: [
      { type: "ESModule", path: "/entry.mjs", contents: `export default { async fetch(r) { if (!r.url.endsWith("/warm")) await import("./worker.js"); return new Response("ok"); } };` },
      { type: "ESModule", path: "/worker.js", contents: script },
    ],
    log: new Log(LogLevel.ERROR),
  });
  await mf.ready;
  await timeFetch(mf, "/warm"); await timeFetch(mf, "/warm");
  const first = await timeFetch(mf, "/start");
  const again = []; for (let i = 0; i < 5; i++) again.push(await timeFetch(mf, "/again"));
  await mf.dispose();
  again.sort((a, b) => a - b);
  return first - again[2];
}
const src = readFileSync(process.argv[2], "utf8"); const out = [];
for (let i = 0; i < Number(process.argv[3] ?? 7); i++) out.push((await once(src)).toFixed(2));
console.log(process.argv[2].split("/").at(-2), out.join(" "));
