// Types for bench/lib/generated.mjs, for the repository tests that check the docs' generated blocks.
import type { BenchRun } from "./report.mjs";

export declare const GENERATED: Record<string, string[]>;
export declare function blocksOf(run: BenchRun): Record<string, string>;
export declare function blockIn(text: string, name: string): string | undefined;
export declare function withBlock(text: string, name: string, content: string): string;
export declare function syncGeneratedBlocks(run: BenchRun, root?: string): string[];
