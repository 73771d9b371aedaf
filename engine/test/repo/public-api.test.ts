/**
 * The public API is documented where it is used: every name src/index.ts exports has JSDoc at its definition
 * (what it does, each parameter, what it returns, an example), which is what an editor shows on hover. Every
 * `@example` is also a block of test/examples/public-api.ts, which `npm run check` type-checks against the
 * public module alone, and the two are identical, so an example cannot drift from the API nor from its copy.
 * The compiler flags the code is held to are checked here too, in every tsconfig of the package.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const boundary = join(root, "src/index.ts");
const EXAMPLES = "test/examples/public-api.ts";

interface PublicExport {
  name: string;
  /** The module index.ts re-exports it from, where it must be defined. */
  file: string;
}

/** Every name the public module exports, with the file it comes from. */
function publicExports(): PublicExport[] {
  const source = readFileSync(boundary, "utf8");
  // A wildcard would export names this test cannot see; a rename would document the wrong name.
  expect(source).not.toMatch(/export\s+\*/);
  return [...source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}\s+from\s+"(\.\/[^"]+)"/g)].flatMap(([, names, spec]) =>
    names!
      .split(",")
      .map((name) => name.trim().replace(/^type\s+/, ""))
      .filter(Boolean)
      .map((name) => {
        expect(name, "index.ts re-exports names as they are defined").toMatch(/^\w+$/);
        return { name, file: `${resolve(dirname(boundary), spec!)}.ts` };
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

/** The examples file's blocks, by export name: from each `// @example <names>` line to the next comment at column 0. */
function exampleBlocks(): Map<string, string[]> {
  const blocks = new Map<string, string[]>();
  const lines = readFileSync(join(root, EXAMPLES), "utf8").split("\n");
  for (let i = 0; i < lines.length; i++) {
    const marker = /^\/\/ @example (.+)$/.exec(lines[i]!);
    if (!marker) continue;
    let end = i + 1;
    while (end < lines.length && !lines[end]!.startsWith("//")) end++;
    const code = lines
      .slice(i + 1, end)
      .join("\n")
      .trim();
    for (const name of marker[1]!.split(",").map((part) => part.trim())) blocks.set(name, [...(blocks.get(name) ?? []), code]);
  }
  return blocks;
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

  it("keeps every @example identical to its block in the examples file, which the type check covers", () => {
    const blocks = exampleBlocks();
    const drifted = exported.flatMap(({ name }) => {
      const inDoc = examplesOf(definitions.get(name)?.doc ?? "");
      const inFile = blocks.get(name) ?? [];
      return JSON.stringify(inDoc) === JSON.stringify(inFile) ? [] : [{ name, inDoc, inFile }];
    });
    expect(drifted).toEqual([]);
    const names = new Set(exported.map(({ name }) => name));
    expect(
      [...blocks.keys()].filter((name) => !names.has(name)),
      "blocks for names the public module does not export",
    ).toEqual([]);
    // `npm run check` type-checks test/ with test/tsconfig.json: the examples file must be part of it.
    const config = JSON.parse(readFileSync(join(root, "test/tsconfig.json"), "utf8")) as { include: string[]; exclude: string[] };
    expect(config.include).toContain("./**/*.ts");
    expect(config.exclude.some((pattern) => EXAMPLES.startsWith(`test/${pattern.replace(/^\.\/|\*\*$/g, "")}`))).toBe(false);
  });

  it("has examples that compile against the public module only", () => {
    const source = readFileSync(join(root, EXAMPLES), "utf8");
    const specifiers = [...source.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)["']([^"']+)["']/g)].map(([, spec]) => spec!);
    const relativeTargets = specifiers.filter((spec) => spec.startsWith(".")).map((spec) => resolve(dirname(join(root, EXAMPLES)), spec));
    expect(relativeTargets.map((target) => relative(root, target))).toEqual(["src"]);
    expect(specifiers.filter((spec) => !spec.startsWith(".")).every((spec) => spec === "zod/mini")).toBe(true);
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
