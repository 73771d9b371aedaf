/**
 * Names that cannot drift from their places: every module of src/ names itself, in its `@module` tag, by its path
 * (so a reader searching for a module's name finds its file, and a moved file must change its tag), and no comment
 * in the package names a file that does not exist (a file moved or removed takes its references with it).
 *
 * A reference is a path in a comment ending in a file type (`run/end.ts`, `docs/security.md`). It exists when it
 * names a file relative to the commenting file's folder or one above it (up to the package), or to src/; a bare
 * file name exists when some file of the package has it. A possessive names someone else's file and is not
 * checked: "the template's test/e2e/...", "the app's src/tools.ts", "the extension's schema.json".
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot, sourceFiles } from "./imports";

const src = join(packageRoot, "src");
/** The package's code: what its comments are read from (declaration files included: they document the build). */
const FOLDERS = ["src", "test", "conformance", "bench"];
const files = FOLDERS.flatMap((folder) => sourceFiles(join(packageRoot, folder), { declarations: true }));

/**
 * The name of every file of the package, of any type (a comment may name its wrangler.toml, a SKILL.md, ...), as a
 * fresh clone has them: build output (`build/`, `dist/`) is left out, so the answer does not depend on what was built.
 */
function everyName(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === "node_modules" || name === "build" || name === "dist" || name.startsWith(".")) return [];
    const path = join(dir, name);
    return statSync(path).isDirectory() ? everyName(path) : [name];
  });
}
/** Files the package's builds write, which a comment may name before any build ran: the skills build's manifest. */
const BUILT = ["manifest.json"];
const names = new Set([...everyName(packageRoot), ...BUILT]);
const rel = (file: string) => relative(packageRoot, file);

/** The comment lines of a file, with their line numbers. */
function commentLines(file: string): { line: number; text: string }[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .map((text, index) => ({ line: index + 1, text: text.trim() }))
    .filter(({ text }) => text.startsWith("*") || text.startsWith("//") || text.startsWith("/*"));
}

/** Paths a comment names: a file type at the end, not a URL, not a method call (`response.json()`), not a possessive's. */
function referencesIn(text: string): string[] {
  const paths = /(?<![\w/.:@-])((?:\.{1,2}\/)?[\w.-]+(?:\/[\w.-]+)*\.(?:ts|mts|mjs|js|md|json|toml))(?![\w/(])/g;
  return [...text.matchAll(paths)].filter((match) => !/'s [`"]?$/.test(text.slice(0, match.index))).map(([, path]) => path!);
}

/** Whether `path`, named in `file`, is a file of the package. */
function exists(file: string, path: string): boolean {
  if (!path.includes("/")) return names.has(path) || existsSync(join(dirname(file), path));
  for (let dir = dirname(file); dir.startsWith(packageRoot); dir = dirname(dir)) if (existsSync(join(dir, path))) return true;
  return existsSync(join(src, path));
}

describe("the package's names", () => {
  it("tags every module of src/ with its own path (`@module run/end` is src/run/end.ts)", () => {
    const modules = sourceFiles(src);
    expect(modules.length).toBeGreaterThan(100);
    const wrong = modules.flatMap((file) => {
      const place = relative(src, file).replace(/\.(ts|mts|mjs|js)$/, "");
      const tags = [...readFileSync(file, "utf8").matchAll(/^ \* @module (\S+)/gm)].map(([, tag]) => tag);
      return tags.length === 1 && tags[0] === place ? [] : [`${rel(file)}: @module ${tags.join(", ") || "(none)"}, not ${place}`];
    });
    expect(wrong).toEqual([]);
  });

  it("names in its comments only files that exist", () => {
    const dangling = files.flatMap((file) =>
      commentLines(file).flatMap(({ line, text }) =>
        referencesIn(text)
          .filter((path) => !exists(file, path))
          .map((path) => `${rel(file)}:${line}: ${path}`),
      ),
    );
    expect(dangling).toEqual([]);
  });

  it('names only sections of its README that exist (`README "Section"`)', () => {
    const headings = new Set(
      [...readFileSync(join(packageRoot, "README.md"), "utf8").matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) => heading),
    );
    const missing = files.flatMap((file) =>
      commentLines(file).flatMap(({ line, text }) =>
        [...text.matchAll(/README,? "([^"]+)"/g)]
          .filter(([, section]) => !headings.has(section!))
          .map(([, section]) => `${rel(file)}:${line}: ${section}`),
      ),
    );
    expect(missing).toEqual([]);
  });

  it("finds the references it checks, and would find a dangling one", () => {
    expect(referencesIn("the loop (ask/loop.ts) and input.ts")).toEqual(["ask/loop.ts", "input.ts"]);
    expect(referencesIn("the template's test/e2e/tracing.test.ts; await response.json(); https://x.example/a.json")).toEqual([]);
    expect(exists(join(src, "run/end.ts"), "input.ts")).toBe(false);
    expect(exists(join(src, "run/end.ts"), "modern/rounds.ts")).toBe(true);
  });
});
