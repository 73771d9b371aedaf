/**
 * The package's reference stays true: its README and docs/ link only to files of the package and to headings that
 * exist, name only npm scripts that exist, document every setting the server reads (and read every one they
 * document), every limit with its default, and map every folder of src/ and only files that exist.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { limitTable } from "../../src/config/options";
import { packageRoot } from "./imports";

const at = (path: string) => join(packageRoot, path);
const pages = ["README.md", "CHANGELOG.md", ...walk("docs")];
const text = Object.fromEntries(pages.map((page) => [page, readFileSync(at(page), "utf8")]));
const scriptsOf = (file: string) => (existsSync(file) ? Object.keys(JSON.parse(readFileSync(file, "utf8")).scripts ?? {}) : []);

function walk(dir: string): string[] {
  return readdirSync(at(dir)).flatMap((name) => {
    const path = join(dir, name);
    return statSync(at(path)).isDirectory() ? walk(path) : name.endsWith(".md") ? [path] : [];
  });
}

/** A page's text outside fenced code blocks (links in code are examples, not links). */
const prose = (page: string) => text[page]!.replace(/```[\s\S]*?```/g, "");
const anchorsOf = (page: string) =>
  new Set(
    [...prose(page).matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) =>
      heading!
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, "")
        .replace(/ /g, "-"),
    ),
  );

/** The settings table of the configuration reference: the name in the first column of each row. */
const documentedSettings = () =>
  [...text["docs/configuration.md"]!.split("## Limits and options")[0]!.matchAll(/^\| `([A-Z][A-Z0-9_]+)`/gm)].map(([, name]) => name!);

describe("the package's README and docs/", () => {
  it("links only to files inside the package, which exist, and to headings on their pages", () => {
    let checked = 0;
    for (const page of pages) {
      for (const [, target, anchor] of prose(page).matchAll(/\]\((?!https?:|mailto:)([^)#\s]*)(?:#([^)\s]+))?\)/g)) {
        const file = target ? normalize(join(dirname(page), target)) : page;
        expect(file.startsWith(".."), `${page} -> ${target}: outside the package, which is published without it`).toBe(false);
        expect(existsSync(at(file)), `${page} -> ${target}`).toBe(true);
        if (anchor && file.endsWith(".md")) expect(anchorsOf(file), `${page} -> ${target}#${anchor}`).toContain(anchor);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(10);
  });

  it("names only npm scripts that exist: the package's own, or the template's (the app a fork owns)", () => {
    const known = [...scriptsOf(at("package.json")), ...scriptsOf(at("../package.json"))];
    const named = pages.flatMap((page) => [...text[page]!.matchAll(/npm run ([\w:-]+)/g)].map(([, name]) => `${page}: ${name}`));
    expect(named.filter((entry) => !known.includes(entry.split(": ")[1]!))).toEqual([]);
  });

  it("documents every setting the server reads, and reads every setting it documents", () => {
    const settings = [
      ...readFileSync(at("src/config/settings.ts"), "utf8").matchAll(/read\.(?:string|integer|oneOf|list)\("([A-Z_]+)"/g),
    ].map(([, name]) => name!);
    expect(settings.length).toBeGreaterThan(12);
    const documented = documentedSettings();
    expect([...new Set(settings)].filter((name) => !documented.includes(name))).toEqual([]);
    expect(documented.filter((name) => !settings.includes(name))).toEqual([]);
  });

  it("documents every limit of createMcpWorker with its default", () => {
    const limits = limitTable();
    expect(limits.length).toBeGreaterThan(25);
    for (const { name, fallback } of limits) {
      expect(text["docs/configuration.md"], name).toMatch(new RegExp(`\\| \`${name.replace(".", "\\.")}\` +\\| \`${fallback}\``));
    }
  });

  it("maps only files and folders that exist, and every folder of src/", () => {
    const map = text["docs/architecture.md"]!.split("## File map")[1]!.split("\n## ")[0]!;
    const paths = [...map.matchAll(/^\| `([^`]+)` +\|/gm)].map(([, path]) => path!);
    expect(paths.length).toBeGreaterThan(10);
    for (const path of paths) expect(existsSync(at(path)), path).toBe(true);
    const folders = readdirSync(at("src")).filter((name) => statSync(at(`src/${name}`)).isDirectory());
    for (const folder of folders) expect(paths, `src/${folder}/`).toContain(`src/${folder}/`);
  });

  it("has no unfinished placeholders", () => {
    for (const page of pages) expect(text[page], page).not.toMatch(/PLACEHOLDER|TODO|TBD/);
  });

  it("is all in the tarball: README, CHANGELOG and docs/ are in package.json's files", () => {
    const files: string[] = JSON.parse(readFileSync(at("package.json"), "utf8")).files;
    for (const page of pages)
      expect(
        files.some((entry) => page === entry || page.startsWith(`${entry}/`)),
        relative(".", page),
      ).toBe(true);
  });
});
