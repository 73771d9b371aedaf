/** The types of blank.mjs's exports (the script is plain Node, run as it is, so its types live here). */

/** The example's own files and folders (a path ending in "/" is a folder): `npm run blank` removes them. */
export declare const EXAMPLE_PATHS: readonly string[];
/** This command's own files and the README step's check (the rest of scripts/ stays): removed once the example is gone. */
export declare const BLANK_TOOLING: readonly string[];
/** This command's npm scripts, removed with it: `blank` and `test:template`. */
export declare const BLANK_SCRIPTS: readonly string[];
/** How the example's names read: Notebook, notebook_id, notes, note://... */
export declare const EXAMPLE_WORDS: RegExp;
/** A wrangler.toml without its [[migrations]] tables and the comment lines right above each. */
export declare function withoutMigrations(toml: string): string;
/** What is left to remove in the fork at `root`. */
export declare function pendingChanges(root: string): {
  paths: string[];
  declarations: string[];
  edits: { file: string; what: string }[];
  migration: boolean;
  package: { scripts: string[]; check: boolean; dependencies: string[]; any: boolean };
};
