/**
 * The README and docs/ stay true: the README is a starter (at most 200 lines), every page is reachable from it, every
 * link resolves (files and headings), every npm script named exists, every JSON snippet parses, the file map names real
 * files and every engine and test folder, every setting and every limit is documented with its default, and the key
 * generator works as written. (The quick-start curl runs against the real server in test/e2e/quick-start.test.ts.)
 * The docs illustrate the engine with the example app, so they may name its files and scripts even in a fork that
 * removed them (`npm run blank`): the script's own lists say which those are.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { limitTable } from "../../engine/src/config/options";
import { EXAMPLE_SCRIPTS, isExamplePath } from "../../scripts/blank.mjs";

const pages = ["README.md", ...walk("docs")];
const text = Object.fromEntries(pages.map((page) => [page, readFileSync(page, "utf8")]));
const readme = text["README.md"]!;
const scripts = Object.keys(JSON.parse(readFileSync("package.json", "utf8")).scripts as Record<string, string>);
/** A file the docs name is there, or is one of the example's that `npm run blank` removed. */
const present = (path: string) => existsSync(path) || isExamplePath(path);

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : name.endsWith(".md") ? [path] : [];
  });
}

/** Fenced code blocks of a page. */
const blocksOf = (page: string) =>
  [...text[page]!.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map(([, lang, body]) => ({ lang: lang!, body: body! }));
/** A page's text outside fenced code blocks (links in code are examples, not links). */
const prose = (page: string) => text[page]!.replace(/```[\s\S]*?```/g, "");
/** GitHub's heading anchors: lowercase, punctuation dropped, spaces to hyphens. */
const anchorsOf = (page: string) =>
  new Set(
    [...prose(page).matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) =>
      heading!
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, "")
        .replace(/ /g, "-"),
    ),
  );

describe("README and docs/", () => {
  it("keeps the README a starter: at most 200 lines, with the two commands", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(200);
    expect(readme).toContain("npm install && npm run dev");
    expect(readme).toContain("npm test");
  });

  it("reaches every page of docs/ from the README or the docs index", () => {
    const linked = new Set<string>();
    for (const page of ["README.md", "docs/README.md"]) {
      for (const [, target] of prose(page).matchAll(/\]\(([^)#\s]+\.md)(#[^)]*)?\)/g)) linked.add(normalize(join(dirname(page), target!)));
    }
    for (const page of pages.filter((page) => page.startsWith("docs/") && page !== "docs/README.md")) expect(linked, page).toContain(page);
  });

  it("has links that resolve: every relative file exists and every heading anchor is on its page", () => {
    let checked = 0;
    for (const page of pages) {
      for (const [, target, anchor] of prose(page).matchAll(/\]\((?!https?:|mailto:)([^)#\s]*)(?:#([^)\s]+))?\)/g)) {
        const file = target ? normalize(join(dirname(page), target)) : page;
        expect(present(file), `${page} -> ${target}`).toBe(true);
        if (anchor && file.endsWith(".md") && existsSync(file)) expect(anchorsOf(file), `${page} -> ${target}#${anchor}`).toContain(anchor);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it("names only npm scripts that exist", () => {
    const named = pages.flatMap((page) => [...text[page]!.matchAll(/npm run ([\w:-]+)/g)].map(([, name]) => name!));
    expect(named.length).toBeGreaterThan(10);
    for (const name of named) expect([...scripts, ...EXAMPLE_SCRIPTS], `npm run ${name}`).toContain(name);
  });

  it("has JSON snippets that parse", () => {
    const json = pages.flatMap((page) => blocksOf(page).filter((block) => block.lang === "json"));
    expect(json.length).toBeGreaterThan(0);
    for (const block of json) expect(() => JSON.parse(block.body)).not.toThrow();
  });

  it("maps only files and folders that exist, and every engine and test folder", () => {
    const map = text["docs/architecture.md"]!.split("## File map")[1]!.split("\n## ")[0]!;
    const paths = [...map.matchAll(/^\| `([^`]+)` +\|/gm)].map(([, path]) => path!);
    expect(paths.length).toBeGreaterThan(8);
    for (const path of paths) expect(present(path), path).toBe(true);
    const folders = (dir: string) =>
      readdirSync(dir)
        .filter((name) => statSync(`${dir}/${name}`).isDirectory() && name !== "node_modules")
        .map((name) => `${dir}/${name}/`);
    for (const folder of [...folders("src/mcp"), ...folders("test").filter((path) => path !== "test/helpers/")])
      expect(paths, folder).toContain(folder);
  });

  it("documents every setting the server reads, in the configuration reference", () => {
    const settings = [
      ...readFileSync("src/mcp/config/settings.ts", "utf8").matchAll(/read\.(?:string|integer|oneOf|list)\("([A-Z_]+)"/g),
    ].map(([, name]) => name!);
    expect(settings.length).toBeGreaterThan(12);
    for (const name of new Set(settings)) expect(text["docs/configuration.md"], name).toContain(`| \`${name}\``);
  });

  it("documents every limit of createMcpWorker with its default, in the configuration reference", () => {
    const limits = limitTable();
    expect(limits.length).toBeGreaterThan(25);
    for (const { name, fallback } of limits) {
      expect(text["docs/configuration.md"], name).toMatch(new RegExp(`\\| \`${name.replace(".", "\\.")}\` +\\| \`${fallback}\``));
    }
  });

  it("has a key generator whose output is a valid STATE_KEYS value", () => {
    const command = /echo "k1:\$\(openssl rand -base64 32\)"/.exec(readme)![0];
    const value = execFileSync("sh", ["-c", command], { encoding: "utf8" }).trim();
    expect(value).toMatch(/^k1:[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(value.slice(3), "base64").length).toBe(32);
  });

  it("has no unfinished placeholders", () => {
    for (const page of pages) expect(text[page], page).not.toMatch(/PLACEHOLDER|TODO|TBD/);
  });
});
