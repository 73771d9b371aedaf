import { buildWorker } from "./lib/build.mjs";
import { serveBundle } from "./lib/miniflare.mjs";
import { load } from "./lib/load.mjs";
import * as R from "./lib/requests.mjs";
const out = {};
for (const w of ["baseline", "template", "sdk"]) {
  const b = await buildWorker(`/work/main/bench/workers/${w}/wrangler.toml`, `/work/main/bench/dist/${w}`);
  out[w] = await serveBundle(`/work/main/bench/workers/${w}/wrangler.toml`, `${b.outdir}/${b.modules[0]}`);
  console.log(w, b.raw, b.gzip, b.wrangler, out[w].url);
}
for (const w of ["template", "sdk"]) {
  const url = out[w].url;
  for (const [n, r] of Object.entries({ discover: R.discover(), list: R.toolsList(), echo: R.echoCall(), first: R.mrtrFirst() })) {
    try { const res = await R.verify(url, r); console.log(w, n, JSON.stringify(res).slice(0, 300)); } catch (e) { console.log(w, n, "FAIL", e.message); }
  }
  try {
    const first = await R.verify(url, R.mrtrFirst());
    const res = await R.verify(url, R.mrtrRetry(first.requestState));
    console.log(w, "retry", JSON.stringify(res).slice(0, 300));
  } catch (e) { console.log(w, "retry FAIL", e.message); }
}
for (const w of ["baseline", "template", "sdk"]) console.log(w, await load(out[w].url, R.echoCall(), { connections: 10, seconds: 3 }));
for (const w of Object.values(out)) await w.mf.dispose();
