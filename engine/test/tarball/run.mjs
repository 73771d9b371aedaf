#!/usr/bin/env node
/**
 * `npm run test:tarball` (in .ci/run): proof that the package works as a published dependency. It packs this package
 * (`npm pack`), makes a fresh app outside the repository from the template's blank app (`npm run blank` on a copy of
 * the repository, then every file of it but the package's folder: no workspace, no link), installs the tarball with
 * the template's declared dependencies, and runs the app's own commands there: the type check, the linter, `npm test`
 * (the app's tests through the test client, and its end-to-end tests, a real MCP client calling its tool through
 * `npm run dev` among them) and the deploy build (`wrangler deploy --dry-run`). Prints the tarball's size and file
 * count. Exits non-zero when a step fails. Local only: wrangler dev binds 127.0.0.1; npm installs from the registry
 * (or its cache).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

const packageDir = resolve(import.meta.dirname, "../..");
const repo = resolve(packageDir, "..");
const PACKAGE_FOLDER = "engine";
const STEP_TIMEOUT_MS = 15 * 60_000;
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;

const env = { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" };
const git = (cwd, ...args) =>
  execFileSync("git", ["-c", "user.name=tarball", "-c", "user.email=tarball@example.com", ...args], { cwd, encoding: "utf8" });

function step(title, command, args, cwd) {
  console.log(`\n[tarball +${elapsed()}] ${title}: ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, { cwd, env, stdio: "inherit", timeout: STEP_TIMEOUT_MS });
  if (result.status !== 0) throw new Error(`${title} failed (exit ${result.status ?? result.signal}) in ${cwd}`);
}

/** The repository's files as git sees them in the working tree (tracked, or new and not ignored), copied into `dir`. */
function copyRepository(dir) {
  const files = git(repo, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0").filter(Boolean);
  for (const file of files) {
    if (!existsSync(join(repo, file))) continue;
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(repo, file), join(dir, file));
  }
}

const work = mkdtempSync(join(tmpdir(), "engine-tarball-"));
let failed = false;
try {
  // 1. The tarball, as `npm publish` would upload it.
  console.log(`[tarball] packing ${packageDir}`);
  const [packed] = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--pack-destination", work], { cwd: packageDir, encoding: "utf8", env }),
  );
  const tarball = join(work, packed.filename);

  // 2. The blank app: npm run blank on a committed copy of the repository (its node_modules linked in only for the
  //    blank's own steps, which regenerate the types and the lockfile).
  const template = join(work, "template");
  mkdirSync(template);
  copyRepository(template);
  git(template, "init", "-q");
  writeFileSync(join(template, ".git/info/exclude"), "node_modules\n");
  git(template, "add", "-A");
  git(template, "commit", "-qm", "the template");
  symlinkSync(join(repo, "node_modules"), join(template, "node_modules"), "dir");
  step("npm run blank on the copy", process.execPath, ["scripts/blank.mjs"], template);
  rmSync(join(template, "node_modules"));

  // 3. A fresh app outside the repository: every file of the blank app but the package's folder, depending on the
  //    tarball instead of the workspace.
  const app = join(work, "app");
  cpSync(template, app, { recursive: true, filter: (path) => ![join(template, PACKAGE_FOLDER), join(template, ".git")].includes(path) });
  const pkg = JSON.parse(readFileSync(join(app, "package.json"), "utf8"));
  delete pkg.workspaces;
  pkg.dependencies["mcp-workers-engine"] = `file:${tarball}`;
  writeFileSync(join(app, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
  // The template's lockfile describes the workspace; the fresh app resolves its own from the same pinned versions.
  rmSync(join(app, "package-lock.json"));
  git(app, "init", "-q");
  git(app, "add", "-A");
  git(app, "commit", "-qm", "a fresh app on the packed engine");

  step(
    "install the tarball with the template's declared dependencies",
    "npm",
    ["install", "--no-audit", "--no-fund", "--prefer-offline"],
    app,
  );
  const installed = join(app, "node_modules/mcp-workers-engine");
  if (lstatSync(installed).isSymbolicLink()) throw new Error(`${installed} is a link, not an installed copy of the tarball`);
  const version = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")).version;
  if (version !== packed.version) throw new Error(`installed ${version}, packed ${packed.version}`);
  if (existsSync(join(installed, "test")) || existsSync(join(installed, "bench")))
    throw new Error("the installed package holds tests or the bench");

  step("the type check", "npm", ["run", "check"], app);
  step("the linter", "npm", ["run", "lint"], app);
  step("the app's tests, end-to-end tests with real clients and repository checks", "npm", ["test"], app);
  step("the deploy build", "npm", ["run", "build"], app);

  console.log(
    `\n[tarball +${elapsed()}] passed: ${packed.filename}, ${packed.entryCount} files, ${(packed.size / 1024).toFixed(1)} KiB packed, ` +
      `${(packed.unpackedSize / 1024).toFixed(1)} KiB unpacked; the fresh app type-checks, lints, passes its tests and builds.`,
  );
} catch (error) {
  failed = true;
  console.error(`\n[tarball +${elapsed()}] FAILED: ${error.message}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
