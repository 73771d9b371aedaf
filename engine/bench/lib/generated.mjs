/**
 * The blocks of the docs that a full bench run writes (report.mjs makes them), so the package's README,
 * docs/benchmarks.md and results/latest.md say the same thing (all three inside the package: a fork that updates the
 * engine gets them together, and nothing outside the package must be rewritten to stay true): each block sits between `<!-- bench:<name> -->` and
 * `<!-- /bench:<name> -->`, and only what is between the markers is ever replaced. A file without a block's markers
 * is left as it is. Node built-ins only: the repository tests read blocks with it.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./build.mjs";
import { markdown, summary, svg, targetTable } from "./report.mjs";

/** Which blocks each file holds, by path from the repository root. */
export const GENERATED = {
  "engine/README.md": ["summary"],
  "engine/docs/benchmarks.md": ["summary", "targets"],
};

/** Each block's text for a run. */
export const blocksOf = (run) => ({ summary: summary(run), targets: targetTable(run) });

const markers = (name) => [`<!-- bench:${name} -->`, `<!-- /bench:${name} -->`];

/** The text between a block's markers (trimmed), or undefined when the file has no such block. */
export function blockIn(text, name) {
  const [open, close] = markers(name);
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start === -1 || end < start) return undefined;
  return text.slice(start + open.length, end).trim();
}

/** `text` with the block `name` replaced by `content` (unchanged when the block is not there). */
export function withBlock(text, name, content) {
  const [open, close] = markers(name);
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start === -1 || end < start) return text;
  return `${text.slice(0, start + open.length)}\n${content}\n${text.slice(end)}`;
}

/** Writes a run's blocks into every file of GENERATED that has them; the files it changed. */
export function syncGeneratedBlocks(run, root = ROOT) {
  const changed = [];
  const blocks = blocksOf(run);
  for (const [file, names] of Object.entries(GENERATED)) {
    const path = join(root, file);
    if (!existsSync(path)) continue;
    const before = readFileSync(path, "utf8");
    const after = names.reduce((text, name) => withBlock(text, name, blocks[name]), before);
    if (after !== before) {
      writeFileSync(path, after);
      changed.push(file);
    }
  }
  return changed;
}

// `node bench/lib/generated.mjs`: renders the reports again from the committed raw run (results/latest.json), the
// same run, after the report's wording or a doc changed: results/latest.md and latest.svg, and every generated block.
if (import.meta.url === `file://${process.argv[1]}`) {
  const results = join(ROOT, "engine/bench/results");
  const run = JSON.parse(readFileSync(join(results, "latest.json"), "utf8"));
  writeFileSync(join(results, "latest.md"), markdown(run));
  writeFileSync(join(results, "latest.svg"), svg(run));
  const changed = syncGeneratedBlocks(run);
  console.log(`rendered results/latest.md and latest.svg${changed.length ? `; updated ${changed.join(", ")}` : ""}`);
}
