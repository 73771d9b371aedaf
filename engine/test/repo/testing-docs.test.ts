/**
 * The test client's public entry (src/testing/index.ts) is documented where a fork's developer reads it: every
 * name it exports is declared under a JSDoc comment that says what it is and shows it in an `@example`.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const testing = resolve(import.meta.dirname, "../../src/testing");

/** Each exported name of index.ts with the module it comes from. */
function exportedNames(): { name: string; file: string }[] {
  const index = readFileSync(join(testing, "index.ts"), "utf8");
  return [...index.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}\s+from\s+"\.\/([^"]+)"/g)].flatMap(([, names, module]) =>
    names!
      .split(",")
      .map((entry) => entry.trim().replace(/^type\s+/, ""))
      .filter(Boolean)
      .map((name) => ({ name, file: `${module}.ts` })),
  );
}

/** The JSDoc block right above `name`'s declaration (a lint directive may sit between them), or undefined. */
function docOf(file: string, name: string): string | undefined {
  const source = readFileSync(join(testing, file), "utf8");
  const declaration = new RegExp(`^export (?:async )?(?:function|class|interface|type|const) ${name}\\b`, "m").exec(source);
  if (!declaration) return undefined;
  const before = source.slice(0, declaration.index).replace(/(?:\n\/\/[^\n]*)+\n?$/, "\n");
  return /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*$/.exec(before)?.[1];
}

describe("the test client's documentation", () => {
  const names = exportedNames();

  it("finds the public names (connect, the client, the answer helpers, the errors, the types)", () => {
    expect(names.map(({ name }) => name)).toEqual(
      expect.arrayContaining(["connect", "McpTestClient", "accept", "McpError", "TaskRun", "Question"]),
    );
  });

  it("documents every exported name with a JSDoc comment that has an @example", () => {
    const undocumented = names
      .filter(({ name, file }) => !docOf(file, name)?.includes("@example"))
      .map(({ name, file }) => `${file}: ${name}`);
    expect(undocumented).toEqual([]);
  });
});
