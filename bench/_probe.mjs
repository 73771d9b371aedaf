import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { once } from "node:events";
import WebSocket from "ws";
const req = createRequire("/work/main/node_modules/wrangler/package.json");
const { Miniflare } = req("miniflare");

async function profileOnce(script, interval) {
  const mf = new Miniflare({
    compatibilityDate: "2026-04-01", compatibilityFlags: ["enable_request_signal"],
    modulesRoot: "/",
    modules: [
      { type: "ESModule", path: "/entry.mjs", contents: `export default { async fetch() { await import("./worker.js"); return new Response("ok"); } };` },
      { type: "ESModule", path: "/worker.js", contents: script },
    ],
    inspectorPort: 0, host: "127.0.0.1", port: 0,
  });
  await mf.ready;
  const url = await mf.getInspectorURL();
  const ws = new WebSocket(new URL("/core:user:", url).href);
  await once(ws, "open");
  let id = 0; const pending = new Map();
  ws.on("message", (d) => { const m = JSON.parse(d); if (pending.has(m.id)) { pending.get(m.id)(m.result); pending.delete(m.id); } });
  const call = (method, params = {}) => new Promise((r) => { const i = ++id; pending.set(i, r); ws.send(JSON.stringify({ id: i, method, params })); });
  await call("Profiler.enable");
  await call("Profiler.setSamplingInterval", { interval });
  await call("Profiler.start");
  await (await mf.dispatchFetch("http://localhost/")).text();
  const { profile } = await call("Profiler.stop");
  ws.close(); await mf.dispose();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  let busy = 0;
  profile.samples.forEach((s, i) => { if (byId.get(s).callFrame.functionName !== "(idle)") busy += profile.timeDeltas[i]; });
  if (process.env.DUMP) { const by = {}; profile.samples.forEach((s, i) => { const n = byId.get(s); const k = (n.callFrame.functionName || "(anon)") + "@" + n.callFrame.lineNumber + ":" + n.callFrame.columnNumber + " " + n.callFrame.url.slice(-12); by[k] = (by[k] ?? 0) + profile.timeDeltas[i]; }); console.log(Object.entries(by).sort((a, b) => b[1] - a[1]).slice(0, 15).map(([k, v]) => `${k} ${(v / 1000).toFixed(2)}`).join("\n")); }
  return { n: profile.samples.length, busy: busy / 1000 };
}
const [file, interval, runs] = [process.argv[2], Number(process.argv[3] ?? 100), Number(process.argv[4] ?? 5)];
const src = readFileSync(file, "utf8");
const out = [];
for (let i = 0; i < runs; i++) { const t = performance.now(); const r = await profileOnce(src, interval); out.push(`${r.busy.toFixed(2)}(${r.n}) ${(performance.now()-t).toFixed(0)}ms`); }
console.log(file.split("/").at(-2), out.join(" | "));
