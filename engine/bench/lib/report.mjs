/**
 * Turns one bench run into bench/results/latest.md (tables) and latest.svg (hand-drawn bars, no chart library), and
 * the two generated blocks the docs share with it (`summary`: the table of every Worker and how they differ, in the
 * package's README, docs/benchmarks.md and results/latest.md; `targetTable`: the targets, in docs/benchmarks.md and
 * results/latest.md), so the three always say the same thing (lib/generated.mjs writes them, test/repo checks them).
 *
 * Scoring: every target is a median of per-round ratios over the rounds both Workers kept (lib/stats.mjs), never a
 * ratio of medians; startup is scored by module evaluation, `wrangler check startup` being too coarse to rank by.
 */
import { perRoundRatio } from "./stats.mjs";

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
const plain = (label) => label.replaceAll("`", "");

/**
 * A markdown table laid out as the repository's formatter (Biome) lays one out: every cell padded to its column's
 * width, right-aligned columns (`align` "r") padded on the left, the separator as wide as the column. Why: the
 * generated blocks sit in formatted docs, and must stay exactly as written there.
 */
export function table(header, align, rows) {
  const widths = header.map((cell, column) => Math.max(3, cell.length, ...rows.map((row) => row[column].length)));
  const pad = (cell, column) => (align[column] === "r" ? cell.padStart(widths[column]) : cell.padEnd(widths[column]));
  const line = (cells) => `| ${cells.map(pad).join(" | ")} |`;
  const separator = widths.map((width, column) => (align[column] === "r" ? `${"-".repeat(width - 1)}:` : "-".repeat(width)));
  return [line(header), `| ${separator.join(" | ")} |`, ...rows.map(line)].join("\n");
}

/** The targets' thresholds (the performance issue's). */
export const TARGET = {
  inProcessVsPeers: 0.9,
  /** Against the template before the pay-for-what-you-use work (`BEFORE`), and against mcp-lite as a conforming client calls it. */
  inProcessHalf: 0.5,
  floorShare: 0.85,
  mrtrOverCall: 1.2,
  listenersP99Ms: 250,
  listeners: 1000,
  uploadKiB: 100,
};

/**
 * The template's in-process CPU per request before the pay-for-what-you-use work (issue 37): the quiet run of 82fd2d1
 * (results/latest.json of that commit), under Miniflare 4. What "half today's template" is scored against. Not
 * re-measurable under Miniflare 5 (82fd2d1's bench does not run on it), so a run under another Miniflare says so.
 */
export const BEFORE = { commit: "82fd2d1", miniflare: "4", call: 52.4, list: 36.3 };

/** The Miniflare major version a run used ("5" of "5.20261117.0-beta"). */
const miniflareMajor = (run) => String(run.versions?.miniflare ?? "").split(".")[0];

/** Why the "half" target's reference stays fixed on a run under another Miniflare: "; not re-measurable under Miniflare 5". */
function beforeNote(run) {
  const major = miniflareMajor(run);
  return major && major !== BEFORE.miniflare ? `; not re-measurable under Miniflare ${major}` : "";
}

/**
 * What served the template rows' RATE_LIMITER binding, said in the report when the run records it (`run.rateLimiter`,
 * from run.mjs; older runs used Miniflare's own simulator and say nothing of it).
 */
const IN_ISOLATE_LIMITER =
  "the RATE_LIMITER binding is served by the bench Worker's in-isolate counter (a fixed window per caller with the configured " +
  "limit and period, as Miniflare 4's local simulator counted), not Miniflare 5's simulator, whose every `limit()` is a Durable " +
  "Object fetch: a local cost that is neither the engine's nor production's (Cloudflare's binding is native)";

/** The peer whose conforming call the template must beat by half (mcp-lite's JSON path is a row of its own). */
const CONFORMING_MCP_LITE = "mcp-lite";

const byId = (run, id) => run.workers.find((worker) => worker.id === id);
const peersOf = (run) => run.workers.filter((worker) => worker.peer);
const TEMPLATE = "template";

/** One cell's figures per round and the rounds kept for it: in-process CPU (us) or HTTP req/s. */
function series(run, phase, scenario, id) {
  const cell = (phase === "inprocess" ? run.inprocess : run.http).cells[scenario]?.[id];
  if (!cell) return undefined;
  // "http": req/s; "http-cpu": workerd CPU per request over HTTP; "inprocess": in-process CPU per request.
  const values = phase === "inprocess" ? cell.rounds.map((r) => r.cpuUs) : cell.runs.map((r) => (phase === "http" ? r.rps : r.cpuUs));
  return { values, kept: cell.kept ?? values.map((_, round) => round), cell };
}

/** Per-round ratio of two Workers' figures in one phase and scenario (lib/stats.mjs); undefined if either is missing. */
export function ratio(run, phase, scenario, ours, theirs) {
  const a = series(run, phase, scenario, ours);
  const b = series(run, phase, scenario, theirs);
  return a && b ? perRoundRatio(a, b) : undefined;
}

/** The peers measured in a phase and scenario, with the template's per-round ratio to each. */
function againstPeers(run, phase, scenario) {
  return peersOf(run)
    .map((peer) => ({ peer, ratio: ratio(run, phase, scenario, TEMPLATE, peer.id) }))
    .filter((entry) => entry.ratio);
}

const label = (run, id) => byId(run, id)?.label ?? id;

/**
 * The targets of the performance issue, each with what was measured. The template row is the one production runs
 * (no asset router in front); the row behind Miniflare's local asset router is shown, never scored.
 */
export function targets(run) {
  const ip = run.inprocess.cells;
  const real = byId(run, "real");
  const template = byId(run, TEMPLATE);
  const peers = peersOf(run);
  const inProcess = (scenario, name) => {
    const entries = againstPeers(run, "inprocess", scenario);
    const full = `${name}: in-process CPU per request at most ${TARGET.inProcessVsPeers}x every peer's (per-round median of template / peer)`;
    if (!entries.length) return { name: full, measured: "no peer measured", ok: undefined };
    const worst = entries.reduce((a, b) => (b.ratio.median > a.ratio.median ? b : a));
    const ours = ip[scenario][TEMPLATE].cpuUs;
    return {
      name: full,
      measured:
        `${times(worst.ratio.median)} against ${worst.peer.label}, the closest peer (template ${fmt(ours)} us, ` +
        `${worst.peer.label} ${fmt(ip[scenario][worst.peer.id].cpuUs)} us); the lowest of every Worker: ${worst.ratio.median < 1 ? "yes" : "no"}`,
      ok: worst.ratio.median <= TARGET.inProcessVsPeers,
    };
  };
  const halved = (scenario, name) => {
    const full =
      `${name}: in-process CPU per request at most ${TARGET.inProcessHalf}x the template's at ${BEFORE.commit} under Miniflare ${BEFORE.miniflare} ` +
      `(${fmt(BEFORE[scenario])} us${beforeNote(run)}) ` +
      `and at most ${TARGET.inProcessHalf}x mcp-lite's as a conforming client calls it (per-round median of template / mcp-lite)`;
    const ours = ip[scenario]?.[TEMPLATE]?.cpuUs;
    // A run from before the bench called mcp-lite as a conforming client does had it answer JSON: not this comparison.
    const calledConforming = byId(run, CONFORMING_MCP_LITE)?.answers === "SSE";
    const conforming = calledConforming ? ratio(run, "inprocess", scenario, TEMPLATE, CONFORMING_MCP_LITE) : undefined;
    if (ours === undefined) return { name: full, measured: "not measured in this run", ok: undefined };
    const before = ours / BEFORE[scenario];
    return {
      name: full,
      measured:
        `${times(before)} the template at ${BEFORE.commit} under Miniflare ${BEFORE.miniflare} (${fmt(ours)} us)` +
        (conforming
          ? `; ${times(conforming.median)} mcp-lite as a conforming client calls it (SSE)`
          : "; mcp-lite not measured as a conforming client calls it"),
      ok: before <= TARGET.inProcessHalf && (conforming ? conforming.median <= TARGET.inProcessHalf : undefined),
    };
  };
  const aheadOverHttp = (scenario, name) => {
    const full = `${name} over HTTP: fewer workerd CPU us per request than every peer in every round (template / peer below 1 in each kept round)`;
    if (!run.http.cells[scenario]) return { name: full, measured: "not measured in this run", ok: undefined };
    const entries = againstPeers(run, "http-cpu", scenario);
    if (!entries.length) return { name: full, measured: "no peer measured", ok: undefined };
    const highest = entries.reduce((a, b) => (b.ratio.max > a.ratio.max ? b : a));
    const behind = entries.filter((entry) => entry.ratio.max >= 1).map((entry) => entry.peer.label);
    return {
      name: full,
      measured:
        `highest round ${times(highest.ratio.max)} against ${highest.peer.label} (its per-round median ${times(highest.ratio.median)})` +
        `${behind.length ? `; behind or level in some round: ${behind.join(", ")}` : ""}`,
      ok: behind.length === 0,
    };
  };
  const floor = ratio(run, "http", "call", TEMPLATE, "floor");
  // The retry over a plain call of the same Worker, per round (both measured in the same round, one after the other).
  const retry = ip.mrtr?.[TEMPLATE] && ip.call[TEMPLATE] ? retryOverCall(run) : undefined;
  const listen = listenRow(run);
  const bestStartup = peers.length ? peers.reduce((a, b) => (b.startup.importNet < a.startup.importNet ? b : a)) : undefined;
  return [
    halved("call", "tools/call"),
    halved("list", "tools/list"),
    inProcess("call", "tools/call"),
    inProcess("list", "tools/list"),
    aheadOverHttp("call", "tools/call"),
    aheadOverHttp("list", "tools/list"),
    {
      name: `tools/call over HTTP at least ${TARGET.floorShare}x the floor's req/s (per-round median)`,
      measured: floor
        ? `${times(floor.median)} (rounds: ${perRound(floor.ratios, floor.kept, times).join(", ")}; * a round left out as noisy)`
        : "not measured in this run",
      ok: floor ? floor.median >= TARGET.floorShare : undefined,
    },
    {
      name: `MRTR retry at most ${TARGET.mrtrOverCall}x a plain tools/call (in-process CPU, per-round median)`,
      measured: retry
        ? `${times(retry.median)} (${fmt(ip.mrtr[TEMPLATE].cpuUs)} vs. ${fmt(ip.call[TEMPLATE].cpuUs)} us)${retryOverHttpText(run)}`
        : "not measured in this run",
      ok: retry ? retry.median <= TARGET.mrtrOverCall : undefined,
    },
    {
      name: `${TARGET.listeners.toLocaleString("en")} listeners: p99 delivery at most ${TARGET.listenersP99Ms} ms (\`npm run bench:listen\`)`,
      measured: listen
        ? `${fmt(listen.p99)} ms (p50 ${fmt(listen.p50)} ms; run of ${run.listen.date})`
        : "not measured (no results/listen.json)",
      ok: listen ? listen.p99 <= TARGET.listenersP99Ms : undefined,
    },
    {
      name: `real template upload at most ${TARGET.uploadKiB} KiB gzip (every feature, minified)`,
      measured: `${kib(real.size.gzip)} (${real.size.gzip} B)`,
      ok: real.size.gzip <= TARGET.uploadKiB * 1024,
    },
    startupTarget(run, real, template, bestStartup),
  ];
}

/**
 * Startup is best only beyond noise: every module evaluation run of the real template faster than every run of the
 * best peer. A lower median whose runs overlap the peer's is within noise, said so, and not met.
 */
function startupTarget(run, real, template, bestStartup) {
  const name = "startup the best of the table (module evaluation, net of the empty Worker, every run ahead of every run of the best peer)";
  if (!bestStartup) return { name, measured: "no peer measured", ok: undefined };
  const ours = netRuns(run, real);
  const theirs = netRuns(run, bestStartup);
  const separated = Math.max(...ours) < Math.min(...theirs);
  const ahead = real.startup.importNet < bestStartup.startup.importNet;
  const verdict = separated ? "" : ahead ? "; ahead by median only, the runs overlap: within noise" : "; behind by median";
  return {
    name,
    measured:
      `real template ${signed(real.startup.importNet)} ms (runs ${spread(ours)}), bench template ${signed(template.startup.importNet)} ms; ` +
      `best peer ${bestStartup.label} ${signed(bestStartup.startup.importNet)} ms (runs ${spread(theirs)})${verdict}`,
    ok: separated,
  };
}

/** A Worker's module evaluation runs, net of the empty Worker's median, in ms. */
function netRuns(run, worker) {
  const empty = byId(run, "empty")?.startup.importMs ?? 0;
  return worker.startup.importRuns.map((ms) => ms - empty);
}

/** The range of some runs: "1.1 to 2.9". */
const spread = (runs) => `${fmt(Math.min(...runs), 1)} to ${fmt(Math.max(...runs), 1)}`;

/** The template's retry / plain call per round, in-process (each round measures both, one after the other). */
function retryOverCall(run) {
  const mrtr = series(run, "inprocess", "mrtr", TEMPLATE);
  const call = series(run, "inprocess", "call", TEMPLATE);
  return perRoundRatio(mrtr, call);
}

function retryOverHttpText(run) {
  const mrtr = series(run, "http", "mrtr", TEMPLATE);
  const call = series(run, "http", "call", TEMPLATE);
  if (!mrtr || !call) return "";
  // req/s: a plain call's over the retry's is the retry's cost over the call's.
  return `; over HTTP ${times(perRoundRatio(call, mrtr).median)} by req/s`;
}

/** The 1,000-listener row of the last `npm run bench:listen`, if the run has one. */
function listenRow(run) {
  return run.listen?.rows?.find((row) => row.size === TARGET.listeners);
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

/**
 * Loaded Workers: the template first, then the floor and the guarantees' reference, then the rest by in-process
 * tools/call CPU, cheapest first.
 */
function ranked(run) {
  const cpu = (worker) => run.inprocess.cells.call[worker.id]?.cpuUs ?? Infinity;
  const rank = (worker) => (worker.id === TEMPLATE ? 0 : worker.floor ? 1 : worker.reference ? 2 : worker.template ? 4 : 3);
  return run.workers.filter((worker) => worker.loaded).sort((a, b) => rank(a) - rank(b) || cpu(a) - cpu(b));
}

/** Every noisy round, per phase, as "Worker scenario round N". */
function noisyList(run) {
  const list = (cells, phase) =>
    Object.entries(cells).flatMap(([scenario, byWorker]) =>
      Object.entries(byWorker).flatMap(([id, cell]) =>
        (cell.noisy ?? []).map((round) => `${plain(label(run, id))} ${scenario} round ${round + 1}${phase}`),
      ),
    );
  return [...list(run.inprocess.cells, " (in-process)"), ...list(run.http.cells, " (HTTP)")];
}

/** The cells where noise left fewer than all but one round: too few to quote. */
function tooNoisy(run) {
  const rounds = run.params.rounds;
  const cells = [...Object.values(run.inprocess.cells), ...Object.values(run.http.cells)].flatMap((byWorker) => Object.values(byWorker));
  return rounds >= 3 && cells.some((cell) => (cell.noisy?.length ?? 0) >= 2);
}

/** What makes these figures not the ones to quote: a quick trial's knobs, a busy machine, too many noisy rounds (`kind`: a short name). */
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
  if (tooNoisy(run))
    found.push({
      kind: "noisy rounds",
      text: `Noisy rounds: a Worker lost two or more of its ${run.params.rounds} rounds to noise (${noisyList(run).join("; ")}); rerun when the machine is quiet.`,
    });
  return found;
}

/**
 * The table of every Worker, the same in the package's README, docs/benchmarks.md and results/latest.md: what it answers, in-process
 * CPU per request, the template's HTTP throughput over its per round, startup and size; then how the Workers differ.
 */
export function summary(run) {
  const ip = run.inprocess.cells;
  const rows = ranked(run).filter((worker) => !worker.httpCallOnly);
  const overHttp = (worker) => {
    if (worker.id === TEMPLATE) return "–";
    const r = ratio(run, "http", "call", TEMPLATE, worker.id);
    return r ? `${times(r.median)} (${r.kept.map((round) => times(r.ratios[round])).join(", ")})` : "n/a";
  };
  const line = (worker) => [
    worker.id === TEMPLATE ? `**${worker.label}**` : worker.label,
    worker.floor ? "–" : (worker.protocol ?? "–"),
    worker.answers ?? "–",
    `${fmt(ip.call[worker.id]?.cpuUs)} us`,
    `${fmt(ip.list[worker.id]?.cpuUs)} us`,
    overHttp(worker),
    `${signed(worker.startup.importNet)} ms`,
    kib(worker.size.gzip),
  ];
  const real = byId(run, "real");
  const hop = ratio(run, "http", "call", "template-assets", TEMPLATE);
  const warned = warnings(run);
  return [
    `From \`${run.command}\` on ${run.date.slice(0, 10)} (${run.params.rounds} interleaved rounds; ${run.machine}, 1-minute load ` +
      `${run.loadBefore.toFixed(2)} before the run)${warned.length ? `. **Not the figures to quote: ${warned.map((w) => w.kind).join(", ")}.**` : "."}`,
    "",
    table(
      [
        "Worker",
        "protocol",
        "answers",
        "CPU per `tools/call`, in process",
        "CPU per `tools/list`, in process",
        "the template's `tools/call` req/s over its, per-round median (each round)",
        "startup (module evaluation, net)",
        "gzip",
      ],
      ["l", "l", "l", "r", "r", "l", "r", "r"],
      [
        ...rows.map(line),
        [real.label, "2026-07-28 and 2025", "JSON", "–", "–", "–", `${signed(real.startup.importNet)} ms`, kib(real.size.gzip)],
      ],
    ),
    "",
    "Every MCP Worker serves the same `echo` tool with the same zod/mini schema (`z.strictObject({ text: z.string().check(z.maxLength(100)) })`: " +
      "each peer takes it) and is called the way a real client of its protocol calls it. How they differ:",
    "",
    ...rows.filter((worker) => worker.differs).map((worker) => `- ${worker.label}: ${worker.differs}.`),
    ...(run.rateLimiter === "in-isolate"
      ? [
          `- In every template row (its limit lifted, one caller sends everything) and the rate-limited line, ${IN_ISOLATE_LIMITER}; ` +
            "that simulator's cost is its own line of what each default costs in results/latest.md.",
        ]
      : []),
    `- Locally, \`[assets]\` with \`run_worker_first\` puts Miniflare's asset router (a JavaScript Worker) in front of the template: ` +
      `${hop ? `${times(hop.median)} of its req/s` : "not measured in this run"}. On Cloudflare the platform routes assets, so no row above has it.`,
  ].join("\n");
}

/** The targets, with what was measured and whether each is met: the same in docs/benchmarks.md and results/latest.md. */
export function targetTable(run) {
  return table(
    ["target", "measured", "result"],
    ["l", "l", "l"],
    targets(run).map((target) => [target.name, target.measured, mark(target.ok)]),
  );
}

/** Round headers, and a cell's figure per round with `*` on the rounds left out. */
const roundHeads = (count) => [...Array(count).keys()].map((round) => `round ${round + 1}`);
const perRound = (values, kept, format) => values.map((value, round) => `${format(value)}${kept.includes(round) ? "" : "*"}`);

export function markdown(run) {
  const p = run.params;
  const ip = run.inprocess;
  const http = run.http;
  const noisy = noisyList(run);
  const lines = [];
  lines.push(
    "# Benchmark: the template against the runtime floor and every peer, on equal terms",
    "",
    `Made by \`${run.command}\` on ${run.date} (took ${fmt(run.elapsedSeconds)} s).`,
    "",
    ...warnings(run).map((warning) => `> **${warning.text}**\n`),
    `- Source: commit \`${run.commit}\`${run.dirty ? " with uncommitted changes in the work tree" : ""}.`,
    `- Machine: ${run.machine}; Node ${run.node}; 1-minute load average ${run.loadBefore.toFixed(2)} before the run, ${run.loadAfter.toFixed(2)} after.`,
    `- Toolchain: wrangler ${run.versions.wrangler}, miniflare ${run.versions.miniflare}, workerd ${run.versions.workerd}; ` +
      `autocannon ${run.versions.autocannon}; zod ${run.versions.zod} (template), ${run.versions.zodPeers} (peers).`,
    "- Every Worker is its `wrangler deploy --dry-run --minify` bundle, served by Miniflare straight from workerd on 127.0.0.1 " +
      "(no `wrangler dev` proxy), with the bindings of its own wrangler config; each MCP Worker serves the same `echo` tool with the same " +
      "zod/mini schema, and each answer (and its form, JSON or SSE) was checked once before it was measured.",
    `- In-process CPU: ${ip.requests} requests (each with its Content-Length, as from an HTTP client) through the Worker's own \`fetch\` ` +
      `inside one workerd request, workerd CPU from /proc, minus the median of the Worker's empty loops (the same requests, a fixed ` +
      `answer in place of the Worker); ${p.rounds} rounds, Workers interleaved. HTTP: autocannon, ` +
      `${p.connections} connections, ${p.rounds} interleaved rounds x ${p.seconds} s after a ${p.warmupSeconds} s warm-up.`,
    "- Scoring: every target is the median of per-round ratios over the rounds both Workers kept. A round is noisy for a Worker when its own " +
      "cost per request (in-process: its gross CPU; HTTP: its time per request) is over 1.5x its median; it is " +
      `left out of that Worker's medians and ratios, and marked * below. Noisy rounds: ${noisy.length ? noisy.join("; ") : "none"}.`,
    "",
    "## Every Worker",
    "",
    summary(run),
    "",
    "## Targets",
    "",
    targetTable(run),
    "",
    "## Every figure, per Worker",
    "",
    "CPU is microseconds of workerd CPU per request (medians over kept rounds); req/s and HTTP CPU are tools/call over HTTP; startup is net of the empty Worker.",
    "",
    "| Worker | answers | in-process CPU, tools/call | tools/list | MRTR retry | tools/call req/s | tools/list req/s | workerd CPU per tools/call over HTTP | module evaluation ms | `check startup` ms (coarse) | gzip |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const worker of ranked(run)) {
    const name = worker.id === TEMPLATE ? `**${worker.label}**` : worker.label;
    lines.push(
      `| ${name} | ${worker.answers ?? "–"} | ${fmt(ip.cells.call[worker.id]?.cpuUs)} | ${fmt(ip.cells.list[worker.id]?.cpuUs)} | ` +
        `${fmt(ip.cells.mrtr?.[worker.id]?.cpuUs)} | ${fmt(http.cells.call[worker.id]?.rps)} | ${fmt(http.cells.list?.[worker.id]?.rps)} | ` +
        `${fmt(http.cells.call[worker.id]?.cpuUs)} | ${fmt(worker.startup.importNet, 1)} | ${fmt(worker.startup.checkNet, 1)} | ${kib(worker.size.gzip)} |`,
    );
  }

  lines.push("", "## In-process CPU per request, per round", "");
  lines.push(
    `workerd CPU per request, microseconds, net of the Worker's empty loop (${ip.requests} requests per loop); * a noisy round of that Worker, left out.`,
    "",
  );
  for (const scenario of run.scenarios) {
    const cells = ip.cells[scenario.id];
    if (!cells) continue;
    const ids = ranked(run).filter((worker) => cells[worker.id]);
    lines.push(
      `### ${scenario.label}`,
      "",
      `| Worker | median | ${roundHeads(p.rounds).join(" | ")} | failed |`,
      `|---|---:|${"---:|".repeat(p.rounds)}---:|`,
      ...ids.map((worker) => {
        const cell = cells[worker.id];
        return `| ${worker.label} | ${fmt(cell.cpuUs)} | ${perRound(
          cell.rounds.map((r) => r.cpuUs),
          cell.kept,
          fmt,
        ).join(" | ")} | ${cell.failures} |`;
      }),
      "",
    );
  }
  for (const scenario of ["call", "list"]) {
    lines.push(
      `### Ratios per round, in-process ${scenario === "call" ? "tools/call" : "tools/list"} CPU: template / each Worker (below 1: the template costs less)`,
      "",
      `| ratio | per-round median | ${roundHeads(p.rounds).join(" | ")} |`,
      `|---|---:|${"---:|".repeat(p.rounds)}`,
    );
    for (const other of ranked(run).filter((worker) => worker.id !== TEMPLATE)) {
      const r = ratio(run, "inprocess", scenario, TEMPLATE, other.id);
      if (r) lines.push(`| template / ${other.label} | ${times(r.median)} | ${perRound(r.ratios, r.kept, times).join(" | ")} |`);
    }
    lines.push("");
  }
  const retry = ip.cells.mrtr?.[TEMPLATE] ? retryOverCall(run) : undefined;
  if (retry) {
    lines.push(
      `The template's MRTR retry / its plain tools/call, per round: ${perRound(retry.ratios, retry.kept, times).join(", ")}; median ${times(retry.median)}.`,
      "",
    );
  }

  lines.push("## HTTP throughput, per round", "");
  for (const scenarioId of http.scenarios) {
    const scenario = run.scenarios.find((s) => s.id === scenarioId);
    const cells = http.cells[scenarioId];
    const ids = ranked(run).filter((worker) => cells[worker.id]);
    lines.push(
      `### ${scenario.label}`,
      "",
      `| Worker | req/s | p50 ms | p99 ms | workerd CPU per request, us | ${roundHeads(p.rounds)
        .map((h) => `${h} req/s`)
        .join(" | ")} | failed |`,
      `|---|---:|---:|---:|---:|${"---:|".repeat(p.rounds)}---:|`,
      ...ids.map((worker) => {
        const cell = cells[worker.id];
        return (
          `| ${worker.label} | ${fmt(cell.rps)} | ${fmt(cell.p50, 2)} | ${fmt(cell.p99, 2)} | ${fmt(cell.cpuUs)} | ` +
          `${perRound(
            cell.runs.map((r) => r.rps),
            cell.kept,
            fmt,
          ).join(" | ")} | ${cell.failures} |`
        );
      }),
      "",
    );
  }
  for (const scenarioId of http.scenarios.filter((id) => id !== "mrtr")) {
    lines.push(
      `### Ratios per round, ${scenarioId === "call" ? "tools/call" : "tools/list"} req/s over HTTP: template / each Worker (above 1: the template serves more)`,
      "",
      `| ratio | per-round median | ${roundHeads(p.rounds).join(" | ")} |`,
      `|---|---:|${"---:|".repeat(p.rounds)}`,
    );
    for (const other of ranked(run).filter((worker) => worker.id !== TEMPLATE)) {
      const r = ratio(run, "http", scenarioId, TEMPLATE, other.id);
      if (r) lines.push(`| template / ${other.label} | ${times(r.median)} | ${perRound(r.ratios, r.kept, times).join(" | ")} |`);
    }
    lines.push("");
  }

  const mrtrLine = (id) => {
    const mrtr = series(run, "inprocess", "mrtr", id);
    const call = series(run, "inprocess", "call", id);
    const httpMrtr = series(run, "http", "mrtr", id);
    const httpCall = series(run, "http", "call", id);
    const overHttp = httpMrtr && httpCall ? ` (over HTTP ${times(perRoundRatio(httpCall, httpMrtr).median)} by req/s)` : "";
    return `${label(run, id)} ${times(perRoundRatio(mrtr, call).median)}${overHttp}`;
  };
  lines.push(
    "## MRTR retry",
    "",
    "Each server minted its own `requestState` (first call, answered `input_required`), afresh each round; the loop replays " +
      "the retry with that state and the form answer. Both verify an HMAC-SHA256 state on every retry; the template also binds " +
      "it (one tag) to the principal, method, tool name and the arguments as canonical JSON, the SDK codec here to the method. " +
      `Cost of a retry over a plain tools/call, per-round median of in-process CPU: ${run.workers
        .filter((w) => w.mrtr && ip.cells.mrtr?.[w.id])
        .map((w) => mrtrLine(w.id))
        .join("; ")}.`,
  );
  if (run.limited) {
    const l = run.limited;
    lines.push(
      "",
      "## Rate-limited load",
      "",
      `The template with the limit the template ships (RATE_LIMITER: ${l.limit.limit} per ${l.limit.period} s per caller), ` +
        `${run.rateLimiter === "in-isolate" ? "counted in the isolate as on every template row, " : ""}` +
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
      "## What each default costs (in-process tools/call, the template)",
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
    ...run.workers
      .filter((worker) => !worker.sameBundle)
      .map(
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
    `Module evaluation (what the startup target is scored by): a fresh workerd per run whose entry imports the bundle on one request; ` +
      `cost = that request's time minus the same request once the import is cached; median of ${p.importRuns} runs, net = minus the ` +
      `empty Worker. \`wrangler check startup\`: non-idle CPU in its V8 profile of the same import, median of ${p.checkRuns} runs; its ` +
      "sampling is sparse (1 to 3 samples for a small Worker, +-10 ms), too coarse to rank Workers by, so it is shown and never scored.",
    "",
    "| Worker | module evaluation, ms | net, ms | runs, ms | `wrangler check startup` CPU, ms | net, ms |",
    "|---|---:|---:|---|---:|---:|",
    ...run.workers
      .filter((worker) => !worker.sameBundle)
      .map(
        (worker) =>
          `| ${worker.label} | ${fmt(worker.startup.importMs, 2)} | ${worker.id === "empty" ? "-" : signed(worker.startup.importNet, 2)} | ` +
          `${worker.startup.importRuns.map((ms) => fmt(ms, 1)).join(", ")} | ${fmt(worker.startup.checkMs, 1)} | ` +
          `${worker.id === "empty" ? "-" : signed(worker.startup.checkNet, 1)} |`,
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
          `${worker.setup} | ${worker.called} | ${[...new Set(Object.values(worker.forms ?? {}))].join(", ") || worker.answers || "JSON"} |`,
      ),
    "",
    "## About this run",
    "",
    "- The template rows run the engine with the template's production defaults from the root wrangler.toml (production mode, " +
      "ACCESS_LOG=errors, traces on, every Durable Object binding, the RATE_LIMITER binding with its limit lifted, the cron " +
      "trigger declared) and a bench STATE_KEYS secret. Every guard is on (Host and Origin checks, limits, the rate limiter)" +
      `${run.rateLimiter === "in-isolate" ? `; ${IN_ISOLATE_LIMITER}.` : "."}`,
    // How mcp-lite was called is the run's own (its answer form): a run from before the bench called it as a conforming
    // client called it on its JSON path only, and its report says so.
    byId(run, CONFORMING_MCP_LITE)?.answers === "SSE"
      ? "- Answers are held equal where a Worker offers a choice: JSON against JSON (the SDK's `responseMode` auto, @hono/mcp's " +
          "`enableJsonResponse`). Every Worker is sent `Accept: application/json, text/event-stream`, as a conforming client sends it: " +
          "mcp-lite then answers SSE (it has no JSON option), and so does tmcp's per-request POST; mcp-lite's JSON path " +
          "(`Accept: application/json` alone) is its own row, labelled as its best case. The template answers a call that sends no " +
          "notification as JSON. The bench reads every answer to its end, in-process and over HTTP alike."
      : "- Answers are held equal where a Worker offers a choice: JSON against JSON (the SDK's `responseMode` auto, @hono/mcp's " +
          "`enableJsonResponse`, mcp-lite with `Accept: application/json`, its only way to answer JSON). tmcp's per-request POST answers " +
          "only SSE, and the template answers a call that sends no notification only as JSON, so that one pairing is SSE against JSON. " +
          "The bench reads every answer to its end, in-process and over HTTP alike.",
    "- Peers speak the revision a real client of theirs uses: 2026-07-28 where they serve it (headers and `_meta` per request), " +
      "the 2025 stateless POST otherwise (mcp-lite 2025-06-18, @hono/mcp 2025-11-25).",
    `- The load generator runs on the same ${run.cpus} cores as workerd, and each workerd serves from one thread, so absolute ` +
      "figures are this machine's; compare ratios. HTTP throughput moves by 10-20% between rounds on a shared machine; in-process " +
      "CPU per request (all of workerd's threads: the Worker, its Durable Objects and binding Workers) is the steadier figure.",
    "- Harness: bench/run.mjs (Workers in bench/workers/, their table in bench/lib/workers.mjs); raw data in bench/results/latest.json.",
    "",
  );
  return lines.join("\n");
}

const COLORS = { floor: "#9e9e9e", template: "#1f77b4", peer: "#ff7f0e", list: "#ffbb78", templateList: "#aec7e8" };

/** Two panels of horizontal bars, one line per Worker: in-process CPU per request, and tools/call req/s over HTTP. */
export function svg(run) {
  const workers = ranked(run);
  const width = 900;
  const left = 360;
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
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">MCP on Workers: the template, the floor and every peer (same zod/mini schema)</text>`,
    `<text x="${width / 2}" y="40" text-anchor="middle" font-size="10" fill="#555">${escapeHtml(`${run.date}, commit ${run.commit}${run.dirty ? " (modified)" : ""}; medians of ${run.params.rounds} interleaved rounds; ${run.command}`)}</text>`,
  ];
  const colorOf = (worker, second) =>
    worker.floor || worker.reference
      ? COLORS.floor
      : worker.template
        ? second
          ? COLORS.templateList
          : COLORS.template
        : second
          ? COLORS.list
          : COLORS.peer;
  const panel = (top, title, bars) => {
    const values = workers.flatMap((worker) => bars.map((bar) => bar.value(worker))).filter(Number.isFinite);
    const max = Math.max(...values, 1);
    const plotWidth = width - left - right;
    parts.push(`<text x="20" y="${top + 14}" font-size="13" font-weight="bold">${escapeHtml(title)}</text>`);
    workers.forEach((worker, i) => {
      const y = top + 28 + i * lineHeight;
      parts.push(
        `<text x="${left - 8}" y="${y + 15}" text-anchor="end">${escapeHtml(`${plain(worker.label)}${worker.answers ? ` (${worker.answers})` : ""}`)}</text>`,
      );
      bars.forEach((bar, b) => {
        const value = bar.value(worker);
        const barHeight = (lineHeight - 8) / bars.length;
        const w = Number.isFinite(value) ? (plotWidth * value) / max : 0;
        const by = y + b * barHeight;
        parts.push(
          `<rect x="${left}" y="${by}" width="${w}" height="${barHeight - 1}" fill="${colorOf(worker, b > 0)}"><title>${escapeHtml(`${plain(worker.label)}, ${bar.label}: ${fmt(value)} ${bar.unit}`)}</title></rect>`,
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
    `<text x="20" y="${height - 16}" fill="#555">${escapeHtml(`Real template: ${kib(real.size.gzip)} gzip, startup ${signed(real.startup.importNet)} ms (module evaluation, net).`)}</text>`,
    "</svg>",
    "",
  );
  return parts.join("\n");
}
