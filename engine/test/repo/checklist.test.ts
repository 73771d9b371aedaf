/**
 * The bad-input checklist (test/checklist.test.ts) stays the index of all 48 rows, in order: each row is
 * either a test there (`it("row N: ...")`) or a numbered comment (`// row N: ...`) for a row whose case another
 * file asserts, recorded in its COVERED_ELSEWHERE table. Every entry of that table must name a file that exists
 * and a test in it under that exact name, so renaming or deleting the covering test breaks this check instead of
 * silently dropping the row.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const CHECKLIST = "test/checklist.test.ts";
const ROWS = Array.from({ length: 48 }, (_, index) => index + 1);
const source = readFileSync(join(root, CHECKLIST), "utf8");

interface Marker {
  row: number;
  kind: "test" | "comment";
}

/** Every row marker in file order: a test named "row N..." or a line comment starting "// row N:". */
const markers: Marker[] = [...source.matchAll(/^\s*(?:it\(\s*["'`]row (\d+)\b|\/\/ row (\d+):)/gm)].map(([, test, comment]) =>
  test === undefined ? { row: Number(comment), kind: "comment" } : { row: Number(test), kind: "test" },
);
const rowsWhere = (kind: Marker["kind"]) => markers.filter((marker) => marker.kind === kind).map((marker) => marker.row);

/** The COVERED_ELSEWHERE object literal, evaluated as plain data: row -> [file, test name][]. */
function coveredElsewhere(): Record<string, unknown> {
  const literal = /^const COVERED_ELSEWHERE\b[^=]*= (\{[\s\S]*?\n\})(?: as const)?;$/m.exec(source)?.[1];
  if (literal === undefined) throw new Error(`${CHECKLIST} has no top-level "const COVERED_ELSEWHERE = { ... } as const;"`);
  return runInNewContext(`(${literal})`) as Record<string, unknown>;
}

/** Whether `file` declares a test named exactly `name` (a string literal, not a template with placeholders). */
function declaresTest(file: string, name: string): boolean {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`\\bit\\(\\s*(["'\`])${escaped}\\1`).test(readFileSync(join(root, file), "utf8"));
}

describe("the bad-input checklist", () => {
  it("lists every row from 1 to 48 exactly once and in numeric order, as a test or a numbered comment", () => {
    expect(markers.map((marker) => marker.row)).toEqual(ROWS);
  });

  it("records exactly the rows that are comments in COVERED_ELSEWHERE, so tests and table together are rows 1 to 48", () => {
    const keys = Object.keys(coveredElsewhere()).map(Number);
    expect(keys).toEqual(rowsWhere("comment"));
    expect([...rowsWhere("test"), ...keys].sort((a, b) => a - b)).toEqual(ROWS);
  });

  it("names, for each covered row, existing test files and tests that exist there under that exact name", () => {
    const table = coveredElsewhere();
    for (const [row, citations] of Object.entries(table)) {
      expect(Array.isArray(citations) && citations.length > 0, `row ${row} cites at least one test`).toBe(true);
      for (const citation of citations as unknown[]) {
        expect(Array.isArray(citation) && citation.length === 2, `row ${row}: each citation is [file, test name]`).toBe(true);
        const [file, name] = citation as [string, string];
        expect(file, `row ${row}`).toMatch(/^test\/.+\.test\.ts$/);
        expect(file, `row ${row} is covered by another file`).not.toBe(CHECKLIST);
        expect(existsSync(join(root, file)), `row ${row}: ${file} exists`).toBe(true);
        expect(declaresTest(file, name), `row ${row}: ${file} has it("${name}"`).toBe(true);
      }
    }
  });
});
