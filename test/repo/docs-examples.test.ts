/**
 * The docs' TypeScript examples compile, each as the file it says it is. Every ```ts block of docs/ (the guides
 * included) starts with a comment naming that file, `// src/tools.ts ...` or `// test/app/<name>.test.ts ...`, and is
 * type-checked at that path beside the app's own files: its relative imports (`./tools`, `../../src`, `./app`)
 * resolve to the app's, its packages to those installed, under the compiler options `npm run check` holds that folder
 * to. And every tool an example calls is one the app declares or one an example defines (the one a guide builds), so
 * no example calls a tool the reader cannot find. (The engine's own `@example`s are compiled the same way by its
 * test/repo/public-api.test.ts.)
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { root } from "./copy";

/** The folders an example may be a file of, and the compiler options each is checked with (as `npm run check` does). */
const FOLDERS = [
  { folder: "src/", tsconfig: "tsconfig.json" },
  { folder: "test/app/", tsconfig: "test/tsconfig.json" },
];

interface Example {
  /** The docs' page it is on, and the line of its opening fence there (its code's line n is the page's fence + n). */
  page: string;
  fence: number;
  /** The file it says it is, from its first line. */
  file: string | undefined;
  code: string;
}

const where = ({ page, fence }: Example) => `${page}:${fence}`;

/** The files under `dir` (relative to the repository) whose names end with `extension`. */
function filesUnder(dir: string, extension: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    return statSync(join(root, path)).isDirectory() ? filesUnder(path, extension) : name.endsWith(extension) ? [path] : [];
  });
}

/** Every ```ts block of docs/, with the file its first line names. */
function examples(): Example[] {
  return filesUnder("docs", ".md").flatMap((page) => {
    const text = readFileSync(join(root, page), "utf8");
    return [...text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((match) => {
      const code = match[1]!;
      const file = /^\/\/ ((?:src|test)\/[\w./-]+\.ts)\b/.exec(code)?.[1];
      return { page, fence: text.slice(0, match.index).split("\n").length, file, code };
    });
  });
}

/** The TypeScript compiler the repository's `npm run check` runs. */
const tsc = join(dirname(createRequire(join(root, "package.json")).resolve("typescript/package.json")), "bin/tsc");

/** The relative imports of an example, each with the app's file it names, if the app has one. */
function relativeImports(example: Example): { spec: string; file: string | undefined }[] {
  return [...example.code.matchAll(/^import [^"]*"(\.[^"]*)";/gm)].map(([, spec]) => {
    const base = join(dirname(example.file!), spec!);
    const file = [`${base}.ts`, join(base, "index.ts"), base].find(
      (path) => existsSync(join(root, path)) && statSync(join(root, path)).isFile(),
    );
    return { spec: spec!, file };
  });
}

/**
 * Type-checks `group` in `dir`, each example as `<dir>/<n>/<its file>`, under `tsconfig`'s options. `rootDirs` merges
 * each example's folder with the repository's, so a relative import resolves to the app's file of that name (the
 * test checks first that the app has each one, so none resolves to another example). Returns the compiler's report,
 * each path as the docs' page and line.
 */
function compile(dir: string, tsconfig: string, group: Example[]): string {
  const folders = group.map((_, index) => join(dir, String(index)));
  group.forEach((example, index) => {
    const path = join(folders[index]!, example.file!);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, example.code);
  });
  const config = {
    extends: join(root, tsconfig),
    compilerOptions: { rootDirs: [root, ...folders] },
    files: [join(root, "worker-configuration.d.ts"), ...group.map((example, index) => join(folders[index]!, example.file!))],
    include: [],
  };
  const project = join(dir, "tsconfig.json");
  writeFileSync(project, JSON.stringify(config));
  let report = "";
  try {
    execFileSync(process.execPath, [tsc, "--noEmit", "-p", project], { encoding: "utf8" });
  } catch (error) {
    report = String((error as { stdout?: string }).stdout || error);
  }
  // Each example's place in the report, as the page and line of the docs it is on.
  return group.reduce((text, example, index) => {
    const path = relative(root, join(folders[index]!, example.file!)).replaceAll(".", "\\.");
    return text.replace(
      new RegExp(`${path}\\((\\d+),(\\d+)\\)`, "g"),
      (_, line: string, column: string) => `${example.page}:${example.fence + Number(line)}:${column} (${example.file})`,
    );
  }, report);
}

/** The tools a piece of code defines (`defineTool({ name: "..." `) and the tools it calls (`callTool("...")`, `startTask`). */
const defined = (code: string) => [...code.matchAll(/defineTool\(\{\s*name:\s*"([^"]+)"/g)].map(([, name]) => name!);
const called = (code: string) => [...code.matchAll(/\.(?:callTool|startTask)\(\s*"([^"]+)"/g)].map(([, name]) => name!);

describe("the docs' TypeScript examples", () => {
  const all = examples();

  it("each start with a comment naming the file they are, in src/ or test/app/", () => {
    expect(all.length).toBeGreaterThan(8);
    const unnamed = all.filter(({ file }) => !FOLDERS.some(({ folder }) => file?.startsWith(folder))).map(where);
    expect(unnamed).toEqual([]);
  });

  it("import, by relative paths, only files the app has", () => {
    const missing = all
      .filter(({ file }) => file !== undefined)
      .flatMap((example) =>
        relativeImports(example)
          .filter(({ file }) => file === undefined)
          .map(({ spec }) => `${where(example)}: ${spec}`),
      );
    expect(all.some((example) => example.file !== undefined && relativeImports(example).length > 0)).toBe(true);
    expect(missing).toEqual([]);
  });

  it("compile as those files, beside the app's own, under the options npm run check uses there", { timeout: 120_000 }, () => {
    // Under node_modules, so that the examples resolve packages as the app's code does; never committed, removed after.
    const cache = join(root, "node_modules/.cache");
    mkdirSync(cache, { recursive: true });
    const dir = mkdtempSync(join(cache, "docs-examples-"));
    try {
      for (const { folder, tsconfig } of FOLDERS) {
        const group = all.filter(({ file }) => file?.startsWith(folder));
        expect(group.length, folder).toBeGreaterThan(0);
        expect(compile(join(dir, folder), tsconfig, group), folder).toBe("");
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("call only tools the app declares or an example defines", () => {
    const app = filesUnder("src", ".ts").flatMap((file) => defined(readFileSync(join(root, file), "utf8")));
    const known = new Set([...app, ...all.flatMap(({ code }) => defined(code))]);
    const unknown = all.flatMap((example) =>
      called(example.code)
        .filter((name) => !known.has(name))
        .map((name) => `${where(example)}: ${name}`),
    );
    expect(all.some(({ code }) => called(code).length > 0)).toBe(true);
    expect(unknown).toEqual([]);
  });
});
