/**
 * The README and docs/ stay true: the README is a starter (at most 200 lines) with the two commands, every page is
 * reachable from it, every link resolves (files and headings; a link into engine/ resolves in the package wherever it
 * is installed), every npm script named exists, every JSON snippet parses, the key generator works as written, and the
 * places settings files point to exist, and every setting named (in the docs and the configuration files) is one the
 * engine reads. The engine's own reference (settings, limits, the file map) is checked by the engine's docs test,
 * which holds its settings table equal to what the engine reads. (The quick-start curl runs against the real server
 * in test/e2e/quick-start.test.ts.)
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

/** The rows of a table of the engine's configuration reference: the name in each first column, in one part of it. */
const firstColumn = (part: string) => [...part.matchAll(/^\| `([A-Za-z][\w.]*)`/gm)].map(([, name]) => name!);
const engineConfiguration = () => readFileSync(located("engine/docs/configuration.md"), "utf8");
/** The settings the engine reads: its reference's settings table (its docs test holds the table to what it reads). */
const engineSettings = () => firstColumn(engineConfiguration().split("## Limits and options")[0]!);
/** Bindings: the engine's (its reference's bindings table) and the app's own (wrangler.toml's `name`/`binding`). */
const bindings = () => [
  ...firstColumn(engineConfiguration().split("| binding ")[1]!.split("\n\n")[0]!),
  ...[...readFileSync("wrangler.toml", "utf8").matchAll(/^(?:name|binding) = "([A-Z][A-Z0-9_]*)"$/gm)].map(([, name]) => name!),
];

/**
 * Names the docs write like settings (capitals with an underscore) that are not the Worker's, and what each is. The
 * test checks that each is still named, and is no setting or binding.
 */
const NOT_SETTINGS: Record<string, string> = {
  CLOUDFLARE_CF_FETCH_ENABLED: "wrangler's own environment variable (whether it downloads request.cf data)",
  ENGINE_VERSION: "the engine's version, a constant it exports",
  EXPORT_LIMITER: "the binding of the tools guide's example budget, which the template does not have",
  FC_RUNS: "the environment of npm test: how many cases each property-based test runs",
  FC_SEED: "the environment of npm test: the seed a property-based test replays",
  MCP_URL: "the app tests' server URL, a constant of test/wire.ts",
};

/** Where the template names settings: the README, docs/, and the configuration files' comments and keys. */
const SETTING_PAGES = [...pages, ".dev.vars.example", "wrangler.toml"].filter((file) => existsSync(file));

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

  it("names only settings the engine reads: every name written like one is a setting, a binding, or not the Worker's", () => {
    const settings = engineSettings();
    const known = new Set([...settings, ...bindings()]);
    expect(settings.length).toBeGreaterThan(12);
    const named = SETTING_PAGES.flatMap((page) =>
      [...readFileSync(page, "utf8").matchAll(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/g)].map(([name]) => ({ page, name })),
    );
    expect(named.length).toBeGreaterThan(30);
    const unknown = named.filter(({ name }) => !known.has(name) && !(name in NOT_SETTINGS));
    expect(unknown.map(({ page, name }) => `${page}: ${name}`)).toEqual([]);
    for (const name of Object.keys(NOT_SETTINGS)) {
      expect(
        named.map((entry) => entry.name),
        `${name} is no longer named: drop it from NOT_SETTINGS`,
      ).toContain(name);
      expect(known.has(name), name).toBe(false);
    }
  });

  it("gives values only to settings the engine reads (.dev.vars lines, [vars], secret put, --var), and links to them all", () => {
    const settings = engineSettings();
    const devVars = existsSync(".dev.vars.example") ? readFileSync(".dev.vars.example", "utf8") : "";
    const plainVars =
      readFileSync("wrangler.toml", "utf8")
        .split(/^\[vars\]$/m)[1]
        ?.split(/^\[/m)[0] ?? "";
    const commands = pages.map((page) => text[page]!).join("\n");
    const given = [
      ...[...devVars.matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map(([, name]) => `.dev.vars.example: ${name}`),
      ...[...plainVars.matchAll(/^([A-Z][A-Z0-9_]*) = /gm)].map(([, name]) => `wrangler.toml [vars]: ${name}`),
      ...[...commands.matchAll(/\bsecret put ([A-Z][A-Z0-9_]*)|--var ([A-Z][A-Z0-9_]*):/g)].map(
        ([, secret, plain]) => `docs: ${secret ?? plain}`,
      ),
    ];
    expect(given.length).toBeGreaterThan(8);
    expect(given.filter((entry) => !settings.includes(entry.split(": ")[1]!))).toEqual([]);
    // The other way: the docs send readers to the engine's reference, which documents every setting the engine reads.
    expect(prose("docs/README.md")).toContain("](../engine/docs/configuration.md)");
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
