/**
 * The bench's report (bench/lib/report.mjs) on made-up runs: how it scores the targets (per-round ratios, each
 * Worker's noisy rounds left out, startup by module evaluation), what it says about a run that is not the one to
 * quote, how it copes with a quick trial that left Workers out; and that the committed docs hold the blocks of the
 * committed results. Never a figure of a real run, never a timing assert.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { blockIn, blocksOf, GENERATED, withBlock } from "../../bench/lib/generated.mjs";
import { markdown, summary, svg, table, targets, warnings } from "../../bench/lib/report.mjs";
import { packageRoot } from "./imports";

const startup = (net: number, check = net) => ({
  importMs: 5 + net,
  importNet: net,
  checkMs: 10 + check,
  checkNet: check,
  importRuns: [5 + net],
  checkRuns: [10],
});
const size = { raw: 1000, gzip: 500, modules: ["worker.js"], contributors: [], duplicates: [] };
const worker = (id: string, fields: Record<string, unknown> = {}) => ({
  id,
  label: id,
  loaded: true,
  peer: false,
  floor: false,
  answers: "JSON",
  setup: "set up",
  called: "called",
  differs: `what ${id} does`,
  packages: [],
  size,
  startup: startup(1),
  ...fields,
});
/** An in-process cell: the CPU per request of each round (the first rounds' figures as given, then repeated). */
const cell = (perRound: number[], noisy: number[] = []) => {
  const kept = perRound.map((_, round) => round).filter((round) => !noisy.includes(round));
  const sorted = kept.map((round) => perRound[round]!).sort((a, b) => a - b);
  return {
    cpuUs: sorted[sorted.length >> 1],
    failures: 0,
    noisy,
    kept,
    rounds: perRound.map((cpuUs) => ({ cpuUs, grossUs: cpuUs + 10, emptyUs: 10, failures: 0 })),
  };
};
const httpCell = (perRound: number[], noisy: number[] = [], cpuPerRound = perRound.map(() => 100)) => {
  const kept = perRound.map((_, round) => round).filter((round) => !noisy.includes(round));
  return {
    rps: perRound[kept[0]!],
    p50: 1,
    p99: 2,
    cpuUs: cpuPerRound[kept[0]!],
    failures: 0,
    noisy,
    kept,
    runs: perRound.map((rps, round) => ({ rps, p50: 1, p99: 2, cpuUs: cpuPerRound[round]! })),
  };
};

/** A run of the floor, the template (and its asset-router row) and one peer (no SDK: as BENCH_WORKERS=mcp-lite leaves it). */
function run(overrides: Record<string, unknown> = {}, rounds = 1) {
  const same = (value: number) => Array<number>(rounds).fill(value);
  return {
    command: "node bench/run.mjs",
    quickTrial: [],
    date: "2026-12-01T00:00:00Z",
    commit: "abc1234",
    dirty: false,
    machine: "2 x CPU",
    cpus: 2,
    loadBefore: 0.5,
    loadAfter: 0.5,
    node: "20",
    versions: { wrangler: "4", miniflare: "4", workerd: "1", autocannon: "9", zod: "4", zodPeers: "4" },
    params: { rounds, seconds: 1, connections: 10, warmupSeconds: 1, importRuns: 1, checkRuns: 1 },
    scenarios: [
      { id: "list", label: "tools/list" },
      { id: "call", label: "tools/call" },
      { id: "mrtr", label: "MRTR retry" },
    ],
    workers: [
      worker("empty", { loaded: false, startup: startup(0) }),
      worker("floor", { floor: true }),
      worker("template", { template: "no-assets", mrtr: true, startup: startup(-0.7) }),
      worker("template-assets", { template: "shipped", sameBundle: true, httpCallOnly: true }),
      worker("mcp-lite", { peer: true, startup: startup(3) }),
      worker("real", { loaded: false, startup: startup(-0.7) }),
    ],
    inprocess: {
      requests: 100,
      cells: {
        list: { floor: cell(same(10)), template: cell(same(100)), "mcp-lite": cell(same(150)) },
        call: { floor: cell(same(10)), template: cell(same(100)), "mcp-lite": cell(same(150)) },
        mrtr: { template: cell(same(110)) },
      },
    },
    http: {
      scenarios: ["call"],
      cells: {
        call: {
          floor: httpCell(same(1000)),
          template: httpCell(same(900)),
          "template-assets": httpCell(same(450)),
          "mcp-lite": httpCell(same(800)),
        },
      },
    },
    ...overrides,
  };
}

const named = (runData: ReturnType<typeof run>, part: string) => targets(runData).find((target) => target.name.includes(part));

describe("the bench report", () => {
  it("reads a target against a Worker the run left out (tools/list over HTTP) as not measured, and still writes the results", () => {
    expect(named(run(), "tools/list over HTTP")).toMatchObject({ measured: "not measured in this run", ok: undefined });
    expect(markdown(run())).toContain("not measured in this run");
    expect(svg(run())).toContain("<svg");
  });

  it("scores a target by the median of per-round ratios, not by the ratio of the medians", () => {
    // Per round the template costs 0.5x, 0.5x and 1.5x mcp-lite's: a per-round median of 0.5x. The medians (100
    // against 150) would say 0.67x.
    const data = run({}, 3);
    data.inprocess.cells.call = { floor: cell([10, 10, 10]), template: cell([100, 50, 150]), "mcp-lite": cell([200, 100, 100]) };
    expect(named(data, "tools/call: in-process CPU per request at most 0.9x")?.measured).toMatch(/^0\.50x against mcp-lite/);
    expect(named(data, "tools/call: in-process CPU per request at most 0.9x")?.ok).toBe(true);
  });

  it("leaves a peer's own noisy round out of its ratios, whatever the floor did in that round", () => {
    // mcp-lite's third round is noisy (its own figure), the floor's is not: the round is dropped from the template's
    // ratio to mcp-lite, where it alone would have made the template look behind (100 us against 30).
    const data = run({}, 3);
    data.http.cells.call["mcp-lite"] = httpCell([1000, 1000, 3000], [2], [100, 100, 30]);
    data.http.cells.call.template = httpCell([900, 950, 900], [], [90, 95, 100]);
    const ahead = named(data, "tools/call over HTTP: fewer workerd CPU us");
    expect(ahead?.ok).toBe(true);
    expect(ahead?.measured).toContain("highest round 0.95x against mcp-lite");
    expect(markdown(data)).toContain("mcp-lite call round 3 (HTTP)");
  });

  it("scores CPU over HTTP as missed when the template costs as much as a peer in any one round", () => {
    const data = run({}, 3);
    data.http.cells.call["mcp-lite"] = httpCell([1000, 1000, 1000], [], [100, 100, 100]);
    data.http.cells.call.template = httpCell([900, 950, 900], [], [90, 100, 80]);
    const ahead = named(data, "tools/call over HTTP: fewer workerd CPU us");
    expect(ahead).toMatchObject({ ok: false });
    expect(ahead?.measured).toContain("behind or level in some round: mcp-lite");
  });

  it("scores half the CPU against the template before the work and against mcp-lite as a conforming client calls it", () => {
    const data = run({}, 3);
    data.workers = data.workers.map((w) => (w.id === "mcp-lite" ? { ...w, answers: "SSE" } : w));
    // 26 us against 52.4 before: 0.50x; against mcp-lite's conforming call, 0.5x per round.
    data.inprocess.cells.call = { floor: cell([10, 10, 10]), template: cell([26, 26, 26]), "mcp-lite": cell([52, 52, 52]) };
    expect(named(data, "tools/call: in-process CPU per request at most 0.5x")).toMatchObject({ ok: true });
    expect(named(data, "tools/call: in-process CPU per request at most 0.5x")?.measured).toContain(
      "0.50x mcp-lite as a conforming client calls it",
    );
    // Half the template before, but not half mcp-lite: missed.
    data.inprocess.cells.call["mcp-lite"] = cell([40, 40, 40]);
    expect(named(data, "tools/call: in-process CPU per request at most 0.5x")).toMatchObject({ ok: false });
    // Half mcp-lite, but over half the template before: missed too.
    data.inprocess.cells.call = { floor: cell([10, 10, 10]), template: cell([30, 30, 30]), "mcp-lite": cell([100, 100, 100]) };
    expect(named(data, "tools/call: in-process CPU per request at most 0.5x")).toMatchObject({ ok: false });
  });

  it("names the half target's reference as 82fd2d1 under Miniflare 4, and says it is not re-measurable on a run under Miniflare 5", () => {
    const name = (miniflare: string) =>
      named(run({ versions: { ...run().versions, miniflare } }), "tools/call: in-process CPU per request at most 0.5x")?.name;
    expect(name("4.20260426.0")).toContain("the template's at 82fd2d1 under Miniflare 4 (52 us)");
    expect(name("5.20261117.0-beta")).toContain("the template's at 82fd2d1 under Miniflare 4 (52 us; not re-measurable under Miniflare 5)");
  });

  it("says what served the template's RATE_LIMITER and how mcp-lite was called as the run records them, and lists Miniflare's simulator as its own default", () => {
    const data = run({
      workers: run().workers.map((w) => (w.id === "mcp-lite" ? { ...w, answers: "SSE" } : w)),
      rateLimiter: "in-isolate",
      limited: { limit: { limit: 600, period: 60 }, rps: 1, limitedShare: 0.9, p50: 1, p99: 2, cpuUs: 1, retryAfter: "60", failures: 0 },
      defaults: [
        { id: "shipped", label: "shipped defaults", cpuUs: 50, rounds: [50], failures: 0 },
        { id: "miniflareLimiter", label: "RATE_LIMITER on Miniflare 5's local simulator", cpuUs: 900, rounds: [900], failures: 0 },
      ],
    });
    expect(summary(data)).toContain("served by the bench Worker's in-isolate counter");
    const report = markdown(data);
    expect(report).toContain("counted in the isolate as on every template row");
    expect(report).toMatch(/About this run[\s\S]*in-isolate counter/);
    expect(report).toContain("| RATE_LIMITER on Miniflare 5's local simulator | 900 | +850 us |");
    // How mcp-lite was called is the run's own: a conforming client's here, its JSON path only in run() (mcp-lite answers JSON).
    expect(report).toContain("as a conforming client sends it: mcp-lite then answers SSE");
    expect(markdown(run())).toContain("mcp-lite with `Accept: application/json`, its only way to answer JSON");
    // A run that does not record it (before the bench had its own counter) says nothing of the kind.
    expect(summary(run())).not.toContain("in-isolate");
    expect(markdown(run())).not.toContain("in-isolate");
  });

  it("does not score the conforming comparison on a run that called mcp-lite on its JSON path", () => {
    const data = run({}, 3);
    data.inprocess.cells.call = { floor: cell([10, 10, 10]), template: cell([26, 26, 26]), "mcp-lite": cell([100, 100, 100]) };
    const target = named(data, "tools/call: in-process CPU per request at most 0.5x");
    expect(target?.measured).toContain("mcp-lite not measured as a conforming client calls it");
    expect(target?.ok).toBeUndefined();
  });

  it("scores startup by module evaluation, never by the coarse `check startup` figure", () => {
    const data = run();
    // Best by check startup (-9 ms against +3), worse by module evaluation (+4 ms against +3).
    data.workers = data.workers.map((w) => (w.id === "real" ? { ...w, startup: startup(4, -9) } : w));
    const target = named(data, "startup the best of the table");
    expect(target?.name).toContain("module evaluation");
    expect(target).toMatchObject({ ok: false });
    expect(target?.measured).toContain("real template +4.0 ms");
  });

  it("calls startup best only when every run of the template is ahead of every run of the best peer", () => {
    const withRuns = (real: number[], peer: number[]) => {
      const data = run();
      data.workers = data.workers.map((w) =>
        w.id === "real"
          ? { ...w, startup: { ...startup(1), importRuns: real.map((ms) => 5 + ms) } }
          : w.id === "mcp-lite"
            ? { ...w, startup: { ...startup(2.5), importRuns: peer.map((ms) => 5 + ms) } }
            : w,
      );
      return named(data, "startup the best of the table");
    };
    expect(withRuns([0.9, 1, 1.2], [1.9, 2.5, 3.5])).toMatchObject({ ok: true });
    const overlapping = withRuns([1, 1.8, 2.8], [1.9, 2.5, 3.5]);
    expect(overlapping).toMatchObject({ ok: false });
    expect(overlapping?.measured).toContain("ahead by median only, the runs overlap: within noise");
  });

  it("writes a net startup figure below zero with its own sign, never as +-0.7", () => {
    expect(named(run(), "startup")?.measured).toContain("real template -0.7 ms");
    expect(markdown(run())).not.toContain("+-0.7");
  });

  it("scores the MRTR retry by its per-round ratio to a plain call, and the listeners from the last bench:listen", () => {
    const data = run({ listen: { date: "2026-12-01", rows: [{ size: 1000, p50: 80, p99: 260 }] } }, 3);
    data.inprocess.cells.call.template = cell([100, 100, 50]);
    data.inprocess.cells.mrtr = { template: cell([110, 115, 100]) };
    expect(named(data, "MRTR retry")).toMatchObject({ ok: true });
    expect(named(data, "MRTR retry")?.measured).toMatch(/^1\.15x/);
    expect(named(data, "listeners")).toMatchObject({ ok: false, measured: "260 ms (p50 80 ms; run of 2026-12-01)" });
    expect(named(run(), "listeners")).toMatchObject({ ok: undefined });
  });

  it("lays its tables out as the formatter does: every cell padded to its column, right-aligned figures padded on the left", () => {
    expect(
      table(
        ["a", "figure"],
        ["l", "r"],
        [
          ["long cell", "1"],
          ["b", "22"],
        ],
      ),
    ).toBe(["| a         | figure |", "| --------- | -----: |", "| long cell |      1 |", "| b         |     22 |"].join("\n"));
  });

  it("says in the table of every Worker how each is set up to answer and how it differs from the template", () => {
    const table = summary(run());
    expect(table).toMatch(/^\| \*\*template\*\* +\| – +\| JSON +\|/m);
    expect(table).toContain("- mcp-lite: what mcp-lite does.");
    expect(table).toContain("the same zod/mini schema");
    expect(table).toContain("0.50x of its req/s");
  });

  it("says at the top of latest.md, in the summary and on the chart that a quick trial on a busy machine is not the one to quote", () => {
    const trial = run({ quickTrial: ["BENCH_ROUNDS"], loadBefore: 9 });
    expect(warnings(trial).map((warning) => warning.kind)).toEqual(["a quick trial", "a busy machine"]);
    const head = markdown(trial).split("## Every Worker")[0];
    expect(head).toContain("Quick trial (BENCH_ROUNDS set)");
    expect(head).toContain("Busy machine");
    expect(summary(trial)).toContain("Not the figures to quote: a quick trial, a busy machine");
    expect(svg(trial)).toContain("Not the figures to quote: a quick trial, a busy machine");
  });

  it("says nothing of the kind about a full run on a quiet machine", () => {
    expect(warnings(run())).toEqual([]);
    expect(markdown(run())).not.toContain("Quick trial");
    expect(svg(run())).not.toContain("Not the figures to quote");
  });

  it("warns when a Worker lost two or more of its rounds to noise, and names them", () => {
    const noisy = run({}, 5);
    noisy.inprocess.cells.call["mcp-lite"] = cell([150, 150, 150, 150, 150], [1, 3]);
    expect(warnings(noisy).map((warning) => warning.kind)).toEqual(["noisy rounds"]);
    expect(warnings(noisy)[0]?.text).toContain("mcp-lite call round 2 (in-process); mcp-lite call round 4 (in-process)");
  });
});

describe("the generated blocks", () => {
  it("replace only what is between their markers, and a file without them is left as it is", () => {
    const text = "intro\n<!-- bench:summary -->\nold\n<!-- /bench:summary -->\nrest\n";
    const updated = withBlock(text, "summary", "new table");
    expect(updated).toBe("intro\n<!-- bench:summary -->\nnew table\n<!-- /bench:summary -->\nrest\n");
    expect(blockIn(updated, "summary")).toBe("new table");
    expect(withBlock("no markers here", "summary", "x")).toBe("no markers here");
    expect(blockIn("no markers here", "summary")).toBeUndefined();
  });

  it("are in the README and docs/benchmarks.md as the committed results make them (bench/results/latest.json)", () => {
    const results = JSON.parse(readFileSync(join(packageRoot, "bench/results/latest.json"), "utf8"));
    const blocks = blocksOf(results);
    expect(Object.keys(GENERATED)).toEqual(["engine/README.md", "engine/docs/benchmarks.md"]);
    for (const [file, names] of Object.entries(GENERATED)) {
      const text = readFileSync(join(packageRoot, file.replace(/^engine\//, "")), "utf8");
      for (const name of names) {
        expect(blockIn(text, name), `${file}'s ${name} block (rerun npm run bench, or restore the file)`).toBe(blocks[name]);
      }
    }
  });

  it("are all in results/latest.md, the results' own report, word for word", () => {
    const results = JSON.parse(readFileSync(join(packageRoot, "bench/results/latest.json"), "utf8"));
    const report = readFileSync(join(packageRoot, "bench/results/latest.md"), "utf8");
    for (const block of Object.values(blocksOf(results))) expect(report).toContain(block);
  });
});
