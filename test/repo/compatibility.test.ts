/**
 * The engine's compatibility page (engine/docs/compatibility.md) names, for each client it lists, the tests that back
 * the row: among them this template's end-to-end tests, cited as template's `test/e2e/<file>` with the exact names of
 * tests (`it`) or groups (`describe`) in that file, or the file alone for all its tests. This keeps those citations
 * true here: each cited file exists and declares every name quoted after it. Renaming or deleting a cited test fails
 * here until the page says what backs the row now. (The engine's own test/repo/compatibility.test.ts checks the rest
 * of the page: an entry for every row, and the engine's own tests it cites.)
 *
 * The page describes the template as shipped, example included: once `npm run blank` has removed the example's tests
 * (and then itself), a cited file that is gone is no longer an error; a cited file that is still here is checked.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

/** The page: in the engine's package folder, or in the installed package when a fork has no engine/ folder. */
const PAGE = ["engine/docs/compatibility.md", "node_modules/mcp-workers-engine/docs/compatibility.md"].find((path) => existsSync(path))!;
/** Whether the example is still here: npm run blank removes its tests, then itself. */
const exampleKept = existsSync("scripts/blank.mjs");

/** Every template test file the page cites, with the names quoted after it (none: the whole file). */
function templateCitations(): { file: string; names: string[] }[] {
  const text = readFileSync(PAGE, "utf8").replace(/\s+/g, " ");
  return [...text.matchAll(/template's `(test\/e2e\/[^`]+\.test\.ts)`((?:,? "(?:[^"\\]|\\.)*")*)/g)].map(([, file, quoted]) => ({
    file: file!,
    names: [...quoted!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map(([literal]) => JSON.parse(literal!) as string),
  }));
}

/** The calls that declare a test or a group in a file: `it(`, `describe(`, `it.runIf(...)(`, `describe.skipIf(...)(`. */
const DECLARATION = String.raw`\b(?:it|describe)(?:\.\w+\((?:[^()]|\([^()]*\))*\))?\(\s*`;
const declares = (source: string, name: string) =>
  new RegExp(`${DECLARATION}(["'\`])${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\1`).test(source);

describe("the engine's compatibility page, on this template's end-to-end tests", () => {
  it("cites end-to-end tests of this template that exist, each by the names of tests or groups declared there", () => {
    const citations = templateCitations();
    expect(citations.length).toBeGreaterThan(10);
    for (const { file, names } of citations) {
      if (!existsSync(file)) {
        expect(exampleKept, `${PAGE} cites ${file}, which is not here`).toBe(false);
        continue;
      }
      const source = readFileSync(file, "utf8");
      if (names.length === 0) expect(new RegExp(`${DECLARATION}["'\`]`).test(source), `${file} declares a test`).toBe(true);
      for (const name of names) expect(declares(source, name), `${file} declares "${name}"`).toBe(true);
    }
  });
});
