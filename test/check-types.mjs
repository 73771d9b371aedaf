/**
 * `npm run check`'s first step: `wrangler types --check`, whatever local settings a developer keeps. Why not the bare
 * command: wrangler 4.86's `types --check` regenerates the types it compares from wrangler's default local files and
 * ignores `--env-file`, so every name in a `.dev.vars` beside wrangler.toml would make the committed types look out
 * of date. So it runs on a copy of wrangler.toml in an empty temporary directory (its paths made absolute), from the
 * repository's directory: the same file is checked, with the same relative imports, and no `.dev.vars` is near.
 * (`npm run types` writes the file with `--env-file test/no-local-settings.env`, which generation does honour.)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { experimental_readRawConfig } from "wrangler";

const root = resolve(import.meta.dirname, "..");
const { rawConfig } = experimental_readRawConfig({ config: join(root, "wrangler.toml") });
// The custom build (the views) plays no part in the types, and would run in the temporary directory.
const { build: _build, ...config } = rawConfig;
const copy = {
  ...config,
  main: join(root, config.main),
  ...(config.assets && { assets: { ...config.assets, directory: join(root, config.assets.directory) } }),
};
const dir = mkdtempSync(join(tmpdir(), "mcp-types-check-"));
try {
  writeFileSync(join(dir, "wrangler.json"), JSON.stringify(copy));
  const wrangler = join(root, "node_modules/wrangler/bin/wrangler.js");
  const { status } = spawnSync(process.execPath, [wrangler, "types", "--check", "-c", join(dir, "wrangler.json")], {
    cwd: root,
    stdio: "inherit",
  });
  process.exitCode = status ?? 1;
  // Bare `wrangler types` would also type every name in a local .dev.vars; the script leaves them out.
  if (process.exitCode !== 0) console.error("Regenerate the types with `npm run types`.");
} finally {
  rmSync(dir, { recursive: true, force: true });
}
