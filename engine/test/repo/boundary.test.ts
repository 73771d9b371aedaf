/**
 * The package's boundary, checked from its source files: its code imports nothing outside src/ but the packages it
 * declares; the Worker's entry never reaches the test client; nothing of the package (its tests, its conformance
 * fixture, its bench) reaches into the app that uses it; there are no import cycles.
 */
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot, packagesOf, relativeImportsOf, sourceFiles } from "./imports";

const src = join(packageRoot, "src");
const testing = join(src, "testing");
const inside = (dir: string) => (path: string) => path.startsWith(`${dir}/`);
const rel = (path: string) => relative(packageRoot, path);
const pkg = JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as Record<string, Record<string, string>>;

describe("the package's boundary", () => {
  it("keeps its code inside src/: no relative import leaves it", () => {
    const outside = sourceFiles(src).flatMap((file) =>
      relativeImportsOf(file)
        .filter((target) => !inside(src)(target))
        .map((target) => `${rel(file)} -> ${rel(target)}`),
    );
    expect(outside).toEqual([]);
  });

  it("imports by name only the packages its package.json declares as dependencies or peers", () => {
    const declared = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]);
    const undeclared = sourceFiles(src).flatMap((file) =>
      packagesOf(file)
        .filter((name) => !declared.has(name))
        .map((name) => `${rel(file)} -> ${name}`),
    );
    expect(undeclared).toEqual([]);
  });

  it("keeps the test client out of the Worker: nothing src/index.ts imports, however indirectly, reaches src/testing/", () => {
    const reached = new Set<string>();
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      for (const target of relativeImportsOf(file)) visit(target);
    };
    visit(join(src, "index.ts"));
    // The walk reaches the engine's core (else it proves nothing), and never the test client.
    expect([...reached].map(rel)).toEqual(expect.arrayContaining(["src/worker/create.ts", "src/server/server.ts"]));
    expect([...reached].filter(inside(testing)).map(rel)).toEqual([]);
  });

  it("reaches nothing outside the package from its tests, conformance fixture and bench: they pass whatever app uses it", () => {
    const files = ["test", "conformance", "bench"].flatMap((dir) => sourceFiles(join(packageRoot, dir)));
    expect(files.length).toBeGreaterThan(50);
    const outside = files.flatMap((file) =>
      relativeImportsOf(file)
        .filter((target) => !inside(packageRoot)(target))
        .map((target) => `${rel(file)} -> ${rel(target)}`),
    );
    expect(outside).toEqual([]);
  });

  it("uses jose nowhere in src/: the JWT verifier is WebCrypto (auth/jwt.ts); jose only mints the tests' tokens", () => {
    expect(
      sourceFiles(src)
        .filter((file) => packagesOf(file).includes("jose"))
        .map(rel),
    ).toEqual([]);
  });

  it("has no import cycles inside src/", () => {
    const graph = new Map(sourceFiles(src).map((file) => [file, relativeImportsOf(file).filter(inside(src))]));
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
