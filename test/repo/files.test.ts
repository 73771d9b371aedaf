/**
 * Every file of the app is used: each module is imported by another, or named where it runs (wrangler.toml's `main`,
 * package.json's scripts, vitest.config.ts's setup files, a wrangler config beside it). A helper whose last test went,
 * or a script that nothing runs, fails here: a fork keeps only what it uses (`npm run blank` included).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
/** The app's folders (the engine's package folder has its own checks). */
const FOLDERS = ["src", "test", "scripts", "views"];
/** Files that name others where they run. */
const CONFIGS = ["package.json", "vitest.config.ts", "wrangler.toml", "tsconfig.json", ".ci/run"];

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === "node_modules" || name === "build" || name === "screenshots" || name.startsWith(".")) return [];
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const all = [...FOLDERS.flatMap((folder) => filesUnder(join(root, folder))), ...CONFIGS.map((file) => join(root, file))].filter((file) =>
  existsSync(file),
);
const text = new Map(all.map((file) => [file, readFileSync(file, "utf8")]));

/** Modules and settings files: what must be used. Tests run by vitest's include; the rest are assets and configs. */
const isModule = (file: string) => /\.(ts|mts|mjs|js|env)$/.test(file) && !/\.test\.ts$/.test(file) && !/\.d\.m?ts$/.test(file);
/** A view's own files are its build's input (views/build.mjs builds each folder of views/). */
const isViewSource = (file: string) => relative(root, file).split("/").length === 3 && relative(root, file).startsWith("views/");

/** The files `file` uses: its relative imports, resolved; a wrangler config's `main`; paths it names from the root. */
function usedBy(file: string): string[] {
  const source = text.get(file)!;
  const imports = [...source.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)["'](\.{1,2}\/[^"'?]+)(?:\?raw)?["']/g)].map(([, spec]) => {
    const base = resolve(dirname(file), spec!);
    return [base, `${base}.ts`, join(base, "index.ts")].find((path) => existsSync(path) && statSync(path).isFile()) ?? base;
  });
  const main = /^main = "([^"]+)"/m.exec(file.endsWith(".toml") ? source : "")?.[1];
  const named = all.filter((other) => other !== file && source.includes(relative(root, other)));
  return [...imports, ...(main ? [resolve(dirname(file), main)] : []), ...named];
}

describe("the app's files", () => {
  it("are each used: imported, or named where they run", () => {
    const used = new Set(all.flatMap(usedBy));
    const modules = all.filter(isModule).filter((file) => !isViewSource(file));
    expect(modules.length).toBeGreaterThan(5);
    expect(modules.filter((file) => !used.has(file)).map((file) => relative(root, file))).toEqual([]);
  });
});
