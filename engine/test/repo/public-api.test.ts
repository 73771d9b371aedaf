/**
 * The public API is documented where it is used: every name src/index.ts exports has JSDoc at its definition
 * (what it does, each parameter, what it returns, an example), which is what an editor shows on hover. Each
 * `@example` is written once, there: this test puts them together into one module that imports the public module
 * alone, and type-checks it, so an example that no longer compiles against the API fails here, and there is no copy
 * to keep in step. The compiler flags the code is held to are checked too, in every tsconfig of the package.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const boundary = join(root, "src/index.ts");

interface PublicExport {
  name: string;
  /** The module index.ts re-exports it from, where it must be defined. */
  file: string;
  /** Whether it is exported as a type only (`export type { ... }`, or `type Name` in the list). */
  typeOnly: boolean;
}

/** Every name the public module exports, with the file it comes from. */
function publicExports(): PublicExport[] {
  const source = readFileSync(boundary, "utf8");
  // A wildcard would export names this test cannot see; a rename would document the wrong name.
  expect(source).not.toMatch(/export\s+\*/);
  return [...source.matchAll(/export\s+(type\s+)?\{([^}]*)\}\s+from\s+"(\.\/[^"]+)"/g)].flatMap(([, allTypes, names, spec]) =>
    names!
      .split(",")
      .map((name) => name.trim())
      .filter(Boolean)
      .map((entry) => {
        const name = entry.replace(/^type\s+/, "");
        expect(name, "index.ts re-exports names as they are defined").toMatch(/^\w+$/);
        return { name, file: `${resolve(dirname(boundary), spec!)}.ts`, typeOnly: allTypes !== undefined || entry.startsWith("type ") };
      }),
  );
}

interface Definition {
  kind: string;
  /** The JSDoc right above the definition, without its comment markers; undefined when there is none. */
  doc: string | undefined;
  /** The names of its parameters, when it is a function (destructured ones are not named). */
  params: string[] | undefined;
  /** Whether it is a function declared to return `void` or `Promise<void>` (nothing to describe). */
  returnsVoid: boolean;
}

/** The declaration of `name` in `source`, with the JSDoc an editor shows for it. */
function definitionOf(source: string, name: string): Definition | undefined {
  const declaration = new RegExp(
    `^export (?:declare )?(?:abstract )?(?:async )?(function|const|let|class|interface|type|enum) ${name}\\b`,
    "m",
  ).exec(source);
  if (!declaration) return undefined;
  const before = source.slice(0, declaration.index);
  const doc = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*$/.exec(before)?.[1];
  const kind = declaration[1]!;
  const rest = source.slice(declaration.index + declaration[0].length);
  // A function: `export function name<...>(...)`, or a constant that is an arrow, `export const name = <...>(...) =>`.
  const arrow = kind === "const" ? /^\s*=\s*(?=[<(])/.exec(rest) : null;
  const signature = kind === "function" ? rest : arrow ? rest.slice(arrow[0].length) : undefined;
  const parsed = signature === undefined ? undefined : parameters(signature);
  return {
    kind,
    doc: doc === undefined ? undefined : doc.replace(/^[ \t]*\* ?/gm, "").trim(),
    params: parsed?.names,
    returnsVoid: parsed?.returnsVoid ?? false,
  };
}

/** The parameter names of the function whose generics and parameter list start `text`, and whether it returns void. */
function parameters(text: string): { names: string[]; returnsVoid: boolean } | undefined {
  let at = 0;
  const skip = (open: string, close: string) => {
    let depth = 0;
    for (; at < text.length; at++) {
      if (text[at] === open) depth++;
      // `=>` inside the brackets is an arrow, not a closing angle bracket.
      else if (text[at] === close && text[at - 1] !== "=" && --depth === 0) return void at++;
    }
  };
  text = text.trimStart();
  if (text[0] === "<") skip("<", ">");
  if (text[at] !== "(") return undefined;
  const start = at + 1;
  skip("(", ")");
  const list = text.slice(start, at - 1);
  const names: string[] = [];
  let depth = 0;
  let current = "";
  const chars = `${list},`;
  for (const [index, char] of [...chars].entries()) {
    if ("([{<".includes(char)) depth++;
    // The `>` of an arrow (`=>`) closes nothing.
    if (")]}".includes(char) || (char === ">" && chars[index - 1] !== "=")) depth--;
    if (char === "," && depth === 0) {
      const name = /^\s*(?:\.\.\.)?(\w+)/.exec(current)?.[1];
      if (name) names.push(name);
      current = "";
    } else current += char;
  }
  return { names, returnsVoid: /^\s*:\s*(?:Promise<void>|void)\s*[{=;]/.test(text.slice(at)) };
}

/** The `@example` code blocks of a JSDoc text, each without its fence. */
function examplesOf(doc: string): string[] {
  return [...doc.matchAll(/^@example\n```ts\n([\s\S]*?)\n```$/gm)].map(([, code]) => code!);
}

/**
 * One module of every example, in the order the public module exports their names (an example shared by several
 * names once), importing every public name from the public module: what an app's code would see.
 */
function examplesModule(): string {
  const names = exported.map(({ name, typeOnly }) => (typeOnly ? `type ${name}` : name));
  const blocks = [...new Set(exported.flatMap(({ name }) => examplesOf(definitions.get(name)?.doc ?? "")))];
  return ['import * as z from "zod/mini";', `import { ${names.join(", ")} } from "${boundary.replace(/\.ts$/, "")}";`, ...blocks].join(
    "\n\n",
  );
}

const exported = publicExports();
const definitions = new Map(exported.map(({ name, file }) => [name, definitionOf(readFileSync(file, "utf8"), name)]));

describe("the public API's documentation", () => {
  it("covers about every name of the public module, each defined in the module index.ts names", () => {
    expect(exported.length).toBeGreaterThan(80);
    const undefinedThere = exported
      .filter(({ name }) => definitions.get(name) === undefined)
      .map(({ name, file }) => `${name} (${relative(root, file)})`);
    expect(undefinedThere).toEqual([]);
  });

  /** What is missing from the JSDoc of `name`. */
  const docProblems = (name: string): string[] => {
    const doc = definitions.get(name)?.doc;
    if (doc === undefined) return [`${name}: no JSDoc`];
    const description = doc.split(/^@/m)[0]!.trim();
    return [
      ...(description.length < 20 ? [`${name}: no description before the tags`] : []),
      ...(examplesOf(doc).length === 0 ? [`${name}: no @example with a \`\`\`ts block`] : []),
      // An @example tag whose code is not a fenced block would be neither rendered as code nor checked.
      ...((doc.match(/^@example/gm) ?? []).length !== examplesOf(doc).length ? [`${name}: an @example without a \`\`\`ts block`] : []),
    ];
  };

  it("gives every export JSDoc at its definition: what it does, and an example", () => {
    expect(exported.flatMap(({ name }) => docProblems(name))).toEqual([]);
  });

  it("names each parameter of every exported function, and says what it returns", () => {
    const problems = exported.flatMap(({ name }) => {
      const { doc = "", params, returnsVoid } = definitions.get(name) ?? {};
      if (params === undefined) return [];
      return [
        ...params.filter((param) => !new RegExp(`^@param ${param} \\S`, "m").test(doc)).map((param) => `${name}: no @param ${param}`),
        ...(!returnsVoid && !/^@returns \S/m.test(doc) ? [`${name}: no @returns`] : []),
      ];
    });
    expect(problems).toEqual([]);
    // The parser did find the functions: these take parameters and return something.
    expect(definitions.get("defineTool")?.params).toEqual(["definition"]);
    expect(definitions.get("elicitForm")?.params).toEqual(["message", "schema"]);
    expect(definitions.get("validateServer")?.returnsVoid).toBe(true);
  });

  it("compiles every @example, as its JSDoc writes it, against the public module alone", { timeout: 60_000 }, () => {
    // Under node_modules, so that the examples resolve zod as an app's code does; never committed, removed after.
    const cache = join(root, "node_modules/.cache");
    mkdirSync(cache, { recursive: true });
    const dir = mkdtempSync(join(cache, "engine-examples-"));
    try {
      const source = examplesModule();
      expect(source.match(/^export /gm)?.length ?? 0).toBeGreaterThan(60);
      writeFileSync(join(dir, "examples.ts"), source);
      const config = { extends: join(root, "tsconfig.json"), files: [join(root, "worker-configuration.d.ts"), join(dir, "examples.ts")] };
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(config));
      const tsc = join(dirname(createRequire(join(root, "package.json")).resolve("typescript/package.json")), "bin/tsc");
      let output = "";
      try {
        execFileSync(process.execPath, [tsc, "--noEmit", "-p", join(dir, "tsconfig.json")], { encoding: "utf8" });
      } catch (error) {
        output = String((error as { stdout?: string }).stdout ?? error);
      }
      expect(output, `the examples as one module:\n${source}`).toBe("");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("points @see only at pages that exist", () => {
    const named = exported.flatMap(({ name }) =>
      [...(definitions.get(name)?.doc ?? "").matchAll(/^@see (\S+\.md)\b/gm)].map(([, path]) => ({ name, path: path! })),
    );
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter(({ path }) => !existsSync(join(root, path)))).toEqual([]);
  });
});

describe("the compiler flags", () => {
  const FLAGS = ["strict", "noUncheckedIndexedAccess", "noImplicitOverride", "noImplicitReturns", "noFallthroughCasesInSwitch"];

  function tsconfigs(dir: string): string[] {
    return readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (name === "node_modules" || name.startsWith(".") || name === "build" || name === "dist") return [];
      if (statSync(path).isDirectory()) return tsconfigs(path);
      return /^tsconfig.*\.json$/.test(name) ? [path] : [];
    });
  }

  /** A tsconfig's compiler options, its own over those of the config it extends. */
  function options(path: string): Record<string, unknown> {
    const config = JSON.parse(readFileSync(path, "utf8")) as { extends?: string; compilerOptions?: Record<string, unknown> };
    const inherited = config.extends ? options(resolve(dirname(path), config.extends)) : {};
    return { ...inherited, ...config.compilerOptions };
  }

  it("are on in every tsconfig of the package (its code, its tests, its repository checks)", () => {
    const configs = tsconfigs(root);
    const expected = ["test/repo/tsconfig.json", "test/tsconfig.json", "tsconfig.json"];
    expect(configs.map((path) => relative(root, path)).sort()).toEqual(expect.arrayContaining(expected));
    const off = configs.flatMap((path) =>
      FLAGS.filter((flag) => options(path)[flag] !== true).map((flag) => `${relative(root, path)}: ${flag}`),
    );
    expect(off).toEqual([]);
  });
});
