/**
 * Names that cannot drift from their places: every module of src/ names itself, in its `@module` tag, by its path
 * (so a reader searching for a module's name finds its file, and a moved file must change its tag), no comment in
 * the package names a file that does not exist (a file moved or removed takes its references with it), and no
 * comment names a part of a page that is not there.
 *
 * A reference is a path in a comment ending in a file type (`run/end.ts`, `docs/security.md`). It exists when it
 * names a file relative to the commenting file's folder or one above it (up to the package), or to src/: a bare file
 * name as well, so `config.ts` in src/http/ names nothing (write `config/config.ts`), however many files elsewhere
 * have that name. The exceptions are names of a kind of file rather than of one file (`KINDS`: every Worker has a
 * wrangler.toml) and files a build writes (`BUILT`). A possessive names someone else's file and is not checked:
 * "the template's test/e2e/...", "the app's src/tools.ts", "the extension's schema.ts".
 *
 * A part of a page is named after the page, in any of the forms a comment uses: `README "Section"`,
 * `README, "Section"`, `README's "Section"`, `docs/security.md, "Section"`, `docs/security.md ("Section")` and
 * `docs/security.md#anchor`; the page is found as a reference is (`README` is the package's README.md). It exists
 * when the page has a heading of that text (or whose anchor that is), or a list item led by that text in bold
 * (`- **Browser origins**`, how docs/security.md divides itself).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot, sourceFiles } from "./imports";

const src = join(packageRoot, "src");
/**
 * The package's code: what its comments are read from (declaration files included: they document the build). Not
 * this file, whose comments show the forms with made-up names on purpose.
 */
const FOLDERS = ["src", "test", "conformance", "bench"];
const files = FOLDERS.flatMap((folder) => sourceFiles(join(packageRoot, folder), { declarations: true })).filter(
  (file) => file !== import.meta.filename,
);

/** Names of a kind of file, not of one file of the package: a Worker's configuration, a skill's main file. */
const KINDS = ["wrangler.toml", "SKILL.md"];
/** Files the package's builds write, which a comment may name before any build ran: the skills build's manifest, the bench's bundles. */
const BUILT = ["manifest.json", "worker.js"];
const rel = (file: string) => relative(packageRoot, file);

/** The comment lines of a file, with their line numbers. */
function commentLines(file: string): { line: number; text: string }[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .map((text, index) => ({ line: index + 1, text: text.trim() }))
    .filter(({ text }) => text.startsWith("*") || text.startsWith("//") || text.startsWith("/*"));
}

/** Whether the text before a match ends in a possessive (`the template's `): someone else's file. */
const possessive = (before: string) => /'s [`"]?$/.test(before);

/** Paths a comment names: a file type at the end, not a URL, not a method call (`response.json()`), not a possessive's. */
function referencesIn(text: string): string[] {
  const paths = /(?<![\w/.:@-])((?:\.{1,2}\/)?[\w.-]+(?:\/[\w.-]+)*\.(?:ts|mts|mjs|js|md|json|toml))(?![\w/(])/g;
  return [...text.matchAll(paths)].filter((match) => !possessive(text.slice(0, match.index))).map(([, path]) => path!);
}

/** The file `path`, named in `file`, is: relative to its folder or one above it (up to the package), or to src/. */
function resolve(file: string, path: string): string | undefined {
  for (let dir = dirname(file); dir.startsWith(packageRoot); dir = dirname(dir)) if (existsSync(join(dir, path))) return join(dir, path);
  return existsSync(join(src, path)) ? join(src, path) : undefined;
}

/** Whether `path`, named in `file`, is a file of the package (or a kind of file, or one a build writes). */
function exists(file: string, path: string): boolean {
  if (KINDS.includes(path) || BUILT.includes(path)) return true;
  return resolve(file, path) !== undefined;
}

/** A part of a page a comment names: by its text (`section`) or by its anchor. */
type SectionReference = { page: string; section?: string; anchor?: string };

const PAGE = String.raw`(README|(?:\.{1,2}\/)?[\w.-]+(?:\/[\w.-]+)*\.md)`;

/** The parts of pages a comment names, in every form (see the module's comment); a possessive's are not checked. */
function sectionsIn(text: string): SectionReference[] {
  const quoted = new RegExp(String.raw`(?<![\w/.-])${PAGE}(?:'s|,)? \(?"([^"]+)"`, "g");
  const anchored = new RegExp(String.raw`(?<![\w/.-])${PAGE}#([\w-]+)`, "g");
  return [
    ...[...text.matchAll(quoted)]
      .filter((match) => !possessive(text.slice(0, match.index)))
      .map(([, page, section]) => ({ page: page!, section })),
    ...[...text.matchAll(anchored)]
      .filter((match) => !possessive(text.slice(0, match.index)))
      .map(([, page, anchor]) => ({ page: page!, anchor })),
  ];
}

/** A heading's anchor, as GitHub makes it. */
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");

/** Whether a page has the part: a heading of that text or anchor, or a list item led by the text in bold. */
function hasSection(page: string, { section, anchor }: SectionReference): boolean {
  const markdown = readFileSync(page, "utf8");
  const headings = [...markdown.matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) => heading!.trim());
  if (anchor !== undefined) return headings.some((heading) => anchorOf(heading) === anchor);
  const labels = [...markdown.matchAll(/^\s*- \*\*([^*]+)\*\*/gm)].map(([, label]) => label!);
  return headings.includes(section!) || labels.includes(section!);
}

/** Why a named part of a page is not there, or undefined when it is. */
function missingSection(file: string, reference: SectionReference): string | undefined {
  const page = reference.page === "README" ? join(packageRoot, "README.md") : resolve(file, reference.page);
  const named = `${reference.page} ${reference.section === undefined ? `#${reference.anchor}` : `"${reference.section}"`}`;
  if (!page) return `${named}: no such page`;
  return hasSection(page, reference) ? undefined : `${named}: no such part`;
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

  it('names only parts of pages that exist, in every form a comment names one: README or a page, then "Section" or #anchor', () => {
    let checked = 0;
    const missing = files.flatMap((file) =>
      commentLines(file).flatMap(({ line, text }) =>
        sectionsIn(text).flatMap((reference) => {
          checked++;
          const problem = missingSection(file, reference);
          return problem === undefined ? [] : [`${rel(file)}:${line}: ${problem}`];
        }),
      ),
    );
    expect(missing).toEqual([]);
    expect(checked).toBeGreaterThan(1);
  });

  it("finds the references it checks, and would find a dangling one", () => {
    expect(referencesIn("the loop (ask/loop.ts) and input.ts")).toEqual(["ask/loop.ts", "input.ts"]);
    expect(referencesIn("the template's test/e2e/tracing.test.ts; await response.json(); https://x.example/a.json")).toEqual([]);
    expect(exists(join(src, "run/end.ts"), "input.ts")).toBe(false);
    expect(exists(join(src, "run/end.ts"), "modern/rounds.ts")).toBe(true);
    // A bare name is found from where it is named, not anywhere: end.ts sits beside context.ts, not beside config.ts.
    expect(exists(join(src, "run/end.ts"), "context.ts")).toBe(true);
    expect(exists(join(src, "run/end.ts"), "config.ts")).toBe(false);
    expect(exists(join(src, "run/end.ts"), "config/config.ts")).toBe(true);
    expect(exists(join(src, "run/end.ts"), "wrangler.toml")).toBe(true);
  });

  it("finds the parts of pages it checks in each form, and would find one that is not there", () => {
    const file = join(src, "config/options.ts");
    const forms = [
      'README "Performance"',
      'README, "Performance"',
      `README's "Performance"`,
      'docs/security.md, "Browser origins"',
      'docs/security.md ("Limits")',
      "docs/security.md#limits",
      "README.md#performance",
    ];
    for (const form of forms) {
      const references = sectionsIn(`as ${form} says`);
      expect(references, form).toHaveLength(1);
      expect(missingSection(file, references[0]!), form).toBeUndefined();
    }
    expect(sectionsIn('the template\'s docs/guides/tools.md, "A budget"')).toEqual([]);
    expect(missingSection(file, { page: "README", section: "No such section" })).toBe('README "No such section": no such part');
    expect(missingSection(file, { page: "docs/security.md", anchor: "no-such-anchor" })).toBe(
      "docs/security.md #no-such-anchor: no such part",
    );
    expect(missingSection(file, { page: "security.md", section: "Limits" })).toBe('security.md "Limits": no such page');
  });
});
