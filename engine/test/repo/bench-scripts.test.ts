/**
 * The bench's scripts that bundle engine source files by path (`npm run bench:state` builds a Worker from
 * src/config/signing.ts, say) name files that exist: a module moved or renamed in src/ must not leave a documented
 * command failing at its first step (bench:state did, importing a path from before a move).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const engine = join(import.meta.dirname, "../..");
const scripts = ["bench", "bench/lib"].flatMap((dir) =>
  readdirSync(join(engine, dir))
    .filter((name) => name.endsWith(".mjs"))
    .map((name) => join(dir, name)),
);

/** The `./src/...` paths a script names in what it bundles (esbuild resolves them from the package's folder). */
const sourcePaths = (script: string) =>
  [...readFileSync(join(engine, script), "utf8").matchAll(/["'](\.\/src\/[^"']+)["']/g)].map((match) => match[1]!);

describe("the bench's scripts", () => {
  it("name at least one engine source file between them (the check below has something to check)", () => {
    expect(scripts.flatMap(sourcePaths).length).toBeGreaterThan(0);
  });

  it.each(scripts.filter((script) => sourcePaths(script).length > 0))("%s names only engine source files that exist", (script) => {
    const missing = sourcePaths(script).filter((path) => !existsSync(join(engine, path)));
    expect(missing).toEqual([]);
  });
});
