/**
 * docs/compatibility.md names what backs each row of its two tables: under each table, a "What backs" list with one
 * entry per row (its first cell, in bold), citing tests by file and exact name, an npm script, or saying that no test
 * backs it. This keeps that true for this package's own tests: every row has its entry and every entry its row, each
 * entry cites something or says "not verified" / "manual run", and each of this package's test files it cites exists
 * and declares a test (`it`) or group (`describe`) under each name quoted after it. Renaming or deleting a cited test
 * fails here until the page says what backs the row now. The template's end-to-end tests the page cites (template's
 * `test/e2e/...`) are the app's: the template's own test/repo/compatibility.test.ts checks those, since this package's
 * tests pass whatever app uses it.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "./imports";

const page = readFileSync(join(packageRoot, "docs/compatibility.md"), "utf8");

/** The tables and the lists that back them: each table's section, and the heading of its list. */
const TABLES = [
  { section: "## Protocol compatibility", list: "### What backs each row" },
  { section: "## Which clients run tasks", list: "### What backs each task row" },
];

/** The text from `heading` to the next heading of its level or above. */
function sectionOf(heading: string): string {
  const start = page.indexOf(`\n${heading}\n`);
  if (start === -1) throw new Error(`docs/compatibility.md has no "${heading}"`);
  const level = heading.split(" ")[0]!.length;
  const rest = page.slice(start + heading.length + 2);
  const next = rest.search(new RegExp(`^#{1,${level}} `, "m"));
  return next === -1 ? rest : rest.slice(0, next);
}

/** The first cell of each row of the table in `text` (the header and its separator left out). */
const rowsOf = (text: string) =>
  text
    .split("\n")
    .filter((line) => line.startsWith("| "))
    .slice(2)
    .map((line) => line.split("|")[1]!.trim());

/** The entries of a "What backs" list: label (the bold start) -> the rest, its lines joined. */
function entriesOf(text: string): Map<string, string> {
  const entries = new Map<string, string>();
  for (const item of text.split(/\n(?=- \*\*)/).filter((chunk) => chunk.startsWith("- **"))) {
    const [, label, backing] = /^- \*\*(.+?)\*\*: (.*)$/.exec(item.split("\n\n")[0]!.replace(/\s+/g, " ").trim()) ?? [];
    if (label === undefined) throw new Error(`an entry without "**row**: ..." in docs/compatibility.md: ${item}`);
    if (entries.has(label)) throw new Error(`two entries for "${label}" in docs/compatibility.md`);
    entries.set(label, backing!);
  }
  return entries;
}

/** The quoted names after a cited file (`, "name"` repeated), as written in the test file. */
const namesIn = (quoted: string) => [...quoted.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map(([literal]) => JSON.parse(literal!) as string);

/** This package's test files an entry cites (not the template's: those read `template's \`test/e2e/...\``), with their names. */
const packageCitations = (backing: string) =>
  [...backing.matchAll(/(?<!template's )`(test\/[^`]+\.test\.ts)`((?:,? "(?:[^"\\]|\\.)*")*)/g)].map(([, file, quoted]) => ({
    file: file!,
    names: namesIn(quoted!),
  }));

/** Whether `file` declares a test or a group named exactly `name` (`it(...)`, `describe.runIf(...)(...)`, ...). */
function declares(file: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const call = new RegExp(`\\b(?:it|describe)(?:\\.\\w+\\((?:[^()]|\\([^()]*\\))*\\))?\\(\\s*(["'\`])${escaped}\\1`);
  return call.test(readFileSync(join(packageRoot, file), "utf8"));
}

describe("docs/compatibility.md: what backs each row", () => {
  for (const { section, list } of TABLES) {
    it(`has one entry under "${list}" for every row of the table of "${section}", and none for a row it lacks`, () => {
      const rows = rowsOf(sectionOf(section).split(`\n${list}\n`)[0]!);
      expect(rows.length).toBeGreaterThan(5);
      expect([...entriesOf(sectionOf(list)).keys()]).toEqual(rows);
    });
  }

  it("backs every row with a test, a script or the plain statement that no test backs it", () => {
    const unbacked = TABLES.flatMap(({ list }) =>
      [...entriesOf(sectionOf(list))].filter(
        ([, backing]) => !/`test\/[^`]+\.test\.ts`|`npm run [\w:-]+`|not verified|manual run/.test(backing),
      ),
    );
    expect(unbacked).toEqual([]);
  });

  it("cites only test files of this package that exist, each with names of tests or groups declared there", () => {
    const citations = TABLES.flatMap(({ list }) => [...entriesOf(sectionOf(list)).values()].flatMap(packageCitations));
    expect(citations.length).toBeGreaterThan(5);
    for (const { file, names } of citations) {
      expect(existsSync(join(packageRoot, file)), `${file} exists`).toBe(true);
      expect(names.length, `${file} is cited with the names of its tests`).toBeGreaterThan(0);
      for (const name of names) expect(declares(file, name), `${file} declares "${name}"`).toBe(true);
    }
  });
});
