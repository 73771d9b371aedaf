/**
 * The engine's public boundary and its import graph, checked from the source files: code outside `src/mcp/`
 * imports only `src/mcp/index.ts` and the test client's `src/mcp/testing/index.ts`; the Worker never reaches the
 * test client; the engine imports nothing of the app's; the engine's tests never drive the example app; the engine
 * has no import cycles.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const engine = join(root, "src/mcp");
const boundary = join(engine, "index.ts");
/** The test client's public entry: tests import it; the Worker must not (it would be uploaded with it). */
const testing = join(engine, "testing");
const testingEntry = join(testing, "index.ts");
/** What the Worker is built from: wrangler.toml's `main`, and the engine's public module it re-exports. */
const WORKER_ENTRIES = ["src/index.ts", "src/mcp/index.ts"];

/** Measures the state codec itself, below the public API (README "Benchmarks"); it is the engine's own benchmark. */
const ENGINE_BENCHMARKS = ["bench/state-cost.mjs"];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === "node_modules" || name === "dist" || name.startsWith(".")) return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs|js)$/.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Every relative module a file imports (static, dynamic, re-export), resolved to a file path. */
function importsOf(file: string): string[] {
  // Comment lines are not imports: a JSDoc example (`import worker from "../../../src"`) names what its reader imports.
  const source = readFileSync(file, "utf8").replace(/^\s*(?:\*|\/\/|\/\*).*$/gm, "");
  const specifiers = [...source.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)["'](\.{1,2}\/[^"']+)["']/g)].map(([, spec]) => spec!);
  return specifiers.map((spec) => {
    const base = resolve(dirname(file), spec);
    const candidates = [base, `${base}.ts`, join(base, "index.ts")];
    return candidates.find((path) => existsSync(path) && statSync(path).isFile()) ?? base;
  });
}

const inEngine = (path: string) => path.startsWith(`${engine}/`);
const rel = (path: string) => relative(root, path);

/** The example app a fork replaces: everything in src/ outside the engine (index.ts, tools.ts, notes.ts, ...). */
const inApp = (path: string) => path.startsWith(`${join(root, "src")}/`) && !inEngine(path);
/** The test folders the engine owns (replaced by `engine:update`) that run code: they must pass whatever the app is. */
const ENGINE_TEST_DIRS = ["test/engine", "test/helpers", "test/conformance"];
/** Reaching the app through the test pool's entry point instead of an import: the Worker that wrangler.toml names. */
const APP_ENTRY = /\bexports\s*(?:\.\s*default\b|\[\s*["']default["']\s*\])|\bSELF\b/;
describe("the engine's boundary", () => {
  it("is, with the test client's entry, the only engine module that the app, its tests, the conformance fixture and the bench Workers import", () => {
    const outside = [...sourceFiles(join(root, "src")), ...sourceFiles(join(root, "test")), ...sourceFiles(join(root, "bench"))].filter(
      // The engine's own tests (test/engine/, and test/repo/, which checks the engine's tables against the docs) may
      // reach inside it; everything else goes through the public module.
      (file) => !inEngine(file) && !file.startsWith(join(root, "test/engine/")) && !file.startsWith(join(root, "test/repo/")),
    );
    expect(outside.length).toBeGreaterThan(20);
    const violations = outside
      .filter((file) => !ENGINE_BENCHMARKS.includes(rel(file)))
      .flatMap((file) =>
        importsOf(file)
          .filter((target) => inEngine(target) && target !== boundary && target !== testingEntry)
          .map((target) => `${rel(file)} -> ${rel(target)}`),
      );
    expect(violations).toEqual([]);
  });

  it("keeps the test client out of the Worker: nothing the Worker entry imports, however indirectly, reaches src/mcp/testing/", () => {
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file) || !existsSync(file)) return;
      reached.add(file);
      for (const target of importsOf(file)) visit(target);
    };
    for (const entry of WORKER_ENTRIES) visit(join(root, entry));
    // The walk reaches the app and the engine (else it proves nothing), and never the test client.
    expect([...reached].map(rel)).toEqual(expect.arrayContaining(["src/tools.ts", "src/mcp/worker/create.ts"]));
    expect([...reached].filter((file) => file.startsWith(`${testing}/`)).map(rel)).toEqual([]);
  });

  it("keeps the engine free of imports from the app", () => {
    const violations = sourceFiles(engine).flatMap((file) =>
      importsOf(file)
        .filter((target) => !inEngine(target))
        .map((target) => `${rel(file)} -> ${rel(target)}`),
    );
    expect(violations).toEqual([]);
  });

  it("keeps the engine's tests independent of the example app", () => {
    const files = ENGINE_TEST_DIRS.flatMap((dir) => sourceFiles(join(root, dir)));
    expect(files.length).toBeGreaterThan(20);
    // Every one of them, without exception: they drive the engine's fixture (test/helpers/fixture.ts), never the app.
    const violations = files.flatMap((file) => [
      ...importsOf(file)
        .filter(inApp)
        .map((target) => `${rel(file)} -> ${rel(target)}`),
      ...(APP_ENTRY.test(readFileSync(file, "utf8")) ? [`${rel(file)} -> the app's Worker (exports.default or SELF)`] : []),
    ]);
    expect(violations).toEqual([]);
  });

  it("uses jose nowhere in src/: the JWT verifier is WebCrypto (auth/jwt.ts); jose only mints the tests' tokens", () => {
    const packageImports = /(?:from\s+|import\s*\(\s*|import\s+|require\s*\(\s*)["'](jose(?:\/[^"']*)?)["']/g;
    const violations = sourceFiles(join(root, "src")).flatMap((file) =>
      [...readFileSync(file, "utf8").matchAll(packageImports)].map(([, spec]) => `${rel(file)} -> ${spec}`),
    );
    expect(violations).toEqual([]);
  });

  it("has no import cycles inside the engine", () => {
    const graph = new Map(sourceFiles(engine).map((file) => [file, importsOf(file).filter(inEngine)]));
    const cycles: string[] = [];
    const state = new Map<string, "visiting" | "done">();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === "done") return;
      if (state.get(file) === "visiting") {
        cycles.push([...path.slice(path.indexOf(file)), file].map(rel).join(" -> "));
        return;
      }
      state.set(file, "visiting");
      for (const target of graph.get(file) ?? []) visit(target, [...path, file]);
      state.set(file, "done");
    };
    for (const file of graph.keys()) visit(file, []);
    expect(cycles).toEqual([]);
  });
});
