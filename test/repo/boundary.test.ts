/**
 * The app uses the engine as a dependency: by its package name and its exported entries only, as it would use the
 * published package. No file of the app (its code, tests, views, scripts, configs) reaches into the package's folder
 * by a path, and the Worker's code never imports the test client (it would be uploaded with it).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const PACKAGE = "mcp-workers-engine";
/** The entries the package exports (its package.json `exports`), as an import names them. */
const ENTRIES = [PACKAGE, `${PACKAGE}/testing`];
/** The app's folders and the configs at the root: everything of the repository but the package's own folder. */
const APP_FOLDERS = ["src", "test", "views", "scripts"];
const ROOT_CONFIGS = ["vitest.config.ts"];

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === "node_modules" || name === "build" || name === "dist" || name.startsWith(".")) return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|mjs|js)$/.test(name) ? [path] : [];
  });
}

/** Every module specifier a file imports (statements, side-effect imports, `import("...")`); comment lines are not. */
function specifiersOf(file: string): string[] {
  const source = readFileSync(file, "utf8").replace(/^\s*(?:\*|\/\/|\/\*).*$/gm, "");
  const patterns = [
    /^\s*(?:import|export)\s[^'"`;]*?\bfrom\s+["']([^"']+)["']/gm,
    /^\s*import\s+["']([^"']+)["']/gm,
    /\bimport\(\s*["']([^"']+)["']\s*\)/g,
  ];
  return patterns.flatMap((pattern) => [...source.matchAll(pattern)].map(([, spec]) => spec!));
}

const files = [...APP_FOLDERS.flatMap((dir) => sourceFiles(join(root, dir))), ...ROOT_CONFIGS.map((file) => join(root, file))];
const rel = (path: string) => relative(root, path);

describe("the app's use of the engine", () => {
  it("reaches into the package's folder by no path: every file imports it by name", () => {
    expect(files.length).toBeGreaterThan(20);
    const engineFolder = join(root, "engine");
    const byPath = files.flatMap((file) =>
      specifiersOf(file)
        .filter((spec) => spec.startsWith("."))
        .filter((spec) => `${resolve(dirname(file), spec)}/`.startsWith(`${engineFolder}/`))
        .map((spec) => `${rel(file)} -> ${spec}`),
    );
    expect(byPath).toEqual([]);
  });

  it("imports only the entries the package exports", () => {
    const deep = files.flatMap((file) =>
      specifiersOf(file)
        .filter((spec) => spec === PACKAGE || spec.startsWith(`${PACKAGE}/`))
        .filter((spec) => !ENTRIES.includes(spec))
        .map((spec) => `${rel(file)} -> ${spec}`),
    );
    expect(deep).toEqual([]);
    // The check has something to check: the Worker and the tests import the package.
    expect(files.filter((file) => specifiersOf(file).includes(PACKAGE)).length).toBeGreaterThan(3);
  });

  it("keeps the test client out of the Worker: no file of src/ imports it", () => {
    const worker = files.filter((file) => file.startsWith(join(root, "src/")));
    expect(worker.filter((file) => specifiersOf(file).includes(`${PACKAGE}/testing`)).map(rel)).toEqual([]);
  });
});
