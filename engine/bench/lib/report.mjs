/**
 * Turns one bench run into bench/results/latest.md (tables) and latest.svg (hand-drawn bars, no chart library).
 */
import { medianOver, NOISY_FACTOR } from "./stats.mjs";

// Why the `|| 0`: a net figure within the measurement's resolution of zero can come out as -0.3, which reads as "-0".
const fmt = (value, digits = 0) => (Number.isFinite(value) ? (Number(value.toFixed(digits)) || 0).toFixed(digits) : "n/a");
/** A net figure with its sign (net of the empty Worker can be below zero within the noise): "+3.1", "-0.7". */
const signed = (value, digits = 1) => {
  const text = fmt(value, digits);
  return text.startsWith("-") || text === "n/a" ? text : `+${text}`;
};
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
const times = (value) => (Number.isFinite(value) ? `${value.toFixed(2)}x` : "n/a");
const mark = (ok) => (ok === undefined ? "n/a" : ok ? "met" : "**missed**");
const escapeHtml = (text) => String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

const byId = (run, id) => run.workers.find((worker) => worker.id === id);
const peersOf = (run) => run.workers.filter((worker) => worker.peer);
/** Round labels for a table header, noisy ones marked. */
const roundHeads = (count, noisy) =>
  [...Array(count).keys()].map((round) => `round ${round + 1}${noisy.includes(round) ? " (noisy)" : ""}`);

/** The peer with the lowest in-process CPU per request for a scenario. */
function bestPeer(run, scenario) {
  const cells = run.inprocess.cells[scenario];
  return peersOf(run)
    .filter((peer) => Number.isFinite(cells[peer.id]?.cpuUs))
    .sort((a, b) => cells[a.id].cpuUs - cells[b.id].cpuUs)[0];
}

/**
 * The targets of the performance issue, each with what was measured. Which template row: in-process, the template
 * as shipped (its full configuration; the loop runs inside the Worker, so no asset hop is in it); over HTTP, the
 * row without the asset hop, which is what the Worker sees in production (on Cloudflare the platform routes assets,
 * not a Worker of the account's); the other row is shown beside it.
 */
export function targets(run) {
  const ip = run.inprocess.cells;
  const http = run.http.cells;
  const real = byId(run, "real");
  const template = byId(run, "template");
  const peers = peersOf(run);
  const lowestCpu = (scenario, label) => {
    const best = bestPeer(run, scenario);
    if (!best) return { name: `${label}: in-process CPU per request <= 0.8x the best peer's`, measured: "no peer measured", ok: undefined };
    const ours = ip[scenario].template.cpuUs;
    const value = ours / ip[scenario][best.id].cpuUs;
    return {
      name: `${label}: in-process CPU per request the lowest of every Worker, <= 0.8x the best peer's`,
      measured:
        `${times(value)} (template ${fmt(ours)} us, without the asset hop ${fmt(ip[scenario]["template-no-assets"].cpuUs)} us; ` +
        `best peer ${best.label} ${fmt(ip[scenario][best.id].cpuUs)} us)`,
      ok: value <= 0.8,
    };
  };
  const overHttp = (other, floor, label) => {
    const name = `tools/call over HTTP >= ${floor}x ${label} (template without the asset hop, as production runs it)`;
    // A quick trial may leave the SDK out (BENCH_WORKERS).
    if (!http.call[other]) return { name, measured: "not measured in this run", ok: undefined };
    const value = http.call["template-no-assets"].rps / http.call[other].rps;
    const shipped = http.call.template.rps / http.call[other].rps;
    return {
      name,
      measured: `${times(value)} (as shipped, Miniflare's asset router in front: ${times(shipped)})`,
      ok: value >= floor,
    };
  };
  const mrtrInProcess = ip.mrtr.template.cpuUs / ip.call.template.cpuUs;
  const mrtrHttp = http.mrtr ? http.call["template-no-assets"].rps / http.mrtr["template-no-assets"].rps : NaN;
  const startupBest = (metric, label) => {
    const best = Math.min(...peers.map((peer) => peer.startup[metric]));
    if (!peers.length) return { name: `startup the best of the table (${label})`, measured: "no peer measured", ok: undefined };
    return {
      name: `startup the best of the table (${label}, net of the empty Worker)`,
      measured:
        `real template ${signed(real.startup[metric])} ms, bench template ${signed(template.startup[metric])} ms; ` +
        `best peer ${signed(best)} ms`,
      ok: real.startup[metric] < best,
    };
  };
  return [
    lowestCpu("call", "tools/call"),
    lowestCpu("list", "tools/list"),
    overHttp("floor", 0.85, "the floor"),
    overHttp("sdk", 2, "the SDK"),
    {
      name: "MRTR retry <= 1.2x a plain tools/call (in-process CPU per request)",
      measured: `${times(mrtrInProcess)} (${fmt(ip.mrtr.template.cpuUs)} vs. ${fmt(ip.call.template.cpuUs)} us); over HTTP ${times(mrtrHttp)} by req/s`,
      ok: mrtrInProcess <= 1.2,
    },
    startupBest("checkNet", "`wrangler check startup`"),
    startupBest("importNet", "module evaluation"),
    {
      name: "real template upload <= 100 KiB gzip (every feature, minified)",
      measured: `${kib(real.size.gzip)} (${real.size.gzip} B)`,
      ok: real.size.gzip <= 100 * 1024,
    },
  ];
}

/** Every cell with failed requests, as "where: how many". */
export function failures(run) {
  const found = [];
  for (const [phase, cells] of [
    ["in-process", run.inprocess.cells],
    ["HTTP", run.http.cells],
  ]) {
    for (const [scenario, byWorker] of Object.entries(cells)) {
      for (const [id, cell] of Object.entries(byWorker)) if (cell.failures) found.push(`${phase} ${scenario} ${id}: ${cell.failures}`);
    }
  }
  if (run.limited?.failures) found.push(`rate-limited load: ${run.limited.failures}`);
  for (const variant of run.defaults ?? []) if (variant.failures) found.push(`defaults ${variant.id}: ${variant.failures}`);
  return found;
}

/** Loaded Workers, cheapest in-process tools/call first (the floor first of all). */
function ranked(run) {
  const cpu = (worker) => run.inprocess.cells.call[worker.id]?.cpuUs ?? Infinity;
  return run.workers.filter((worker) => worker.loaded).sort((a, b) => (b.floor ? 1 : 0) - (a.floor ? 1 : 0) || cpu(a) - cpu(b));
}

export function markdown(run) {
  const p = run.params;
  const ip = run.inprocess;
  const http = run.http;
  const lines = [];
  lines.push(
    "# Benchmark: the template against the runtime floor and every peer",
    "",
    `Made by \`${run.command}\` on ${run.date} (took ${fmt(run.elapsedSeconds)} s).`,
    "",
    ...warnings(run).map((warning) => `> **${warning.text}**\n`),
    `- Source: commit \`${run.commit}\`${run.dirty ? " with uncommitted changes in the work tree" : ""}.`,
    `- Machine: ${run.machine}; Node ${run.node}; 1-minute load average ${run.loadBefore.toFixed(2)} before the run, ${run.loadAfter.toFixed(2)} after.`,
    `- Toolchain: wrangler ${run.versions.wrangler}, miniflare ${run.versions.miniflare}, workerd ${run.versions.workerd}; ` +
      `autocannon ${run.versions.autocannon}; zod ${run.versions.zod} (template), ${run.versions.zodPeers} (peers).`,
    `- Every Worker is its \`wrangler deploy --dry-run --minify\` bundle, served by Miniflare straight from workerd on 127.0.0.1 ` +
      "(no `wrangler dev` proxy), with the bindings of its own wrangler config; each serves the same `echo` tool with the same " +
      "zod schema (an object with one string of at most 100 characters) and each answer was checked once before it was measured.",
    `- In-process CPU: ${ip.requests} requests through the Worker's own \`fetch\` inside one workerd request, workerd CPU from /proc, ` +
      `minus an empty loop; ${p.rounds} rounds, Workers interleaved. HTTP: autocannon, ${p.connections} connections, ` +
      `${p.rounds} interleaved rounds x ${p.seconds} s after a ${p.warmupSeconds} s warm-up.`,
    `- Noisy rounds: a round whose floor figure (the floor Worker's cost per request in that round) is over ${NOISY_FACTOR}x the ` +
      `median floor; they are flagged and left out of the medians. In-process: ${noisyText(ip.noisy, p.rounds)}. HTTP: ${noisyText(http.noisy, p.rounds)}.`,
    "",
    "## Targets",
    "",
    "| target | measured | result |",
    "|---|---|---|",
    ...targets(run).map((target) => `| ${target.name} | ${target.measured} | ${mark(target.ok)} |`),
    "",
    "## Every Worker",
    "",
    "Cheapest in-process tools/call first. CPU is microseconds of workerd CPU per request; req/s and HTTP CPU are " +
      "tools/call over HTTP; startup is net of the empty Worker.",
    "",
    "| Worker | protocol it speaks | in-process CPU, tools/call | in-process CPU, tools/list | tools/call req/s | workerd CPU per request over HTTP | `check startup` ms | module evaluation ms | gzip |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|",
  );
  const row = (worker) => {
    const call = ip.cells.call[worker.id];
    const list = ip.cells.list[worker.id];
    const overHttp = http.cells.call[worker.id];
    const name = worker.template ? `**${worker.label}**` : worker.label;
    return (
      `| ${name} | ${worker.protocol === undefined || worker.floor ? "–" : worker.protocol} | ${fmt(call?.cpuUs)} | ${fmt(list?.cpuUs)} | ` +
      `${fmt(overHttp?.rps)} | ${fmt(overHttp?.cpuUs)} | ${fmt(worker.startup.checkNet, 1)} | ${fmt(worker.startup.importNet, 1)} | ${kib(worker.size.gzip)} |`
    );
  };
  lines.push(...ranked(run).map(row));
  const real = byId(run, "real");
  lines.push(
    `| ${real.label} | 2026-07-28 and 2025 | – | – | – | – | ${fmt(real.startup.checkNet, 1)} | ${fmt(real.startup.importNet, 1)} | ${kib(real.size.gzip)} |`,
    "",
    "Which template row production sees: the one without the asset hop. Locally, `[assets]` with `run_worker_first = true` puts " +
      "Miniflare's asset router, a JavaScript Worker, in front of every request, and its CPU is counted with the template's. " +
      "On Cloudflare, asset routing is done by the platform before the Worker runs, and a request that reaches the Worker " +
      "is billed as a Worker request " +
      "([static assets: billing](https://developers.cloudflare.com/workers/static-assets/billing-and-limitations/), " +
      "[routing with a Worker script](https://developers.cloudflare.com/workers/static-assets/routing/worker-script/)). " +
      "In-process, both rows run the Worker's `fetch` directly, so the hop is in neither.",
  );

  lines.push("", "## In-process CPU per request, per round", "");
  lines.push(
    `workerd CPU per request, microseconds, net of the empty loop (${ip.requests} requests per loop). Medians over the kept rounds.`,
    "",
  );
  for (const scenario of run.scenarios) {
    const cells = ip.cells[scenario.id];
    const ids = ranked(run).filter((worker) => cells[worker.id]);
    lines.push(
      `### ${scenario.label}`,
      "",
      `| Worker | median | ${roundHeads(p.rounds, ip.noisy).join(" | ")} | failed |`,
      `|---|---:|${"---:|".repeat(p.rounds)}---:|`,
      ...ids.map((worker) => {
        const cell = cells[worker.id];
        return `| ${worker.label} | ${fmt(cell.cpuUs)} | ${cell.rounds.map((r) => fmt(r.cpuUs)).join(" | ")} | ${cell.failures} |`;
      }),
      "",
    );
  }
  lines.push(
    `Floor figure per round (the floor Worker's gross CPU per tools/call, driver included): ${ip.floorCosts.map((us) => `${fmt(us)} us`).join(", ")}.`,
    "",
    "### Ratios per round, in-process tools/call CPU: template / each Worker (below 1: the template costs less)",
    "",
    `| ratio | median | ${roundHeads(p.rounds, ip.noisy).join(" | ")} |`,
    `|---|---:|${"---:|".repeat(p.rounds)}`,
  );
  const inProcessRatio = (id, other, scenario = "call") => {
    const ours = ip.cells[scenario][id].rounds;
    const theirs = ip.cells[scenario][other].rounds;
    return ours.map((r, round) => r.cpuUs / theirs[round].cpuUs);
  };
  for (const other of ranked(run).filter((worker) => worker.peer)) {
    const perRound = inProcessRatio("template", other.id);
    lines.push(`| template / ${other.label} | ${times(medianOver(perRound, ip.kept))} | ${perRound.map(times).join(" | ")} |`);
  }

  lines.push("", "## HTTP throughput, per round", "");
  for (const scenarioId of http.scenarios) {
    const scenario = run.scenarios.find((s) => s.id === scenarioId);
    const cells = http.cells[scenarioId];
    const ids = ranked(run).filter((worker) => cells[worker.id]);
    lines.push(
      `### ${scenario.label}`,
      "",
      `| Worker | req/s | p50 ms | p99 ms | workerd CPU per request, us | ${roundHeads(p.rounds, http.noisy)
        .map((h) => `${h} req/s`)
        .join(" | ")} | failed |`,
      `|---|---:|---:|---:|---:|${"---:|".repeat(p.rounds)}---:|`,
      ...ids.map((worker) => {
        const cell = cells[worker.id];
        return (
          `| ${worker.label} | ${fmt(cell.rps)} | ${fmt(cell.p50, 2)} | ${fmt(cell.p99, 2)} | ${fmt(cell.cpuUs)} | ` +
          `${cell.runs.map((r) => fmt(r.rps)).join(" | ")} | ${cell.failures} |`
        );
      }),
      "",
    );
  }
  lines.push(
    "### Ratios per round, tools/call req/s over HTTP: template / each Worker (above 1: the template serves more)",
    "",
    "Per round, so the machine's drift between rounds cancels.",
    "",
    `| ratio | median | ${roundHeads(p.rounds, http.noisy).join(" | ")} |`,
    `|---|---:|${"---:|".repeat(p.rounds)}`,
  );
  const others = ranked(run).filter((worker) => !worker.template);
  for (const id of ["template-no-assets", "template"]) {
    for (const other of others) {
      const ours = http.cells.call[id].runs;
      const perRound = ours.map((r, round) => r.rps / http.cells.call[other.id].runs[round].rps);
      lines.push(
        `| ${byId(run, id).label} / ${other.label} | ${times(medianOver(perRound, http.kept))} | ${perRound.map(times).join(" | ")} |`,
      );
    }
  }
  const assetHop = http.cells.call.template.runs.map((r, round) => r.rps / http.cells.call["template-no-assets"].runs[round].rps);
  lines.push(
    `| template as shipped / template without the asset hop | ${times(medianOver(assetHop, http.kept))} | ${assetHop.map(times).join(" | ")} |`,
  );

  const mrtrLine = (id) => {
    const ratio = ip.cells.mrtr[id].cpuUs / ip.cells.call[id].cpuUs;
    const overHttp = http.cells.mrtr ? ` (over HTTP ${times(http.cells.call[id].rps / http.cells.mrtr[id].rps)} by req/s)` : "";
    return `${byId(run, id).label} ${times(ratio)}${overHttp}`;
  };
  lines.push(
    "",
    "## MRTR retry",
    "",
    "Each server minted its own `requestState` (first call, answered `input_required`), afresh each round; the loop replays " +
      "the retry with that state and the form answer. Both verify an HMAC-SHA256 state on every retry; the template also binds " +
      "it (one tag) to the principal, method, tool name and the arguments as canonical JSON, the SDK codec here to the method. " +
      `Cost of a retry over a plain tools/call, by in-process CPU: ${run.workers
        .filter((w) => w.mrtr && ip.cells.mrtr[w.id])
        .map((w) => mrtrLine(w.id))
        .join("; ")}.`,
  );
  if (run.limited) {
    const l = run.limited;
    lines.push(
      "",
      "## Rate-limited load",
      "",
      `The template (no asset hop) with the limit the template ships (RATE_LIMITER: ${l.limit.limit} per ${l.limit.period} s per caller), ` +
        "loaded with tools/call from one client: almost every answer is a 429. Shown on its own, never as throughput or errors. " +
        "Every other line lifts that limit (one caller sends everything), keeping the binding.",
      "",
      "| answers/s | refused with 429 | p50 ms | p99 ms | workerd CPU per request, us | Retry-After | failed requests |",
      "|---:|---:|---:|---:|---:|---:|---:|",
      `| ${fmt(l.rps)} | ${fmt(l.limitedShare * 100, 1)}% | ${fmt(l.p50, 2)} | ${fmt(l.p99, 2)} | ${fmt(l.cpuUs)} | ${l.retryAfter} s | ${l.failures} |`,
    );
  }
  if (run.defaults) {
    const shipped = run.defaults.find((variant) => variant.id === "shipped");
    lines.push(
      "",
      "## What each default costs (in-process tools/call, template as shipped)",
      "",
      "| variant | in-process CPU per request, us | vs. shipped | rounds, us | failed requests |",
      "|---|---:|---:|---|---:|",
      ...run.defaults.map(
        (variant) =>
          `| ${variant.label} | ${fmt(variant.cpuUs)} | ` +
          `${variant.id === "shipped" ? "-" : `${variant.cpuUs >= shipped.cpuUs ? "+" : ""}${fmt(variant.cpuUs - shipped.cpuUs)} us`} | ` +
          `${variant.rounds.map((us) => fmt(us)).join(", ")} | ${variant.failures} |`,
      ),
    );
  }
  lines.push(
    "",
    "## Bundle size (`wrangler deploy --dry-run --minify`)",
    "",
    "| Worker | raw | gzip -9 (node:zlib) | wrangler's own figure (raw / gzip) | largest parts (minified KiB, before gzip) |",
    "|---|---:|---:|---:|---|",
    ...run.workers.map(
      (worker) =>
        `| ${worker.label} | ${kib(worker.size.raw)} | ${kib(worker.size.gzip)} | ` +
        `${worker.size.wrangler ? `${worker.size.wrangler.rawKiB} / ${worker.size.wrangler.gzipKiB} KiB` : "n/a"} | ` +
        `${worker.size.contributors
          .slice(0, 4)
          .map((part) => `${part.name} ${(part.bytes / 1024).toFixed(1)}`)
          .join(", ")} |`,
    ),
    "",
    "## Startup",
    "",
    `Module evaluation: a fresh workerd per run whose entry imports the bundle on one request; cost = that request's time minus ` +
      `the same request once the import is cached; median of ${p.importRuns} runs, net = minus the empty Worker. ` +
      `\`wrangler check startup\`: non-idle CPU in its V8 profile of the same import, median of ${p.checkRuns} runs; ` +
      "its sampling is sparse (1 to 3 samples for a small Worker), so treat it as coarse (+-10 ms).",
    "",
    "| Worker | module evaluation, ms | net, ms | runs, ms | `wrangler check startup` CPU, ms | net, ms |",
    "|---|---:|---:|---|---:|---:|",
    ...run.workers
      .filter((worker) => !worker.sameBundle)
      .map(
        (worker) =>
          `| ${worker.label} | ${fmt(worker.startup.importMs, 2)} | ${worker.id === "empty" ? "-" : fmt(worker.startup.importNet, 2)} | ` +
          `${worker.startup.importRuns.map((ms) => fmt(ms, 1)).join(", ")} | ${fmt(worker.startup.checkMs, 1)} | ` +
          `${worker.id === "empty" ? "-" : fmt(worker.startup.checkNet, 1)} |`,
      ),
    "",
    "## How each Worker is set up and called",
    "",
    "| Worker | exact packages | setup | how the bench calls it | answers as |",
    "|---|---|---|---|---|",
    ...run.workers
      .filter((worker) => worker.loaded)
      .map(
        (worker) =>
          `| ${worker.label} | ${worker.packages?.length ? worker.packages.map((p) => `${p.name} ${p.version}`).join(", ") : "–"} | ` +
          `${worker.setup} | ${worker.called} | ${[...new Set(Object.values(worker.forms ?? {}))].join(", ") || "JSON"} |`,
      ),
    "",
    "## About this run",
    "",
    "- The template rows run the engine with the template's production defaults from the root wrangler.toml (production mode, " +
      "ACCESS_LOG=errors, traces on, every Durable Object binding, the RATE_LIMITER binding with its limit lifted, the cron " +
      "trigger declared) and a bench STATE_KEYS secret. Every guard is on (Host and Origin checks, limits, the rate limiter).",
    "- Peers speak the revision a real client of theirs uses: 2026-07-28 where they serve it (headers and `_meta` per request), " +
      "the 2025 stateless POST otherwise. Peers that answer a POST as an SSE stream do so because a conforming client always " +
      "accepts `text/event-stream`; the bench reads every answer to its end, in-process and over HTTP alike.",
    `- The load generator runs on the same ${run.cpus} cores as workerd, and each workerd serves from one thread, so absolute ` +
      "figures are this machine's; compare ratios. HTTP throughput moves by 10-20% between rounds on a shared machine; in-process " +
      "CPU per request (all of workerd's threads: the Worker, its Durable Objects and binding Workers) is the steadier figure.",
    "- Harness: bench/run.mjs (Workers in bench/workers/, their table in bench/lib/workers.mjs); raw data in bench/results/latest.json.",
    "",
  );
  return lines.join("\n");
}

/** What makes these figures not the ones to quote: a quick trial's knobs, a busy machine, noisy rounds (`kind`: a short name). */
export function warnings(run) {
  const found = [];
  if (run.quickTrial?.length)
    found.push({
      kind: "a quick trial",
      text: `Quick trial (${run.quickTrial.join(", ")} set): fewer or shorter runs than \`npm run bench\` makes, so not the figures to quote.`,
    });
  if (run.loadBefore >= run.cpus)
    found.push({
      kind: "a busy machine",
      text: `Busy machine: a 1-minute load average of ${run.loadBefore.toFixed(2)} on ${run.cpus} cores before the run; rerun when it is quiet.`,
    });
  for (const [name, noisy] of [
    ["in-process", run.inprocess.noisy],
    ["HTTP", run.http.noisy],
  ]) {
    if (noisy.length)
      found.push({
        kind: `noisy ${name} rounds`,
        text: `Noisy ${name} rounds: ${noisyText(noisy, run.params.rounds)}; rerun when the machine is quiet.`,
      });
  }
  return found;
}

function noisyText(noisy, rounds) {
  if (!noisy.length) return "none";
  const all = noisy.length === rounds ? " (every round: all of them are kept)" : "";
  return `round${noisy.length > 1 ? "s" : ""} ${noisy.map((round) => round + 1).join(", ")}${all}`;
}

const COLORS = { floor: "#9e9e9e", template: "#1f77b4", peer: "#ff7f0e", list: "#ffbb78", templateList: "#aec7e8" };

/** Two panels of horizontal bars, one line per Worker: in-process CPU per request, and tools/call req/s over HTTP. */
export function svg(run) {
  const workers = ranked(run);
  const width = 900;
  const left = 330;
  const right = 70;
  const lineHeight = 34;
  const panelHeight = workers.length * lineHeight + 50;
  // A run that is not the one to quote says so on a line of its own, under the title.
  const warned = warnings(run).length > 0;
  const top = warned ? 66 : 50;
  const height = top + 10 + 2 * panelHeight + 30;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">MCP on Workers: the template, the floor and every peer</text>`,
    `<text x="${width / 2}" y="40" text-anchor="middle" font-size="10" fill="#555">${escapeHtml(`${run.date}, commit ${run.commit}${run.dirty ? " (modified)" : ""}; medians of ${run.params.rounds} interleaved rounds; ${run.command}`)}</text>`,
  ];
  const colorOf = (worker, second) =>
    worker.floor ? COLORS.floor : worker.template ? (second ? COLORS.templateList : COLORS.template) : second ? COLORS.list : COLORS.peer;
  const panel = (top, title, bars) => {
    const values = workers.flatMap((worker) => bars.map((bar) => bar.value(worker))).filter(Number.isFinite);
    const max = Math.max(...values, 1);
    const plotWidth = width - left - right;
    parts.push(`<text x="20" y="${top + 14}" font-size="13" font-weight="bold">${escapeHtml(title)}</text>`);
    workers.forEach((worker, i) => {
      const y = top + 28 + i * lineHeight;
      parts.push(`<text x="${left - 8}" y="${y + 15}" text-anchor="end">${escapeHtml(worker.label.replaceAll("`", ""))}</text>`);
      bars.forEach((bar, b) => {
        const value = bar.value(worker);
        const barHeight = (lineHeight - 8) / bars.length;
        const w = Number.isFinite(value) ? (plotWidth * value) / max : 0;
        const by = y + b * barHeight;
        parts.push(
          `<rect x="${left}" y="${by}" width="${w}" height="${barHeight - 1}" fill="${colorOf(worker, b > 0)}"><title>${escapeHtml(`${worker.label.replaceAll("`", "")}, ${bar.label}: ${fmt(value)} ${bar.unit}`)}</title></rect>`,
          `<text x="${left + w + 4}" y="${by + barHeight - 3}" font-size="10">${Number.isFinite(value) ? `${fmt(value)}${bars.length > 1 ? ` ${bar.short}` : ""}` : "n/a"}</text>`,
        );
      });
    });
  };
  if (warned)
    parts.push(
      `<text x="${width / 2}" y="56" text-anchor="middle" font-size="12" font-weight="bold" fill="#c00">Not the figures to quote: ${escapeHtml(
        warnings(run)
          .map((w) => w.kind)
          .join(", "),
      )} (see latest.md)</text>`,
    );
  panel(top, "In-process workerd CPU per request, us (lower is better): tools/call (dark), tools/list (light)", [
    { label: "tools/call", short: "call", unit: "us", value: (w) => run.inprocess.cells.call[w.id]?.cpuUs },
    { label: "tools/list", short: "list", unit: "us", value: (w) => run.inprocess.cells.list[w.id]?.cpuUs },
  ]);
  panel(top + panelHeight, "tools/call over HTTP, requests/s (higher is better)", [
    { label: "tools/call", short: "req/s", unit: "req/s", value: (w) => run.http.cells.call[w.id]?.rps },
  ]);
  const real = byId(run, "real");
  parts.push(
    `<text x="20" y="${height - 16}" fill="#555">${escapeHtml(`Real template: ${kib(real.size.gzip)} gzip, startup ${signed(real.startup.checkNet)} ms (check startup), ${signed(real.startup.importNet)} ms (module evaluation).`)}</text>`,
    "</svg>",
    "",
  );
  return parts.join("\n");
}
