/**
 * The package as a dependency receives it: its name and version agree everywhere, its entries are the only way in
 * (a deep import is refused, with an error that says why), and a packed tarball holds what a dependency needs and
 * nothing else: the code, its docs, license and changelog, no tests, bench or fixtures.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
import { ENGINE_VERSION } from "../../src/version";
import { packageRoot } from "./imports";

const pkg = JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8"));
const ENTRIES = { ".": "./src/index.ts", "./testing": "./src/testing/index.ts" };

describe("the package's metadata", () => {
  it("has one version: package.json's, ENGINE_VERSION and the newest CHANGELOG entry", () => {
    expect(ENGINE_VERSION).toBe(pkg.version);
    const newest = /^## (\S+)/m.exec(readFileSync(join(packageRoot, "CHANGELOG.md"), "utf8"))?.[1];
    expect(newest).toBe(pkg.version);
  });

  it("exports the server API and the test client, each with its types, and nothing else but package.json", () => {
    expect(Object.keys(pkg.exports).sort()).toEqual([".", "./package.json", "./testing"]);
    for (const [entry, file] of Object.entries(ENTRIES)) {
      expect(pkg.exports[entry]).toEqual({ types: file, default: file });
      expect(existsSync(join(packageRoot, file)), file).toBe(true);
    }
  });

  it("declares the Node it runs its tools on, as the app does, and a license file", () => {
    expect(pkg.engines.node).toBe(JSON.parse(readFileSync(join(packageRoot, "../package.json"), "utf8")).engines.node);
    expect(pkg.license).toBe("MIT");
    expect(readFileSync(join(packageRoot, "LICENSE"), "utf8")).toMatch(/^MIT License/);
  });
});

describe("an import that goes around the package's entries", () => {
  // Resolved from the repository's root, as the app resolves the package (node_modules/mcp-workers-engine).
  const fromApp = createRequire(join(packageRoot, "../package.json"));

  it("is refused by Node's resolver, naming the subpath that is not exported", () => {
    expect(() => fromApp.resolve("mcp-workers-engine/src/define/tools.ts")).toThrow(
      /Package subpath '\.\/src\/define\/tools\.ts' is not defined by "exports"/,
    );
    expect(fromApp.resolve("mcp-workers-engine/package.json")).toBe(join(packageRoot, "package.json"));
  });

  it("is refused by TypeScript, as the app's tsconfig resolves it (bundler), while an exported path of the package resolves", () => {
    // A project of its own beside the package, the package linked in as an app's node_modules holds it.
    const dir = mkdtempSync(join(tmpdir(), "deep-import-"));
    try {
      mkdirSync(join(dir, "node_modules"));
      symlinkSync(packageRoot, join(dir, "node_modules", "mcp-workers-engine"), "dir");
      const compilerOptions = {
        module: "esnext",
        moduleResolution: "bundler",
        noEmit: true,
        strict: true,
        types: [],
        resolveJsonModule: true,
      };
      writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["app.ts"] }));
      writeFileSync(
        join(dir, "app.ts"),
        [
          'import pkg from "mcp-workers-engine/package.json" with { type: "json" };',
          'import { runTool } from "mcp-workers-engine/src/define/tools";',
          "export { pkg, runTool };",
        ].join("\n"),
      );
      const checked = spawnSync(join(packageRoot, "../node_modules/.bin/tsc"), ["-p", ".", "--pretty", "false"], {
        cwd: dir,
        encoding: "utf8",
      });
      // Exactly one error, on the deep import: the exported package.json resolved.
      expect(checked.stdout.trim().split("\n")).toEqual([
        "app.ts(2,25): error TS2307: Cannot find module 'mcp-workers-engine/src/define/tools' or its corresponding type declarations.",
      ]);
      expect(checked.status).not.toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("fails the bundle wrangler builds, naming the subpath and the package", async () => {
    const bundle = build({
      stdin: {
        contents: 'export { runTool } from "mcp-workers-engine/src/define/tools";',
        resolveDir: join(packageRoot, ".."),
        loader: "ts",
      },
      bundle: true,
      write: false,
      // wrangler's own conditions
      conditions: ["workerd", "worker", "browser"],
      logLevel: "silent",
    });
    const refused = await bundle.then(
      () => undefined,
      (failure: { errors: { text: string; notes: { text: string }[] }[] }) => failure.errors[0],
    );
    expect(refused?.text).toBe('Could not resolve "mcp-workers-engine/src/define/tools"');
    expect(refused?.notes[0]?.text).toBe('The path "./src/define/tools" is not exported by package "mcp-workers-engine":');
  });
});

describe("the packed tarball", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("holds the code, its docs, README, CHANGELOG and LICENSE, and no test, bench, fixture or build output", () => {
    const dir = mkdtempSync(join(tmpdir(), "engine-pack-"));
    dirs.push(dir);
    const [packed] = JSON.parse(
      execFileSync("npm", ["pack", "--dry-run", "--json", "--pack-destination", dir], { cwd: packageRoot, encoding: "utf8" }),
    );
    const files: string[] = packed.files.map((file: { path: string }) => file.path);
    expect(files).toEqual(
      expect.arrayContaining(["package.json", "README.md", "CHANGELOG.md", "LICENSE", "src/index.ts", "src/testing/index.ts"]),
    );
    expect(files.filter((path) => !/^(src|docs)\/|^(package\.json|README\.md|CHANGELOG\.md|LICENSE)$/.test(path))).toEqual([]);
    expect(files.filter((path) => /(^|\/)(test|tests|bench|conformance|fixtures?|node_modules|build|dist)\//.test(path))).toEqual([]);
    expect(files.filter((path) => /\.test\.ts$/.test(path))).toEqual([]);
    writeFileSync(join(dir, "files.txt"), files.join("\n"));
  });
});
