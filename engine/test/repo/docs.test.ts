/**
 * The package's reference stays true: its README and docs/ link only to files of the package and to headings that
 * exist, name only npm scripts that exist, document every setting the server reads (and read every one they
 * document; what it reads is recorded as its configuration loader runs, not listed here), name no setting it does
 * not read, document every limit with its default, and map every folder of src/ and only files that exist.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { limitTable, resolveOptions } from "../../src/config/options";
import { loadConfig } from "../../src/worker/load-config";
import { packageRoot, sourceFiles } from "./imports";

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

/** The names in the first column of a table's rows (`| \`NAME\` ...`), in a part of the configuration reference. */
const firstColumn = (part: string) => [...part.matchAll(/^\| `([A-Za-z][\w.]*)`/gm)].map(([, name]) => name!);
const configuration = () => text["docs/configuration.md"]!;
/** The settings table of the configuration reference (before its limits and options). */
const documentedSettings = () => firstColumn(configuration().split("## Limits and options")[0]!);
/** The bindings table of the configuration reference: a binding is not a setting, though the loader looks one up. */
const documentedBindings = () => firstColumn(configuration().split("| binding ")[1]!.split("\n\n")[0]!);
/** Every option and limit the reference documents (`legacyClients`, `request.maxBodyBytes`, ...): its tables before the bindings. */
const documentedOptions = () => firstColumn(configuration().split("## Limits and options")[1]!.split("| binding ")[0]!);

/**
 * The Worker's env in each mode the configuration branches on: nothing set, production, an external issuer, and the
 * built-in authorization server with each of its logins. Between them they reach every read the source spells out
 * (the test checks that), so a new branch that reads more needs a mode here.
 */
const MODES: Record<string, unknown>[] = [
  {},
  { MCP_ENV: "production" },
  { AUTH_ISSUER: "https://issuer.example/" },
  { AUTH_LOGIN: "github" },
  { AUTH_LOGIN: "oidc" },
];

/**
 * Every name the engine's configuration loader looks up in the Worker's env, recorded while it runs in each mode.
 * Why the loader: it is the only reader of settings (worker/create.ts builds the configuration with it once per
 * isolate, and every other module is given the result; the test checks that no module reads any other name of the
 * env but a binding), so what it looks up is what the server reads, however the source spells the read. Listing the
 * env's names is refused: a loader that read only the names a mode sets would hide the rest from the record.
 */
function namesTheLoaderLooksUp(): Set<string> {
  const seen = new Set<string>();
  const recorded = <T>(name: string | symbol, answer: T): T => {
    if (typeof name === "string") seen.add(name);
    return answer;
  };
  for (const mode of MODES) {
    const env = new Proxy(mode, {
      get: (target, name) => recorded(name, Reflect.get(target, name)),
      has: (target, name) => recorded(name, Reflect.has(target, name)),
      getOwnPropertyDescriptor: (target, name) => recorded(name, Reflect.getOwnPropertyDescriptor(target, name)),
      ownKeys: () => {
        throw new Error("the configuration loader lists the env's names");
      },
    });
    loadConfig(env, resolveOptions(), true);
  }
  return seen;
}

/**
 * The names the source spells out where it reads the env, in any file: a setting by `read.<kind>("NAME")`
 * (config/settings.ts's reader, whatever the kind) or `isSettingGiven(vars, "NAME")`, and anything by `env.NAME`,
 * `env["NAME"]` (or `vars.`).
 */
function namesReadInSource(): { settings: string[]; fromEnv: string[] } {
  const settingReads = /\bread\.\w+\(\s*"([A-Z][A-Z0-9_]*)"|\bisSettingGiven\(\s*\w+,\s*"([A-Z][A-Z0-9_]*)"/g;
  const envReads = /\b(?:env|vars)\??\.([A-Z][A-Z0-9_]*)\b|\b(?:env|vars)\[\s*"([A-Z][A-Z0-9_]*)"\s*\]/g;
  const sources = sourceFiles(at("src")).map((file) => readFileSync(file, "utf8"));
  const names = (pattern: RegExp) => [
    ...new Set(sources.flatMap((source) => [...source.matchAll(pattern)].map(([, one, other]) => (one ?? other)!))),
  ];
  return { settings: names(settingReads), fromEnv: names(envReads) };
}

/**
 * What a name the loader looks up but the settings table does not list must be: a retired setting, refused (the
 * configuration is invalid, naming it and the option that replaced it, which the reference documents), or else
 * `undefined`, and so an undocumented setting.
 */
function refusedAsRetired(name: string): string | undefined {
  const loaded = loadConfig({ MCP_ENV: "development", [name]: "1" }, resolveOptions(), true);
  const problems = loaded.ok ? [] : loaded.problems;
  const option = problems
    .map((problem) => new RegExp(`^${name} is no longer read: set the createMcpWorker option (\\S+) instead$`).exec(problem)?.[1])
    .find(Boolean);
  return option === undefined ? undefined : option.replace(/^limits\./, "");
}

/**
 * Names on the pages written like settings (capitals with an underscore) that are not settings, bindings or retired
 * settings, and what each is. The test checks that each is still on a page, and that the loader never reads one.
 */
const NOT_SETTINGS: Record<string, string> = {
  ENGINE_VERSION: "the package's version, a constant it exports (src/version.ts)",
  MAX_EARLY_ANSWER_BYTES: "a fixed bound of a 2025 session (src/legacy/session.ts)",
  MAX_ID_BYTES: "a fixed bound of a request id (src/wire/envelope.ts)",
  UNSUPPORTED_RESULT_TYPE: "an error code of the MCP TypeScript client",
};

/** The pages a reader learns the settings from: the README and docs/ (the CHANGELOG also tells what was). */
const referencePages = () => pages.filter((page) => page !== "CHANGELOG.md");

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
    const lookedUp = namesTheLoaderLooksUp();
    const spelledOut = namesReadInSource();
    const documented = documentedSettings();
    const bindings = documentedBindings();
    expect(spelledOut.settings.length).toBeGreaterThan(12);
    expect(documented.length).toBeGreaterThan(12);
    expect(bindings.length).toBeGreaterThan(4);
    expect(
      spelledOut.settings.filter((name) => !lookedUp.has(name)),
      "reads in the source that no mode reaches: add the mode to MODES",
    ).toEqual([]);
    expect(
      spelledOut.fromEnv.filter((name) => !lookedUp.has(name) && !bindings.includes(name)),
      "read from the env outside the configuration loader, and not a binding",
    ).toEqual([]);
    const options = documentedOptions();
    const undocumented = [...lookedUp].filter((name) => !documented.includes(name) && !bindings.includes(name));
    const retired = undocumented.map((name) => [name, refusedAsRetired(name)] as const);
    expect(
      retired.filter(([, option]) => option === undefined).map(([name]) => name),
      "read, but neither in the settings table, nor in the bindings table, nor refused as retired",
    ).toEqual([]);
    expect(
      retired.filter(([, option]) => !options.includes(option!)),
      "refused as retired, naming an option the reference does not document",
    ).toEqual([]);
    expect(
      documented.filter((name) => !lookedUp.has(name)),
      "in the settings table, but never read",
    ).toEqual([]);
  });

  it("names no setting it does not read: each name written like one is a setting, a binding or a retired setting", () => {
    const lookedUp = namesTheLoaderLooksUp();
    const known = new Set([...documentedSettings(), ...documentedBindings()]);
    const named = referencePages().flatMap((page) =>
      [...text[page]!.matchAll(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/g)].map(([name]) => ({ page, name })),
    );
    expect(named.length).toBeGreaterThan(30);
    const unknown = named.filter(
      ({ name }) => !known.has(name) && !(name in NOT_SETTINGS) && !(lookedUp.has(name) && refusedAsRetired(name) !== undefined),
    );
    expect(unknown.map(({ page, name }) => `${page}: ${name}`)).toEqual([]);
    // The exceptions hold: each is still named, and none is something the server reads.
    for (const name of Object.keys(NOT_SETTINGS)) {
      expect(
        named.map((entry) => entry.name),
        name,
      ).toContain(name);
      expect(lookedUp.has(name), name).toBe(false);
    }
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
