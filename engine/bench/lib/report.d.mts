// Types for bench/lib/report.mjs, so test/repo/bench-report.test.ts type-checks where test/repo is checked
// (the blank copy's `npm run check`). A run is what bench/run.mjs writes to results/latest.json.
export type BenchRun = Record<string, unknown>;
export type Target = { name: string; measured: string; ok: boolean | undefined };
export type Warning = { kind: string; text: string };
export type PerRoundRatio = { ratios: number[]; kept: number[]; median: number; min: number };

export declare const TARGET: Record<string, number>;
export declare function table(header: string[], align: ("l" | "r")[], rows: string[][]): string;
export declare function ratio(
  run: BenchRun,
  phase: "inprocess" | "http",
  scenario: string,
  ours: string,
  theirs: string,
): PerRoundRatio | undefined;
export declare function targets(run: BenchRun): Target[];
export declare function warnings(run: BenchRun): Warning[];
export declare function failures(run: BenchRun): string[];
export declare function summary(run: BenchRun): string;
export declare function targetTable(run: BenchRun): string;
export declare function markdown(run: BenchRun): string;
export declare function svg(run: BenchRun): string;
