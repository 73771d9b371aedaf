/**
 * The bench's report (bench/lib/report.mjs) on a made-up run: what it says about a run that is not the one to quote,
 * and how it copes with a quick trial that left Workers out. Never a figure of a real run, never a timing assert.
 */
import { describe, expect, it } from "vitest";
import { markdown, svg, targets, warnings } from "../../bench/lib/report.mjs";

const startup = (net: number) => ({
  importMs: 5 + net,
  importNet: net,
  checkMs: 10 + net,
  checkNet: net,
  importRuns: [5],
  checkRuns: [10],
});
const size = { raw: 1000, gzip: 500, modules: ["worker.js"], contributors: [], duplicates: [] };
const worker = (id: string, fields: Record<string, unknown> = {}) => ({
  id,
  label: id,
  loaded: true,
  peer: false,
  floor: false,
  setup: "set up",
  called: "called",
  packages: [],
  size,
  startup: startup(1),
  ...fields,
});
const cell = (cpuUs: number) => ({ cpuUs, failures: 0, rounds: [{ cpuUs, failures: 0 }] });
const httpCell = (rps: number) => ({ rps, p50: 1, p99: 2, cpuUs: 100, failures: 0, runs: [{ rps, p50: 1, p99: 2, cpuUs: 100 }] });

/** A one-round run of the floor, both template rows and one peer (no SDK: as BENCH_WORKERS=floor,mcp-lite leaves it). */
function run(overrides: Record<string, unknown> = {}) {
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
    params: { rounds: 1, seconds: 1, connections: 10, warmupSeconds: 1, importRuns: 1, checkRuns: 1 },
    scenarios: [
      { id: "list", label: "tools/list" },
      { id: "call", label: "tools/call" },
      { id: "mrtr", label: "MRTR retry", mrtrOnly: true },
    ],
    workers: [
      worker("empty", { loaded: false, startup: startup(0) }),
      worker("floor", { floor: true }),
      worker("template", { template: "shipped", mrtr: true, startup: startup(-0.7) }),
      worker("template-no-assets", { template: "no-assets", mrtr: true, sameBundle: true }),
      worker("mcp-lite", { peer: true, startup: startup(3) }),
      worker("real", { loaded: false, startup: startup(-0.7) }),
    ],
    inprocess: {
      requests: 100,
      cells: {
        list: { floor: cell(10), template: cell(100), "template-no-assets": cell(100), "mcp-lite": cell(150) },
        call: { floor: cell(10), template: cell(100), "template-no-assets": cell(100), "mcp-lite": cell(150) },
        mrtr: { template: cell(110), "template-no-assets": cell(110) },
      },
      floorCosts: [50],
      noisy: [],
      kept: [0],
    },
    http: {
      scenarios: ["call"],
      cells: { call: { floor: httpCell(1000), template: httpCell(500), "template-no-assets": httpCell(900), "mcp-lite": httpCell(800) } },
      noisy: [],
      kept: [0],
    },
    ...overrides,
  };
}

describe("the bench report", () => {
  it("reads a target against a Worker the run left out (the SDK) as not measured, and still writes the results", () => {
    const sdk = targets(run()).find((target) => target.name.includes("the SDK"));
    expect(sdk).toMatchObject({ measured: "not measured in this run", ok: undefined });
    expect(markdown(run())).toContain("not measured in this run");
    expect(svg(run())).toContain("<svg");
  });

  it("writes a net startup figure below zero with its own sign, never as +-0.7", () => {
    const startupTarget = targets(run()).find((target) => target.name.includes("module evaluation"));
    expect(startupTarget?.measured).toContain("real template -0.7 ms");
    expect(markdown(run())).not.toContain("+-0.7");
  });

  it("says at the top of latest.md and on the chart that a quick trial on a busy machine is not the one to quote", () => {
    const trial = run({ quickTrial: ["BENCH_ROUNDS"], loadBefore: 9 });
    expect(warnings(trial).map((warning) => warning.kind)).toEqual(["a quick trial", "a busy machine"]);
    const head = markdown(trial).split("## Targets")[0];
    expect(head).toContain("Quick trial (BENCH_ROUNDS set)");
    expect(head).toContain("Busy machine");
    expect(svg(trial)).toContain("Not the figures to quote: a quick trial, a busy machine");
  });

  it("says nothing of the kind about a full run on a quiet machine", () => {
    expect(warnings(run())).toEqual([]);
    expect(markdown(run())).not.toContain("Quick trial");
    expect(svg(run())).not.toContain("Not the figures to quote");
  });

  it("names noisy rounds among the warnings", () => {
    const noisy = run({ inprocess: { ...run().inprocess, noisy: [0] } });
    expect(warnings(noisy).map((warning) => warning.kind)).toEqual(["noisy in-process rounds"]);
  });
});
