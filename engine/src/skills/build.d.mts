/** The types of build.mjs, for the TypeScript that imports it (the repository's tests). */
import type { Manifest } from "./manifest.mjs";

export declare const SKILLS_SOURCE: string;
export declare const SKILLS_OUT: string;
export declare function parseFrontmatter(yaml: string): unknown;
export declare function readSkills(source: string): Promise<{ name: string; files: { path: string; bytes: Uint8Array }[] }[]>;
export declare function buildSkills(source?: string, out?: string): Promise<Manifest | undefined>;
/** Builds the skills of the app at `root` (default: the working directory) unless unchanged since its last build; whether it built. */
export declare function buildAppSkills(root?: string): Promise<boolean>;
