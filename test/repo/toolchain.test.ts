/**
 * A fork on a Node.js the toolchain refuses is told so at install, before anything runs: package.json names the
 * Node the pinned tools need (`engines`, the same for the engine's package), and `.npmrc` makes npm enforce it
 * (`engine-strict`) and pin what it adds (`save-exact`). Checked by asking npm to install a project that demands a
 * Node this machine does not have, with the template's `.npmrc`.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const pkg = JSON.parse(readFileSync("package.json", "utf8"));

describe("the Node.js version a fork runs on", () => {
  it("is declared (wrangler 4.86 needs 20.3; vitest 4 and the pool need 20.19) and enforced with exact pins", () => {
    expect(pkg.engines.node).toBe(">=20.19.0");
    const npmrc = readFileSync(".npmrc", "utf8");
    expect(npmrc).toMatch(/^engine-strict=true$/m);
    expect(npmrc).toMatch(/^save-exact=true$/m);
  });

  it("stops npm install with an error that names the Node wanted and the Node found", () => {
    const dir = mkdtempSync(join(tmpdir(), "toolchain-"));
    try {
      cpSync(".npmrc", join(dir, ".npmrc"));
      // Wanted: a Node newer than any there is, as a fork on Node 18 would want 20.19.
      writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "fork", private: true, engines: { node: ">=99.0.0" } }));
      const install = spawnSync("npm", ["install", "--no-audit", "--no-fund", "--offline"], { cwd: dir, encoding: "utf8" });
      expect(install.status).not.toBe(0);
      expect(install.stderr).toContain("EBADENGINE");
      expect(install.stderr).toMatch(/Required: \{"node":">=99\.0\.0"\}/);
      expect(install.stderr).toContain(`Actual:   {"node":"${process.version}"`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
