/**
 * `npm run blank`, run on a copy of this repository (its files as git sees them in the working tree, in a temporary
 * directory, committed there; the repository's packages linked in, not installed): it removes the example app and
 * then itself (its own files only: the rest of scripts/ serves the fork's npm test and npm run dev), and leaves a
 * one-tool server that type-checks and lints, whose tool and test are exactly the README's "Add a tool" and "Test it"
 * examples, with a lockfile in step and no file, document or setting that names the example. It refuses to run over
 * uncommitted changes (unless forced).
 *
 * Then what a fork runs next, as it runs it: the copy's own `npm test`, every project (the app's, the repository's,
 * the end-to-end ones with `wrangler dev` and real clients, the engine's two), then its deploy build. A few minutes
 * on a 2-core machine: this file is one of the template's checks (`npm run test:template`, which .ci/run runs), not
 * part of `npm test` (vitest.config.ts's TEMPLATE_CHECKS says why).
 */
import { execFile, type SpawnSyncReturns, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BLANK_SCRIPTS, BLANK_TOOLING, EXAMPLE_PATHS, EXAMPLE_WORDS, pendingChanges, withoutMigrations } from "../../scripts/blank.mjs";
import { blockUnder, copyOfRepository, git } from "./copy";

const root = resolve(import.meta.dirname, "../..");
/** Each step runs one of the copy's own commands (a type check, a lint, a bundle): generous, for a busy machine. */
const STEP_TIMEOUT_MS = 5 * 60_000;
/** The copy's whole `npm test`: a few minutes on an idle 2-core machine; generous, for a busy one. */
const FULL_TEST_TIMEOUT_MS = 20 * 60_000;

const pending = pendingChanges(root);
/** This repository still has the example (the template, or a fork that kept it). */
const hasExample = pending.paths.length > 0 || pending.declarations.length > 0;

/** The copy's commands run as a developer's would: no parent test run's variables, no request.cf download, no metrics. */
function childEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST") && name !== "NODE_OPTIONS" && name !== "MODE"),
  );
  return { ...env, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false" };
}

/** Runs a command in `cwd`; its output is kept for the assertion message. */
function run(cwd: string, command: string, args: string[]): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, env: childEnv(), encoding: "utf8", timeout: STEP_TIMEOUT_MS, maxBuffer: 64 << 20 });
}
/** The same, without blocking: the copy's checks run side by side. */
function runInBackground(cwd: string, command: string, args: string[], timeout = STEP_TIMEOUT_MS): Promise<SpawnSyncReturns<string>> {
  return new Promise((settle) => {
    execFile(command, args, { cwd, env: childEnv(), encoding: "utf8", timeout, maxBuffer: 64 << 20 }, (error, stdout, stderr) =>
      settle({ status: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr } as SpawnSyncReturns<string>),
    );
  });
}

interface CopyChecks {
  check: Promise<SpawnSyncReturns<string>>;
  lint: Promise<SpawnSyncReturns<string>>;
  /** The copy's own `npm test`. */
  tests: Promise<SpawnSyncReturns<string>>;
  /** The copy's `npm run build`, after its tests (both write the assets folder, build/). */
  build: Promise<SpawnSyncReturns<string>>;
}

/**
 * The blank copy's own commands, started at once and awaited by the tests that judge them. Why side by side: run one
 * after another they were most of this file's time.
 */
function copyChecks(cwd: string): CopyChecks {
  const tests = runInBackground(cwd, "npm", ["test"], FULL_TEST_TIMEOUT_MS);
  return {
    check: runInBackground(cwd, "npm", ["run", "check"]),
    lint: runInBackground(cwd, "npm", ["run", "lint"]),
    tests,
    build: tests.then(() => runInBackground(cwd, "npm", ["run", "build"])),
  };
}

const blank = (cwd: string, ...args: string[]) => run(cwd, process.execPath, [join(cwd, "scripts/blank.mjs"), ...args]);
const outputOf = (result: SpawnSyncReturns<string>) => `${result.stdout}\n${result.stderr}`;
// biome-ignore lint/suspicious/noControlCharactersInRegex: vitest colours its report.
const withoutColours = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, "");

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === "node_modules" || name.startsWith(".")) return [];
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Every module a source file imports (static, dynamic, re-export), comment lines left out. */
const importsOf = (file: string) =>
  [
    ...readFileSync(file, "utf8")
      .replace(/^\s*(?:\*|\/\/|\/\*).*$/gm, "")
      .matchAll(/(?:from\s+|import\s*\(\s*|import\s+)["']([^"'\\\s]+)["']/g),
  ].map(([, spec]) => spec!);

describe.runIf(hasExample)("npm run blank on a copy of this repository", { timeout: STEP_TIMEOUT_MS }, () => {
  let copy: string;
  /** Started once the example is removed and committed (by the --force test), awaited by the tests that judge them. */
  let checks: CopyChecks | undefined;
  beforeAll(() => {
    copy = copyOfRepository("start-from-blank");
  }, STEP_TIMEOUT_MS);
  afterAll(async () => {
    // Why wait: the checks still running must not find their copy gone (a test that failed early leaves them running).
    if (checks) await Promise.allSettled([checks.check, checks.lint, checks.tests, checks.build]);
    if (copy) rmSync(copy, { recursive: true, force: true });
  }, FULL_TEST_TIMEOUT_MS + STEP_TIMEOUT_MS);

  it("names, as the example's, only files that exist while the example is there", () => {
    expect(EXAMPLE_PATHS.filter((path) => !existsSync(join(root, path)))).toEqual([]);
  });

  it("refuses to run over an uncommitted change to a file it would rewrite, and changes nothing", () => {
    writeFileSync(join(copy, "src/tools.ts"), `${readFileSync(join(copy, "src/tools.ts"), "utf8")}// a local change\n`);
    const refused = blank(copy);
    expect(refused.status, outputOf(refused)).toBe(1);
    expect(refused.stderr).toContain("uncommitted changes");
    expect(refused.stderr).toContain("src/tools.ts");
    expect(git(copy, "status", "--porcelain")).toBe(" M src/tools.ts\n");
  });

  // Why one run for both: a second copy and run only to see --force cost a tenth of this file's time.
  it("runs over that change with --force: removes the example, says what it changed, and what to run next", () => {
    const result = blank(copy, "--force");
    expect(result.status, outputOf(result)).toBe(0);
    expect(readFileSync(join(copy, "src/tools.ts"), "utf8")).not.toContain("// a local change");
    expect(result.stdout).toContain("removed src/notes.ts");
    expect(result.stdout).toContain("src/tools.ts: one tool, count_words");
    expect(result.stdout).toContain("wrangler.toml: migration v4 deletes the Notebook class");
    expect(result.stdout).toContain("worker-configuration.d.ts: regenerated");
    expect(result.stdout).toContain("package-lock.json: in step with package.json");
    expect(result.stdout).toContain("Next: npm test.");
    expect(result.stdout).not.toContain("Still naming the example");
    expect(EXAMPLE_PATHS.filter((path) => existsSync(join(copy, path)))).toEqual([]);
    git(copy, "add", "-A");
    git(copy, "commit", "-qm", "npm run blank");
    checks = copyChecks(copy);
  });

  it("declares the server inside createMcpWorker's call, with nothing exported for the OAuth end-to-end test it removed", () => {
    const entry = readFileSync(join(copy, "src/index.ts"), "utf8");
    expect(entry).toContain('const mcp = createMcpWorker<Env>({\n  name: "my-mcp-server",\n');
    expect(entry).toContain("  limits: { rateLimit: { requests: 600, periodMs: 60_000 } },\n});\n");
    expect(entry).toContain("export class TaskRunner extends mcp.TaskRunner {}\n");
    expect(entry).not.toContain("definition");
    expect(entry).not.toContain("Notebook");
  });

  it("removes itself (its own files, its test, its npm scripts) and keeps the rest of scripts/, which npm test and npm run dev run", () => {
    expect(BLANK_TOOLING.filter((path) => existsSync(join(copy, path)))).toEqual([]);
    const scripts: Record<string, string> = JSON.parse(readFileSync(join(copy, "package.json"), "utf8")).scripts;
    expect(BLANK_SCRIPTS.filter((name) => scripts[name] !== undefined)).toEqual([]);
    expect(existsSync(join(copy, "scripts/pinned-node.sh"))).toBe(true);
    const named = Object.values(scripts).flatMap((command) => [...command.matchAll(/\bnode (\S+\.m?js)\b/g)].map(([, file]) => file!));
    expect(named).toContain("scripts/require-node.mjs");
    expect(named.filter((file) => !existsSync(join(copy, file)))).toEqual([]);
  });

  it("leaves a .ci/run whose every npm script exists, without the template's checks it removed", () => {
    const scripts: Record<string, string> = JSON.parse(readFileSync(join(copy, "package.json"), "utf8")).scripts;
    const ci = readFileSync(join(copy, ".ci/run"), "utf8");
    // `npm run <name>` and `npm test` (a step's title names its command too: "(npm run check: ...)"), leaving out
    // the engine's own (`"${ENGINE[@]}"`, its workspace's scripts).
    const named = ci
      .split("\n")
      .filter((line) => !line.trimStart().startsWith("#") && !line.includes("ENGINE[@]"))
      .flatMap((line) => [...line.matchAll(/\bnpm (?:run ([\w:-]*[\w-])|(test)\b)/g)].map(([, name, test]) => (name ?? test)!));
    expect(named).toContain("test");
    expect(named.filter((name) => scripts[name] === undefined)).toEqual([]);
    expect(ci).not.toContain("test:template");
  });

  it("leaves package-lock.json in step with package.json, as npm ci requires", () => {
    const pkg = JSON.parse(readFileSync(join(copy, "package.json"), "utf8"));
    const locked = JSON.parse(readFileSync(join(copy, "package-lock.json"), "utf8")).packages[""];
    expect(locked.dependencies).toEqual(pkg.dependencies);
    expect(locked.devDependencies).toEqual(pkg.devDependencies);
    expect(locked.workspaces).toEqual(pkg.workspaces);
    expect(
      JSON.parse(readFileSync(join(copy, "package-lock.json"), "utf8")).packages["node_modules/@modelcontextprotocol/ext-apps"],
    ).toBeUndefined();
  });

  it("leaves no name of the example in the app (src/, test/), any document (the engine's too), wrangler.toml (outside its migrations) or .dev.vars.example", () => {
    const files = [
      ...filesUnder(join(copy, "src")),
      ...filesUnder(join(copy, "test")),
      ...filesUnder(copy).filter((file) => file.endsWith(".md") && !file.includes("/node_modules/")),
      join(copy, ".dev.vars.example"),
    ];
    expect(files.length).toBeGreaterThan(20);
    const texts = [
      ...files.map((file) => ({ name: relative(copy, file), text: readFileSync(file, "utf8") })),
      { name: "wrangler.toml", text: withoutMigrations(readFileSync(join(copy, "wrangler.toml"), "utf8")) },
    ];
    const named = texts.flatMap(({ name, text }) =>
      text
        .split("\n")
        .filter((line) => EXAMPLE_WORDS.test(line))
        .map((line) => `${name}: ${line}`),
    );
    expect(named).toEqual([]);
  });

  it("keeps the migrations that ran, and deletes the example's class in a new one", () => {
    const toml = readFileSync(join(copy, "wrangler.toml"), "utf8");
    const migrations = toml.split("\n[[migrations]]\n").slice(1);
    expect(migrations).toEqual([
      'tag = "v1"\nnew_sqlite_classes = ["Notebook", "ReplayGuard", "SubscriptionHub", "LegacySession"]\n',
      expect.stringMatching(/^tag = "v2"\nnew_sqlite_classes = \["TaskRunner"\]\n/),
      expect.stringMatching(/^tag = "v3"\nnew_sqlite_classes = \["OAuthState"\]\n/),
      'tag = "v4"\ndeleted_classes = ["Notebook"]\n',
    ]);
    expect(toml).not.toMatch(/class_name = "Notebook"/);
  });

  it("leaves a server that type-checks and lints (npm run check, npm run lint)", async () => {
    const [check, lint] = await Promise.all([checks!.check, checks!.lint]);
    expect(check.status, outputOf(check)).toBe(0);
    expect(lint.status, outputOf(lint)).toBe(0);
  });

  it("passes its own npm test, every project: the app's, the repository's, the end-to-end ones through wrangler dev, the engine's", {
    timeout: FULL_TEST_TIMEOUT_MS,
  }, async () => {
    const tests = await checks!.tests;
    // The end of the report: vitest's summary, then each failure with its error.
    expect(tests.status, withoutColours(outputOf(tests)).split("\n").slice(-400).join("\n")).toBe(0);
    const ran = withoutColours(tests.stdout);
    for (const [project, file] of [
      ["app", "test/app/count-words.test.ts"],
      ["repo", "test/repo/docs.test.ts"],
      ["e2e", "test/e2e/count-words.test.ts"],
      ["e2e", "test/e2e/dev-server.test.ts"],
      ["engine", "test/checklist.test.ts"],
      ["engine-repo", "test/repo/docs.test.ts"],
    ] as const) {
      expect(ran, `${project}: ${file}`).toMatch(new RegExp(`✓[\\s|]+${project}[\\s|]+${file.replaceAll(".", "\\.")}`));
    }
  });

  it("builds for deploy (npm run build: wrangler deploy --dry-run)", { timeout: FULL_TEST_TIMEOUT_MS + STEP_TIMEOUT_MS }, async () => {
    const build = await checks!.build;
    expect(build.status, outputOf(build)).toBe(0);
    expect(existsSync(join(copy, "dist/index.js"))).toBe(true);
  });

  it("leaves end-to-end tests whose imports all exist, one of them a real client calling the tool", () => {
    expect(existsSync(join(copy, "test/e2e/count-words.test.ts"))).toBe(true);
    const missing = filesUnder(join(copy, "test/e2e"))
      .filter((file) => /\.(ts|mjs)$/.test(file))
      .flatMap((file) =>
        importsOf(file)
          .filter((spec) => spec.startsWith("."))
          .filter((spec) => {
            const base = resolve(dirname(file), spec);
            return ![base, `${base}.ts`, join(base, "index.ts")].some((path) => existsSync(path) && statSync(path).isFile());
          })
          .map((spec) => `${relative(copy, file)} -> ${spec}`),
      );
    expect(missing).toEqual([]);
  });

  it("imports, in the app and every test, only packages its package.json declares", () => {
    const pkg = JSON.parse(readFileSync(join(copy, "package.json"), "utf8"));
    const declared = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})]);
    const sources = ["src", "test"].flatMap((dir) => filesUnder(join(copy, dir))).filter((file) => /\.(ts|mjs)$/.test(file));
    const undeclared = sources.flatMap((file) =>
      importsOf(file)
        .filter(
          (spec) => !spec.startsWith(".") && !spec.startsWith("node:") && !spec.startsWith("cloudflare:") && !builtinModules.includes(spec),
        )
        .map((spec) => (spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!))
        .filter((name) => !declared.has(name))
        .map((name) => `${relative(copy, file)} -> ${name}`),
    );
    expect(undeclared).toEqual([]);
  });

  it('leaves as its one tool the README\'s "Add a tool" example', () => {
    const readme = readFileSync(join(copy, "README.md"), "utf8");
    const indented = blockUnder(readme, "Add a tool").replace(/^(?=.)/gm, "    ");
    expect(readFileSync(join(copy, "src/tools.ts"), "utf8")).toContain(indented);
  });

  it('leaves as its one app test the README\'s "Test it" example', () => {
    const readme = readFileSync(join(copy, "README.md"), "utf8");
    expect(readFileSync(join(copy, "test/app/count-words.test.ts"), "utf8")).toBe(blockUnder(readme, "Test it"));
  });
});
