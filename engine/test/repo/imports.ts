/**
 * The package's files and what each imports, read from the source text: what the boundary and layers checks walk.
 * Comment lines are not imports (a JSDoc example names what its reader imports).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** The package's folder. */
export const packageRoot = resolve(import.meta.dirname, "../..");

/**
 * Every source file under `dir` (TypeScript and JavaScript; declaration files only when asked for), without what is
 * installed or written there: node_modules, build output, the conformance tools, the bench's results.
 */
export function sourceFiles(dir: string, { declarations = false } = {}): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (["node_modules", "dist", "build", "tools", "inspector", "results"].includes(name) || name.startsWith(".")) return [];
    if (statSync(path).isDirectory()) return sourceFiles(path, { declarations });
    return /\.(ts|mts|mjs|js)$/.test(name) && (declarations || !/\.d\.m?ts$/.test(name)) ? [path] : [];
  });
}

/**
 * Every module specifier a file imports: `import`/`export ... from` statements (type-only ones too), side-effect
 * imports, and `import("...")` (dynamic, or in a type). A string that merely reads like an import is not one.
 */
export function specifiersOf(file: string): string[] {
  const source = readFileSync(file, "utf8").replace(/^\s*(?:\*|\/\/|\/\*).*$/gm, "");
  const statements = /^\s*(?:import|export)\s[^'"`;]*?\bfrom\s+["']([^"']+)["']/gm;
  const bare = /^\s*import\s+["']([^"']+)["']/gm;
  const calls = /\bimport\(\s*["']([^"']+)["']\s*\)/g;
  return [statements, bare, calls].flatMap((pattern) => [...source.matchAll(pattern)].map(([, spec]) => spec!));
}

/** The files a file imports by relative path, resolved as the bundler does (with .ts or /index.ts added). */
export function relativeImportsOf(file: string): string[] {
  return specifiersOf(file)
    .filter((spec) => spec.startsWith("."))
    .map((spec) => {
      const base = resolve(dirname(file), spec.replace(/\?raw$/, ""));
      return [base, `${base}.ts`, join(base, "index.ts")].find((path) => existsSync(path) && statSync(path).isFile()) ?? base;
    });
}

/** The packages a file imports by name (`zod/mini` is `zod`, `@scope/name/sub` is `@scope/name`), runtime modules apart. */
export function packagesOf(file: string): string[] {
  return specifiersOf(file)
    .filter((spec) => !spec.startsWith(".") && !/^(node|cloudflare):/.test(spec))
    .map((spec) =>
      spec
        .split("/")
        .slice(0, spec.startsWith("@") ? 2 : 1)
        .join("/"),
    );
}
