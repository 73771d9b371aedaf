/**
 * What `npm run deploy` uploads is what the README reports: `wrangler deploy` minifies by wrangler.toml's own setting
 * (`minify = true`), the one `npm run build` (its dry run) shares, so no path uploads an unminified bundle, and the
 * README's figure is the gzip size of that very bundle, within a rounding margin.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const wranglerToml = readFileSync("wrangler.toml", "utf8");
const scripts = JSON.parse(readFileSync("package.json", "utf8")).scripts as Record<string, string>;
/** How far the README's whole KiB may be from the measured size: its rounding, and a small edit since. */
const MARGIN_KIB = 2;

describe("the bundle npm run deploy uploads", () => {
  it("is minified by wrangler.toml, the setting deploy and build share (neither script passes --minify of its own)", () => {
    expect(wranglerToml).toMatch(/^minify = true$/m);
    expect(scripts.deploy).toBe("wrangler deploy");
    expect(scripts.build).not.toContain("--minify");
  });

  it("is as large as the README says, measured as wrangler measures what it would upload", { timeout: 60_000 }, () => {
    const reported = /uploads (\d+) KiB gzip/.exec(readFileSync("README.md", "utf8"))?.[1];
    expect(reported, 'the README says "uploads <n> KiB gzip"').toBeDefined();
    const out = mkdtempSync(join(tmpdir(), "upload-size-"));
    try {
      // The deploy's own command, stopped before the upload: the same bundle, the same minification.
      const printed = execFileSync(process.execPath, ["node_modules/wrangler/bin/wrangler.js", "deploy", "--dry-run", "--outdir", out], {
        encoding: "utf8",
        env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", FORCE_COLOR: "0" },
      });
      const gzip = Number(/Total Upload: [\d.]+ KiB \/ gzip: ([\d.]+) KiB/.exec(printed)?.[1]);
      expect(gzip).toBeGreaterThan(0);
      expect(Math.abs(gzip - Number(reported))).toBeLessThanOrEqual(MARGIN_KIB);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
