/**
 * The README and docs/ stay true: the README is a starter (at most 200 lines) with the two commands, every page is
 * reachable from it, every link resolves (files and headings; a link into engine/ resolves in the package wherever it
 * is installed), every npm script named exists, every JSON snippet parses, the key generator works as written, and the
 * places settings files point to exist. The engine's own reference (settings, limits, the file map) is checked by the
 * engine's docs test. (The quick-start curl runs against the real server in test/e2e/quick-start.test.ts.)
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";

const pages = ["README.md", ...walk("docs")];
const text = Object.fromEntries(pages.map((page) => [page, readFileSync(page, "utf8")]));
const readme = text["README.md"]!;
const scripts = Object.keys(JSON.parse(readFileSync("package.json", "utf8")).scripts as Record<string, string>);

/**
 * Where a path of the docs is: engine/ is the engine's package folder while it is part of this repository; a fork
 * that installs the published package instead finds the same files in node_modules/mcp-workers-engine/.
 */
function located(path: string): string {
  if (!path.startsWith("engine/") || existsSync("engine")) return path;
  return join("node_modules/mcp-workers-engine", path.slice("engine/".length));
}

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
const anchorsOf = (file: string) =>
  new Set(
    [
      ...readFileSync(file, "utf8")
        .replace(/```[\s\S]*?```/g, "")
        .matchAll(/^#{1,6} (.+)$/gm),
    ].map(([, heading]) =>
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
        const file = located(target ? normalize(join(dirname(page), target)) : page);
        expect(existsSync(file), `${page} -> ${target}`).toBe(true);
        if (anchor && file.endsWith(".md")) expect(anchorsOf(file), `${page} -> ${target}#${anchor}`).toContain(anchor);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it("names only npm scripts that exist: the app's, or the engine package's with -w mcp-workers-engine", () => {
    const enginePackage = located("engine/package.json");
    const engineScripts = existsSync(enginePackage) ? Object.keys(JSON.parse(readFileSync(enginePackage, "utf8")).scripts) : [];
    const named = pages.flatMap((page) => [...text[page]!.matchAll(/npm run ([\w:-]+)( -w mcp-workers-engine)?/g)]);
    expect(named.length).toBeGreaterThan(5);
    for (const [call, name, engine] of named) expect(engine ? engineScripts : scripts, call).toContain(name);
  });

  it("has JSON snippets that parse", () => {
    const json = pages.flatMap((page) => blocksOf(page).filter((block) => block.lang === "json"));
    expect(json.length).toBeGreaterThan(0);
    for (const block of json) expect(() => JSON.parse(block.body)).not.toThrow();
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

describe("the configuration files' comments", () => {
  const files = [".dev.vars.example", "wrangler.toml"].filter((file) => existsSync(file));

  it("point only at documents and sections that exist", () => {
    let checked = 0;
    for (const file of files) {
      const comments = readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => line.trimStart().startsWith("#"))
        .join("\n");
      // A document by its path (docs/..., engine/...), with a section after it: docs/x.md, "Section".
      const flat = comments.replace(/\n#\s*/g, " ");
      for (const [, path, section] of flat.matchAll(/((?:docs|engine)\/[\w./-]+\.md)(?:, "([^"]+)")?/g)) {
        const page = located(path!);
        expect(existsSync(page), `${file} -> ${path}`).toBe(true);
        const heading = section?.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        if (heading) expect(readFileSync(page, "utf8"), `${file} -> ${path}, "${section}"`).toMatch(new RegExp(`^#{1,6} ${heading}$`, "m"));
        checked++;
      }
      // The README is a starter now: its sections are few and named by path, never as "README, ...".
      expect(comments, file).not.toMatch(/README[,"]|README "/);
    }
    expect(checked).toBeGreaterThan(2);
  });
});
