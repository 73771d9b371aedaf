/**
 * Turns one bench run into bench/results/latest.md (tables) and latest.svg (hand-drawn bars, no chart library).
 */
const fmt = (value, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");
const kib = (bytes) => `${(bytes / 1024).toFixed(2)} KiB`;
const ratio = (a, b) => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}x` : "n/a");
const mark = (ok) => (ok === undefined ? "n/a" : ok ? "met" : "**missed**");

/** The targets from the issue, each with what was measured: by throughput, and by workerd CPU per request beside it. */
export function targets(run) {
  const load = run.load;
  const real = run.workers.find((worker) => worker.id === "real");
  const template = run.workers.find((worker) => worker.id === "template");
  const byCpu = (value) => (Number.isFinite(value) ? ` (by CPU/req: ${value.toFixed(2)}x)` : "");
  const vsBaseline = (scenario, floor) => {
    const { template: ours, baseline } = load[scenario];
    const value = ours.rps / baseline.rps;
    const label = run.scenarios.find((s) => s.id === scenario).label;
    return {
      name: `${label} throughput >= ${floor}x baseline`,
      measured: `${value.toFixed(2)}x${byCpu(baseline.cpuUs / ours.cpuUs)}`,
      ok: value >= floor,
    };
  };
  const callVsSdk = load.call.template.rps / load.call.sdk.rps;
  // Cost per request = 1 / throughput, so retry cost / call cost = call req/s / retry req/s.
  const mrtrCost = load.call.template.rps / load.mrtr.template.rps;
  return [
    vsBaseline("call", 0.85),
    {
      name: "tools/call throughput >= 2x SDK",
      measured: `${callVsSdk.toFixed(2)}x${byCpu(load.call.sdk.cpuUs / load.call.template.cpuUs)}`,
      ok: callVsSdk >= 2,
    },
    vsBaseline("discover", 0.8),
    vsBaseline("list", 0.8),
    {
      name: "MRTR retry <= 1.2x the cost of a plain tools/call",
      measured: `${mrtrCost.toFixed(2)}x${byCpu(load.mrtr.template.cpuUs / load.call.template.cpuUs)}`,
      ok: mrtrCost <= 1.2,
    },
    {
      name: "real template bundle (every feature) <= 100 KiB gzip, minified",
      measured: kib(real.size.gzip),
      ok: real.size.gzip <= 100 * 1024,
    },
    {
      name: "startup <= +3 ms over an empty Worker (`wrangler check startup`, median; 1-3 samples a profile, +-10 ms)",
      measured: `+${fmt(real.startup.checkNet, 1)} ms (real template), +${fmt(template.startup.checkNet, 1)} ms (bench template)`,
      ok: real.startup.checkNet <= 3,
    },
    {
      name: "startup <= +3 ms over an empty Worker (module evaluation, median)",
      measured: `+${fmt(real.startup.importNet, 1)} ms (real template), +${fmt(template.startup.importNet, 1)} ms (bench template)`,
      ok: real.startup.importNet <= 3,
    },
  ];
}

/**
 * How much the baseline (whose work never changes) moved between rounds: the largest max/min across scenarios,
 * leaving out the best and the worst round when there are 5 or more (the median ignores those too).
 * Well above 1 means something else was using the CPU during the run.
 */
export function noise(run) {
  const spreads = run.scenarios.map((scenario) => {
    const rates = run.load[scenario.id].baseline.runs.map((r) => r.rps).sort((a, b) => a - b);
    const kept = rates.length >= 5 ? rates.slice(1, -1) : rates;
    return kept[kept.length - 1] / kept[0];
  });
  return Math.max(...spreads);
}

export const NOISY = 1.3;

export function markdown(run) {
  const loaded = run.workers.filter((worker) => worker.loaded);
  const lines = [];
  const p = run.params;
  lines.push(
    "# Benchmark: template engine vs. runtime floor vs. official SDK",
    "",
    `Made by \`${run.command}\` on ${run.date} (took ${fmt(run.elapsedSeconds)} s).`,
    "",
    `- Source: commit \`${run.commit}\`${run.dirty ? " with uncommitted changes in the work tree" : ""}.`,
    `- Machine: ${run.machine}; Node ${run.node}.`,
    `- Toolchain: wrangler ${run.versions.wrangler}, miniflare ${run.versions.miniflare}, workerd ${run.versions.workerd}; ` +
      `@modelcontextprotocol/server ${run.versions.sdk}; autocannon ${run.versions.autocannon}; zod ${run.versions.zod}.`,
    `- Load: every Worker is a \`wrangler deploy --dry-run --minify\` bundle served by Miniflare straight from workerd on 127.0.0.1 ` +
      `(no \`wrangler dev\` proxy). autocannon, ${p.connections} connections, ${p.rounds} interleaved rounds x ${p.seconds} s per ` +
      `scenario and Worker after a ${p.warmupSeconds} s warm-up; figures are medians across rounds, latencies from per-response timings.`,
    `- Quiet machine check: 1-minute load average ${run.loadBefore.toFixed(2)} before the run; the baseline's throughput ` +
      `moved by up to ${((noise(run) - 1) * 100).toFixed(0)}% between rounds (best and worst round left out when there are 5 or more).` +
      (noise(run) > NOISY ? " **Noisy run: something else was using the CPU; rerun on a quiet machine before trusting the ratios.**" : ""),
    "",
    "## Targets",
    "",
    "| target | measured | result |",
    "|---|---|---|",
    ...targets(run).map((target) => `| ${target.name} | ${target.measured} | ${mark(target.ok)} |`),
    "",
    "## Throughput and latency",
    "",
    "| scenario | Worker | req/s | p50 ms | p99 ms | workerd CPU per request, us | req/s in each round | failed requests |",
    "|---|---|---:|---:|---:|---:|---|---:|",
  );
  for (const scenario of run.scenarios) {
    for (const worker of loaded) {
      const cell = run.load[scenario.id][worker.id];
      lines.push(
        `| ${scenario.label} | ${worker.label} | ${fmt(cell.rps)} | ${fmt(cell.p50, 2)} | ${fmt(cell.p99, 2)} | ${fmt(cell.cpuUs)} | ` +
          `${cell.runs.map((r) => fmt(r.rps)).join(", ")} | ${cell.failures} |`,
      );
    }
  }
  lines.push(
    "",
    "## Ratios (template engine over the others)",
    "",
    "| scenario | req/s template / baseline | req/s template / SDK | CPU/req baseline / template | CPU/req SDK / template | p50 SDK / template |",
    "|---|---:|---:|---:|---:|---:|",
  );
  for (const scenario of run.scenarios) {
    const cells = run.load[scenario.id];
    lines.push(
      `| ${scenario.label} | ${ratio(cells.template.rps, cells.baseline.rps)} | ${ratio(cells.template.rps, cells.sdk.rps)} | ` +
        `${ratio(cells.baseline.cpuUs, cells.template.cpuUs)} | ${ratio(cells.sdk.cpuUs, cells.template.cpuUs)} | ` +
        `${ratio(cells.sdk.p50, cells.template.p50)} |`,
    );
  }
  if (run.limited) {
    const l = run.limited;
    lines.push(
      "",
      "## Rate-limited load",
      "",
      `The template engine with the limit the template ships (RATE_LIMITER: ${l.limit.limit} per ${l.limit.period} s per caller), ` +
        "loaded with tools/call from one client: almost every answer is a 429. Shown on its own, never as throughput or errors.",
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
      "## What each default costs (tools/call, template engine)",
      "",
      "| variant | req/s | workerd CPU per request, us | CPU/req vs. shipped | failed requests |",
      "|---|---:|---:|---:|---:|",
      ...run.defaults.map(
        (variant) =>
          `| ${variant.label} | ${fmt(variant.rps)} | ${fmt(variant.cpuUs)} | ` +
          `${variant.id === "shipped" ? "-" : `${variant.cpuUs >= shipped.cpuUs ? "+" : ""}${fmt(variant.cpuUs - shipped.cpuUs)} us`} | ${variant.failures} |`,
      ),
    );
  }
  const mrtr = (id) =>
    `${ratio(run.load.call[id].rps, run.load.mrtr[id].rps)} by req/s, ${ratio(run.load.mrtr[id].cpuUs, run.load.call[id].cpuUs)} by CPU/req`;
  lines.push(
    "",
    `MRTR retry cost relative to a plain tools/call: template ${mrtr("template")}; SDK ${mrtr("sdk")}.`,
    "",
    "## Bundle size (`wrangler deploy --dry-run --minify`)",
    "",
    "| Worker | raw | gzip -9 (node:zlib) | wrangler's own figure (raw / gzip) | largest parts (minified, before gzip) |",
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
      `its sampling is sparse, so treat it as coarse (+-10 ms).`,
    "",
    "| Worker | module evaluation, ms | net vs. empty, ms | runs, ms | `wrangler check startup` CPU, ms | net vs. empty, ms |",
    "|---|---:|---:|---|---:|---:|",
    ...run.workers.map(
      (worker) =>
        `| ${worker.label} | ${fmt(worker.startup.importMs, 2)} | ${worker.id === "empty" ? "-" : fmt(worker.startup.importNet, 2)} | ` +
        `${worker.startup.importRuns.map((ms) => fmt(ms, 1)).join(", ")} | ${fmt(worker.startup.checkMs, 1)} | ` +
        `${worker.id === "empty" ? "-" : fmt(worker.startup.checkNet, 1)} |`,
    ),
    "",
    "## Notes",
    "",
    `- Workers: ${run.workers.map((worker) => `**${worker.label}**: ${worker.note}`).join("; ")}.`,
    "- The baseline answers every scenario with the same fixed JSON-RPC result; it reads the request body but parses nothing.",
    "- Workers run as they would deploy: the template engine with the template's production defaults (production mode, " +
      "ACCESS_LOG=errors, traces on, the RATE_LIMITER binding with a limit the load never reaches), and the SDK Worker builds " +
      "a fresh `McpServer` per request, as `createMcpHandler` does.",
    "- MRTR retry: each Worker minted its own `requestState` once (first call, answered `input_required`); the load replays the " +
      "retry with that state and the form answer. Both servers verify an HMAC-SHA256 state on every retry; the template also " +
      "binds it (one HMAC tag) to the principal, method, tool name and the arguments as canonical JSON, the SDK codec here to the method.",
    `- The load generator runs on the same ${run.cpus} cores as workerd, and each workerd serves from one thread, so absolute ` +
      "figures are this machine's; compare ratios. Throughput moves by 10-20% between rounds on a shared machine; workerd CPU " +
      "per request (all of its threads, Miniflare's entry Worker included, from /proc) is steadier and is shown beside it.",
    "- Harness: bench/run.mjs (Workers in bench/workers/); raw data in bench/results/latest.json.",
    "",
  );
  return lines.join("\n");
}

/** The smallest "round" number (1, 1.2, 1.6, 2, 2.4, 3, 4, 5, 6, 8 x 10^n) at or above `value`: quarter ticks stay readable. */
function niceCeiling(value) {
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 1.2, 1.6, 2, 2.4, 3, 4, 5, 6, 8, 10].map((step) => step * power).find((candidate) => candidate >= value);
}

const COLORS = { baseline: "#9e9e9e", template: "#1f77b4", sdk: "#ff7f0e" };

/** Two panels of grouped bars: throughput and p50 latency per scenario, one bar per loaded Worker. */
export function svg(run) {
  const loaded = run.workers.filter((worker) => worker.loaded);
  const width = 860;
  const panelHeight = 260;
  const left = 70;
  const groupWidth = (width - left - 20) / run.scenarios.length;
  const barWidth = Math.min(48, (groupWidth - 30) / loaded.length);
  const escapeHtml = (text) => String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${2 * panelHeight + 150}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">MCP Worker bench: template engine vs. baseline vs. SDK 2.4.0</text>`,
    `<text x="${width / 2}" y="40" text-anchor="middle" fill="#555">${escapeHtml(`${run.command}, ${run.date}, ${run.params.connections} connections, medians of ${run.params.rounds} rounds x ${run.params.seconds} s`)}</text>`,
  ];
  const panel = (top, title, metric, unit, digits) => {
    const max = niceCeiling(
      Math.max(...run.scenarios.flatMap((s) => loaded.map((w) => run.load[s.id][w.id][metric]).filter(Number.isFinite)), 1),
    );
    const plotTop = top + 28;
    const plotHeight = panelHeight - 70;
    const base = plotTop + plotHeight;
    parts.push(`<text x="${left}" y="${top + 14}" font-size="13" font-weight="bold">${escapeHtml(title)}</text>`);
    for (let i = 0; i <= 4; i++) {
      const y = base - (plotHeight * i) / 4;
      parts.push(`<line x1="${left}" x2="${width - 20}" y1="${y}" y2="${y}" stroke="#e5e5e5"/>`);
      const tick = (max * i) / 4;
      const digits = Number.isInteger(tick) ? 0 : Number.isInteger(tick * 10) ? 1 : 2;
      parts.push(`<text x="${left - 6}" y="${y + 4}" text-anchor="end" fill="#555">${fmt(tick, digits)}</text>`);
    }
    run.scenarios.forEach((scenario, g) => {
      const groupLeft = left + g * groupWidth + (groupWidth - barWidth * loaded.length) / 2;
      loaded.forEach((worker, b) => {
        const value = run.load[scenario.id][worker.id][metric];
        const height = Number.isFinite(value) ? (plotHeight * value) / max : 0;
        const x = groupLeft + b * barWidth;
        parts.push(
          `<rect x="${x + 2}" y="${base - height}" width="${barWidth - 4}" height="${height}" fill="${COLORS[worker.id]}"><title>${escapeHtml(`${worker.label}, ${scenario.label}: ${fmt(value, digits)} ${unit}`)}</title></rect>`,
        );
        parts.push(
          `<text x="${x + barWidth / 2}" y="${base - height - 4}" text-anchor="middle" font-size="10">${fmt(value, digits)}</text>`,
        );
      });
      parts.push(
        `<text x="${left + g * groupWidth + groupWidth / 2}" y="${base + 18}" text-anchor="middle">${escapeHtml(scenario.label)}</text>`,
      );
    });
    parts.push(`<line x1="${left}" x2="${width - 20}" y1="${base}" y2="${base}" stroke="#333"/>`);
  };
  panel(50, "Throughput, requests/s (higher is better)", "rps", "req/s", 0);
  panel(50 + panelHeight, "Latency p50, ms (lower is better)", "p50", "ms", 2);
  const legendY = 2 * panelHeight + 85;
  loaded.forEach((worker, i) => {
    const x = left + i * 230;
    parts.push(`<rect x="${x}" y="${legendY - 10}" width="12" height="12" fill="${COLORS[worker.id]}"/>`);
    parts.push(`<text x="${x + 18}" y="${legendY}">${escapeHtml(worker.label)}</text>`);
  });
  const sized = run.workers.filter((worker) => ["template", "sdk", "real"].includes(worker.id));
  parts.push(
    `<text x="${left}" y="${legendY + 24}" fill="#555">${escapeHtml(`Bundle, gzip -9 of the minified upload: ${sized.map((w) => `${w.label} ${kib(w.size.gzip)}`).join(", ")}.`)}</text>`,
    `<text x="${left}" y="${legendY + 42}" fill="#555">${escapeHtml(`Startup (module evaluation) over an empty Worker: ${sized.map((w) => `${w.label} +${fmt(w.startup.importNet, 1)} ms`).join(", ")}.`)}</text>`,
  );
  parts.push("</svg>", "");
  return parts.join("\n");
}
