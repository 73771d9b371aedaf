#!/usr/bin/env node
/**
 * `npm run blank [-- --force]`
 *
 * Starts a fork from blank: removes the example app (the private notebook: its storage, tools, resources, prompt,
 * skill, view, tests and configuration) and leaves a server with one tool, `count_words` (the README's "Add a tool"
 * example), its test (the README's "Test it" example) and an end-to-end test of a real client calling it through
 * `npm run dev`. The engine (engine/) and its tests are not touched, and every engine feature whose binding stays in
 * wrangler.toml stays on. Prints each change; a second run finds nothing left to remove and changes nothing.
 *
 * Meant for a fork that starts out: the example's files go whole, with anything a fork added to them (its tools in
 * src/tools.ts, a view of its own in views/). Why it refuses to run over uncommitted changes in the files it deletes
 * or edits: they would be lost. Commit them first (or pass --force), and review the result with `git status` and
 * `git diff` before committing it; git keeps what it removed.
 *
 * Imported without running (the lists below and `pendingChanges`): test/repo/start-from-blank.test.ts checks a copy
 * of the repository against them.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The example's own files and folders (a path ending in "/" is a folder): removed whole. */
export const EXAMPLE_PATHS = [
  "src/notes.ts",
  "src/views.ts",
  // The notebook view, and the views' build: a server without views needs neither; [build] stays for skills.
  "views/",
  // The example's skill: skills/ itself stays (with src/skills.ts's empty list) for the fork's own.
  "skills/notebook-keeping/",
  "test/app/isolation.test.ts",
  "test/app/notes.test.ts",
  "test/app/retag.test.ts",
  "test/app/skills.test.ts",
  "test/app/storage.ts",
  "test/app/views.test.ts",
  // End-to-end flows through the example's tools, and their helpers; dev-server, landing, local-settings and
  // quick-start hold for any app.
  "test/e2e/app-bindings.ts",
  "test/e2e/dev-server-example.test.ts",
  // dev-server-example's Worker: the example's server, and the same server with JSON answers.
  "test/e2e/json-answers/",
  "test/e2e/ext-tasks-session.ts",
  "test/e2e/ext-tasks.test.ts",
  "test/e2e/legacy-clients.test.ts",
  "test/e2e/listen.test.ts",
  "test/e2e/modern-client.test.ts",
  "test/e2e/notebooks.ts",
  "test/e2e/oauth-flow.test.ts",
  "test/e2e/oauth/",
  // The Python clients' flows; their installer (test/e2e/python/clients.mjs, `npm run clients:python`) stays, for the
  // fork's own Python client tests.
  "test/e2e/python-clients.test.ts",
  "test/e2e/python/fastmcp_notes_flow.py",
  "test/e2e/python/machine_client_flow.py",
  "test/e2e/python/mcp_notes_flow.py",
  "test/e2e/python/notes_flow.py",
  "test/e2e/skills-client.test.ts",
  "test/e2e/tasks-client.test.ts",
  "test/e2e/tracing.test.ts",
  "test/e2e/views.browser.test.ts",
  "test/e2e/views/",
];

/**
 * This command's own files, and the template's other check of a fork's start: once the example is gone, nothing uses
 * them. Removed last. The README step's check (readme-tool) adds count_words to the example's tools; a blank server
 * has that tool already, and its own test (test/app/count-words.test.ts) runs in npm test. Only these: the rest of
 * scripts/ (pinned-node.sh, require-node.mjs) serves the fork's own npm test and npm run dev.
 */
export const BLANK_TOOLING = [
  "scripts/blank.mjs",
  "scripts/blank.d.mts",
  "test/repo/start-from-blank.test.ts",
  "test/repo/readme-tool.test.ts",
];

/**
 * Dev dependencies only the example's tests used: ext-apps ran its view (and the view's test host), ext-tasks its
 * tasks client, jose its OAuth flow's upstream, yaml its skill's frontmatter check.
 */
const EXAMPLE_DEV_DEPENDENCIES = ["@modelcontextprotocol/ext-apps", "@modelcontextprotocol/ext-tasks", "jose", "yaml"];

/** The example's Durable Object class: its binding goes, and a migration deletes it where it was deployed. */
const EXAMPLE_CLASS = "Notebook";

/** The blank's one tool: exactly the README's "Add a tool" example, indented into the array. */
const TOOLS_TS = `/**
 * Every tool this server offers. To add one, append a \`defineTool({...})\` to the array \`tools()\` returns below: a
 * name, a description written for the model, a zod schema for the arguments (and for \`structuredContent\` if the tool
 * returns data), and a handler. Nothing else needs editing; \`tools/list\` follows this array's order.
 *
 * Handlers get \`(args, ctx)\`: \`args\` already validated against \`input\`; \`ctx\` carries \`env\`, the caller
 * (\`ctx.principal\`), a cancellation \`ctx.signal\`, \`ctx.progress()\`/\`ctx.log()\` and \`ctx.ask()\` to ask the
 * client for input (see docs/guides/asking-the-user.md). Return \`toolError("...")\` for failures the model should read.
 */
import { defineTool, type Tool } from "mcp-workers-engine";
import * as z from "zod/mini";

/**
 * Every tool, in \`tools/list\` order. A function, not a constant: src/index.ts calls it on the first request rather
 * than at startup, because constructing zod schemas costs CPU that every cold start would pay; so keep schemas
 * inside it (a schema built at module scope is built on every cold start).
 */
export function tools(): Tool[] {
  return [
    defineTool({
      name: "count_words",
      description: "Count the words in a text.",
      input: z.strictObject({ text: z.string().check(z.maxLength(10_000)) }),
      output: z.object({ words: z.int() }), // optional: structured output, checked before it is sent
      annotations: { readOnlyHint: true, openWorldHint: false },
      handler: ({ text }) => ({ structuredContent: { words: text.split(/\\s+/).filter(Boolean).length } }),
    }),
  ];
}
`;

const RESOURCES_TS = `/**
 * Every resource this server offers: none yet. A fixed resource has a \`uri\`; a family of resources has a
 * \`uriTemplate\` (RFC 6570, \`{name}\` variables) and a \`read\` that returns \`undefined\` when nothing exists at a URI.
 * \`complete\` offers completion for template variables; \`list\` lists the caller's concrete resources in
 * \`resources/list\`, one page at a time. Add one to the array: \`defineResource({...})\` or \`defineResourceTemplate({...})\`.
 */
import type { Resource } from "mcp-workers-engine";

export const resources: Resource[] = [];
`;

const SKILLS_TS = `/**
 * Every skill this server offers (the Skills extension): none yet. A skill is a folder, skills/<name>/, with its
 * SKILL.md (YAML frontmatter with \`name\` and \`description\`, then the instructions) and the files it refers to;
 * declare it here by that name: \`defineSkill({ name: "<name>" })\`. The build (\`npm run dev\`, the tests, every
 * deploy) copies its files into the static assets with their digests.
 */
import type { Skill } from "mcp-workers-engine";

export const skills: Skill[] = [];
`;

const PROMPTS_TS = `/**
 * Every prompt this server offers: none yet. A prompt is a name, its string arguments as a zod object, optional
 * completion for arguments, and \`get\`, which returns the messages; add one to the array with \`definePrompt({...})\`.
 * A function, like \`tools()\`: built on the first request, so its zod schemas cost nothing at startup.
 */
import type { Prompt } from "mcp-workers-engine";

export function prompts(): Prompt[] {
  return [];
}
`;

/** The blank's only app test: exactly the README's "Test it" example. */
const APP_TEST_TS = `import { connect } from "mcp-workers-engine/testing";
import { expect, it } from "vitest";
import { fetchApp } from "./app";

it("counts the words of a text", async () => {
  const client = await connect(fetchApp);
  const result = await client.callTool("count_words", { text: "one two three" });
  expect(result.structuredContent).toEqual({ words: 3 });
});
`;

/** Every end-to-end test left is one that holds for any app; this one proves a real client works with the blank's. */
const E2E_TEST_TS = `/**
 * Real MCP clients call the server's tool through \`npm run dev\` (package.json's dev script, on a copy of wrangler.toml
 * in a temporary directory): the official client on 2026-07-28, and the 1.x SDK client of the 2025 clients.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyTemplateConfig, type DevProcess, devScriptArguments, exited, spawnWranglerDev } from "./dev-server";

let dir: string;
let dev: DevProcess;
let endpoint: URL;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mcp-count-words-"));
  dev = spawnWranglerDev([
    ...devScriptArguments(),
    ...["-c", copyTemplateConfig(dir), "--ip", "127.0.0.1", "--port", "0", "--inspector-port", "0"],
    ...["--persist-to", join(dir, "state"), "--show-interactive-dev-session=false"],
  ]);
  endpoint = new URL("/mcp", await dev.ready);
}, 60_000);

afterAll(async () => {
  if (dev) await exited(dev.child);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("count_words through npm run dev", () => {
  it("counts words for the official client on 2026-07-28", async () => {
    const client = new Client({ name: "e2e", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(new StreamableHTTPClientTransport(endpoint));
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("count_words");
      const result = await client.callTool({ name: "count_words", arguments: { text: "one two three" } });
      expect(result.structuredContent).toEqual({ words: 3 });
    } finally {
      await client.close();
    }
  });

  it("counts words for the SDK 1.x client on 2025-11-25", async () => {
    const client = new ClientV1({ name: "e2e-v1", version: "1.0.0" });
    const transport = new TransportV1(endpoint);
    await client.connect(transport);
    try {
      expect(transport.protocolVersion).toBe("2025-11-25");
      const result = await client.callTool({ name: "count_words", arguments: { text: "one two  three four" } });
      expect(result.structuredContent).toEqual({ words: 4 });
    } finally {
      await client.close();
    }
  });
});
`;

/**
 * The blank's migration, appended after the fork's last one. Why not edit the migration that created the class:
 * wrangler sends a deployed Worker only the migrations after the tag it already has, so a changed old migration
 * never reaches a Worker that ran it, and that Worker would refuse a version that no longer exports the class.
 */
const deletionMigration = (tag, createdBy) => `
# npm run blank removed the example's Durable Object class, ${EXAMPLE_CLASS} (created by ${createdBy}, was bound as NOTEBOOKS).
# Applied migrations stay as they are: a Worker that served the example gets only this one on its next deploy,
# which deletes every ${EXAMPLE_CLASS} object and its stored data; a first deploy runs them all, ending without it.
[[migrations]]
tag = "${tag}"
deleted_classes = ["${EXAMPLE_CLASS}"]
`;

/**
 * Exact edits of the fork's files, each applied only where its text is still found: what a fork changed is left
 * alone, and said so at the end when it still names the example.
 */
const EDITS = [
  {
    file: "src/index.ts",
    what: `no longer exports the example's ${EXAMPLE_CLASS} class`,
    find: `\n// The example's own: one notebook's notes in SQLite storage (src/notes.ts).\nexport { ${EXAMPLE_CLASS} } from "./notes";\n`,
    replace: "",
  },
  {
    file: "src/index.ts",
    what: "the server declared inside createMcpWorker's call (it was exported on its own for test/e2e/oauth/, removed)",
    find: /^\/\*\* The server, exported on its own too: test\/e2e\/oauth\/[^\n]*\nexport const definition = \{\n([\s\S]*?\n)\};\n\nconst mcp = createMcpWorker<Env>\(definition\);\n/m,
    replace: "const mcp = createMcpWorker<Env>({\n$1});\n",
  },
  {
    file: "src/index.ts",
    what: 'server named "my-mcp-server"',
    find: '  name: "mcp-notes-server",\n',
    replace: '  name: "my-mcp-server",\n',
  },
  { file: "src/index.ts", what: 'titled "My MCP server"', find: '  title: "Notes",\n', replace: '  title: "My MCP server",\n' },
  {
    file: "src/index.ts",
    what: "the example's instructions removed",
    find: /^ {2}instructions:\n {4}"A personal notebook\.[^\n]*\n/m,
    replace: "",
  },
  {
    file: "wrangler.toml",
    what: 'Worker named "my-mcp-server" (one deployed as mcp-notes-server stays: `npx wrangler delete --name mcp-notes-server`)',
    find: 'name = "mcp-notes-server"\n',
    replace: 'name = "my-mcp-server"\n',
  },
  {
    file: "wrangler.toml",
    what: "the build makes the skills only, and watches no views/ (it is gone)",
    find: /^# Interactive views \(MCP Apps, views\/\) and skills \(skills\/\)[\s\S]*?^watch_dir = \["src", "engine\/src", "views", "skills"\]\n/m,
    replace: `# Skills (skills/): built into build/assets before wrangler bundles the Worker, on dev, build and deploy alike (their
# digests are computed here, never per request; the build does nothing when the files are unchanged).
# \`mcp-build-skills\` is the engine package's command.
# watch_dir: what \`wrangler dev\` watches, rebuilding and reloading on any change. It replaces wrangler's own watch of
# the Worker's sources, so it names them too: src/ (your tools) and engine/src/ (the engine, while it is a folder of
# this repository), beside skills/ (listeners hear of skills).
[build]
command = "mcp-build-skills"
watch_dir = ["src", "engine/src", "skills"]
`,
  },
  {
    file: "wrangler.toml",
    what: "the assets' comment names the skills only",
    find: "# The views' HTML and the skills' files, as static assets outside the Worker bundle, read through the ASSETS binding\n# only when a host asks for them (resources/read, skills/list, ...).",
    replace:
      "# The skills' files, as static assets outside the Worker bundle, read through the ASSETS binding only when a host\n# asks for them (skills/list, skills/get, ...).",
  },
  {
    file: "wrangler.toml",
    what: "the Durable Objects' comment no longer names the example's",
    find: "# Durable Objects: notebooks (SQLite storage for the example), the single-use state guard,\n",
    replace: "# Durable Objects: the single-use state guard,\n",
  },
  {
    file: "wrangler.toml",
    what: "no RETAG_LIMITER binding (the example tool's budget)",
    find: `# retag_notebook's own budget (its \`budget\` in src/tools.ts, which names this binding with the same limit and period):
# calls per caller per minute, so a costly tool cannot use up the requests of the cheap ones. Remove the tool's
# \`budget\` with this block (without the binding, the tool refuses to run rather than run unmetered).
[[ratelimits]]
name = "RETAG_LIMITER"
namespace_id = "1003"
simple = { limit = 10, period = 60 }

`,
    replace: "",
  },
  {
    file: "vitest.config.ts",
    what: "the app's tests no longer bind RETAG_LIMITER",
    find: '                RETAG_LIMITER: { namespace_id: "1003", simple: { limit: 1_000_000, period: 60 } },\n',
    replace: "",
  },
  {
    file: "wrangler.toml",
    what: "no NOTEBOOKS binding",
    find: `[[durable_objects.bindings]]\nname = "NOTEBOOKS"\nclass_name = "${EXAMPLE_CLASS}"\n\n`,
    replace: "",
  },
  {
    file: "test/tsconfig.json",
    what: "no longer names the example's OAuth test Worker",
    find: '"./e2e/oauth/worker.ts", ',
    replace: "",
  },
  {
    file: "test/e2e/tsconfig.json",
    what: "no longer names the example's OAuth test Worker",
    find: '"./oauth/worker.ts", ',
    replace: "",
  },
  {
    file: "test/tsconfig.json",
    what: "no longer names the example's JSON-answers test Worker",
    find: ', "./e2e/json-answers/worker.ts"',
    replace: "",
  },
  {
    file: "test/e2e/tsconfig.json",
    what: "no longer names the example's JSON-answers test Worker",
    find: ', "./json-answers/worker.ts"',
    replace: "",
  },
  {
    file: "README.md",
    what: "no sentence about the example",
    find: /\sThe example is a small private notebook, so every feature runs on real code\s+paths\./,
    replace: "",
  },
  {
    file: "README.md",
    what: "no sentence about npm run blank (it removed itself)",
    find: /\sStarting your own server instead of growing the example\? Commit, then `npm run blank`:\s+it removes the example app \(and then itself\) and leaves this one tool with its test\./,
    replace: "",
  },
  {
    file: ".ci/run",
    what: "no step for the template's checks (npm run blank removed them, and their script)",
    find: /\nstep "The template's checks of a fork's start[^\n]*\nnpm run test:template\n/,
    replace: "\n",
  },
  {
    file: "README.md",
    what: "no word of the template's checks (npm run blank removed them)",
    find: /\s\(the template's checks of\s+this README and `npm run blank`, each on a copy of the repository, are `npm run test:template`\)/,
    replace: "",
  },
  {
    file: "README.md",
    what: 'client configurations name the server "my-mcp-server"',
    find: /\{ "notes": \{/g,
    replace: '{ "my-mcp-server": {',
  },
  { file: "README.md", what: "no example handle named", find: " (the example's `notebook_id`)", replace: "" },
];

/** Where a fork's own files may still name the example (checked at the end; reported, never edited blindly). */
const APP_FILES = [
  "src/index.ts",
  "src/tools.ts",
  "src/resources.ts",
  "src/prompts.ts",
  "src/skills.ts",
  "wrangler.toml",
  "package.json",
  "README.md",
];
/** How the example's names read: Notebook, notebook_id, notes, note://... */
export const EXAMPLE_WORDS = /notebook|\bnotes?\b/i;

/**
 * A wrangler.toml without its migrations (each [[migrations]] table and the comment lines right above it): they keep
 * naming the classes they created and deleted, the example's among them, for as long as the Worker lives.
 */
export function withoutMigrations(toml) {
  const lines = toml.split("\n");
  const kept = [];
  let inMigration = false;
  for (const line of lines) {
    if (/^\[/.test(line)) inMigration = line === "[[migrations]]";
    if (line === "[[migrations]]") while (kept.length && kept[kept.length - 1].startsWith("#")) kept.pop();
    if (!inMigration) kept.push(line);
  }
  return kept.join("\n");
}

const read = (root, file) => readFileSync(join(root, file), "utf8");
const found = (text, find) =>
  typeof find === "string" ? text.includes(find) : new RegExp(find.source, find.flags.replace("g", "")).test(text);

/** The migrations of a wrangler.toml: each one's tag and the classes it creates and deletes. */
function migrationsOf(toml) {
  return toml
    .split(/^\[\[migrations\]\]$/m)
    .slice(1)
    .map((block) => {
      const body = block.split(/^\[/m)[0];
      const list = (key) =>
        [...(new RegExp(`^${key} = \\[([^\\]]*)\\]`, "m").exec(body)?.[1] ?? "").matchAll(/"([^"]+)"/g)].map(([, name]) => name);
      return {
        tag: /^tag = "([^"]+)"/m.exec(body)?.[1],
        created: [...list("new_sqlite_classes"), ...list("new_classes")],
        deleted: list("deleted_classes"),
      };
    });
}

/** Whether wrangler.toml's migrations created the example's class and none deletes it yet. */
function needsDeletionMigration(toml) {
  const migrations = migrationsOf(toml);
  return migrations.some((m) => m.created.includes(EXAMPLE_CLASS)) && !migrations.some((m) => m.deleted.includes(EXAMPLE_CLASS));
}

/** A tag no migration uses yet: v<n+1> for n migrations, or the next free one after it. */
function freeTag(toml) {
  const tags = new Set(migrationsOf(toml).map((m) => m.tag));
  let n = tags.size + 1;
  while (tags.has(`v${n}`)) n++;
  return `v${n}`;
}

/** The example in the app's declarations: a tools, resources or prompts file that imports it, a skills file naming its skill. */
const EXAMPLE_DECLARATIONS = /from "\.\/(notes|views)"|defineSkill\(\{ name: "notebook-keeping" \}\)/;
const usesExample = (root, file) => existsSync(join(root, file)) && EXAMPLE_DECLARATIONS.test(read(root, file));

/** This command's npm scripts: `blank` runs it, `test:template` runs its test and readme-tool's (BLANK_TOOLING). */
export const BLANK_SCRIPTS = ["blank", "test:template"];

/** What package.json loses: this command's scripts, the views' type check, the example's own dev dependencies. */
function packageChanges(pkg) {
  const scripts = BLANK_SCRIPTS.filter((name) => pkg.scripts?.[name] !== undefined);
  const check = pkg.scripts?.check?.includes(" && tsc --noEmit -p views") ?? false;
  const dependencies = EXAMPLE_DEV_DEPENDENCIES.filter((name) => pkg.devDependencies?.[name] !== undefined);
  return { scripts, check, dependencies, any: scripts.length > 0 || check || dependencies.length > 0 };
}

/** What is left to do in the fork at `root`: every part of the example still there. */
export function pendingChanges(root) {
  const toml = existsSync(join(root, "wrangler.toml")) ? read(root, "wrangler.toml") : "";
  const pkg = existsSync(join(root, "package.json")) ? JSON.parse(read(root, "package.json")) : {};
  return {
    paths: EXAMPLE_PATHS.filter((path) => existsSync(join(root, path))),
    declarations: ["src/tools.ts", "src/resources.ts", "src/prompts.ts", "src/skills.ts"].filter((file) => usesExample(root, file)),
    edits: EDITS.filter(({ file, find }) => existsSync(join(root, file)) && found(read(root, file), find)),
    migration: needsDeletionMigration(toml),
    package: packageChanges(pkg),
  };
}

const isEmpty = (pending) =>
  pending.paths.length === 0 &&
  pending.declarations.length === 0 &&
  pending.edits.length === 0 &&
  !pending.migration &&
  !pending.package.any;

/** Every file this script may delete or rewrite (the dirty check covers exactly these). */
const TOUCHED = [
  ...EXAMPLE_PATHS,
  ...new Set(EDITS.map(({ file }) => file)),
  "src/tools.ts",
  "src/resources.ts",
  "src/prompts.ts",
  "src/skills.ts",
  "test/app/count-words.test.ts",
  "test/e2e/count-words.test.ts",
  "package.json",
  "package-lock.json",
  "worker-configuration.d.ts",
];

/**
 * Brings package-lock.json in step with package.json, as `npm install` would, without installing: versions already
 * locked stay locked (a removed package is only taken out). Why here: a lockfile out of step fails `npm ci`.
 */
function updateLockfile(root) {
  const args = ["install", "--package-lock-only", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"];
  return spawnSync("npm", args, { cwd: root, encoding: "utf8" });
}

/** The gzip size in whole KiB of what `wrangler deploy` would upload from `root`, as its dry run measures it. */
function uploadKib(root) {
  const out = mkdtempSync(join(tmpdir(), "blank-upload-"));
  try {
    const wrangler = join(root, "node_modules/wrangler/bin/wrangler.js");
    // wrangler.toml's [build] runs the packages' commands: found on the PATH as npm puts them there.
    const PATH = `${join(root, "node_modules/.bin")}:${process.env.PATH}`;
    const env = { ...process.env, PATH, CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", FORCE_COLOR: "0" };
    const built = spawnSync(process.execPath, [wrangler, "deploy", "--dry-run", "--outdir", out], { cwd: root, encoding: "utf8", env });
    const gzip = /Total Upload: [\d.]+ KiB \/ gzip: ([\d.]+) KiB/.exec(built.stdout ?? "")?.[1];
    return gzip === undefined ? undefined : Math.round(Number(gzip));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/**
 * Removes the example from the fork at `root`, printing each change, then this command's own files. Says whether the
 * lockfile could be brought in step (when package.json's dependencies changed).
 */
function startFromBlank(root, log = console.log) {
  const pending = pendingChanges(root);
  if (isEmpty(pending)) {
    log("npm run blank: nothing left to remove (the example is gone already).");
    return { changed: false, lockfile: "unchanged" };
  }
  log("npm run blank: removing the example app (the private notebook)");

  for (const path of pending.paths) {
    rmSync(join(root, path), { recursive: true, force: true });
    log(`  removed ${path}`);
  }

  const declarations = {
    "src/tools.ts": TOOLS_TS,
    "src/resources.ts": RESOURCES_TS,
    "src/prompts.ts": PROMPTS_TS,
    "src/skills.ts": SKILLS_TS,
  };
  for (const file of pending.declarations) {
    writeFileSync(join(root, file), declarations[file]);
    log(`  ${file}: ${file === "src/tools.ts" ? 'one tool, count_words (the README\'s "Add a tool" example)' : "an empty list"}`);
  }
  // The tests of the one tool come with it (and only with it: a tools.ts of the fork's own keeps its own tests).
  if (pending.declarations.includes("src/tools.ts")) {
    for (const [file, text, what] of [
      ["test/app/count-words.test.ts", APP_TEST_TS, "count_words's test (the README's \"Test it\" example)"],
      ["test/e2e/count-words.test.ts", E2E_TEST_TS, "a real client calls count_words through npm run dev"],
    ]) {
      if (existsSync(join(root, file)) || !existsSync(join(root, file, ".."))) continue;
      writeFileSync(join(root, file), text);
      log(`  wrote ${file}: ${what}`);
    }
  }

  for (const { file, what, find, replace } of pending.edits) {
    writeFileSync(join(root, file), read(root, file).replace(find, replace));
    log(`  ${file}: ${what}`);
  }

  if (pending.migration) {
    const toml = read(root, "wrangler.toml");
    const tag = freeTag(toml);
    const createdBy = migrationsOf(toml).find((m) => m.created.includes(EXAMPLE_CLASS))?.tag;
    writeFileSync(join(root, "wrangler.toml"), `${toml.trimEnd()}\n${deletionMigration(tag, createdBy)}`);
    log(`  wrangler.toml: migration ${tag} deletes the ${EXAMPLE_CLASS} class where the example was deployed (and its stored data)`);
  }

  // This command's own files go too: with the example gone, nothing would run or use them.
  for (const path of BLANK_TOOLING.filter((entry) => existsSync(join(root, entry)))) {
    rmSync(join(root, path), { recursive: true, force: true });
    log(`  removed ${path} (the template's check of a fork's start: a fork without the example has no use for it)`);
  }

  const { scripts, check, dependencies } = pending.package;
  let lockfile = "unchanged";
  if (pending.package.any) {
    const pkg = JSON.parse(read(root, "package.json"));
    for (const name of scripts) delete pkg.scripts[name];
    if (check) pkg.scripts.check = pkg.scripts.check.replace(" && tsc --noEmit -p views", "");
    for (const name of dependencies) delete pkg.devDependencies[name];
    writeFileSync(join(root, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
    const parts = [...scripts.map((name) => `script ${name}`), ...(check ? ["check no longer type-checks views/"] : [])];
    if (dependencies.length) parts.push(`devDependencies ${dependencies.join(", ")}`);
    log(`  package.json: removed ${parts.join("; ")}`);
    if (dependencies.length) {
      const updated = updateLockfile(root);
      lockfile = updated.status === 0 ? "updated" : "stale";
      if (updated.status === 0) log("  package-lock.json: in step with package.json (npm install --package-lock-only)");
      else log(`  package-lock.json: NOT updated (${(updated.stderr || updated.stdout).trim()}): run \`npm install\``);
    }
  }

  // The Env type follows wrangler.toml's bindings and src/index.ts's exports: regenerate it as `npm run types` does.
  if (pending.migration || pending.edits.some(({ file }) => file === "wrangler.toml" || file === "src/index.ts")) {
    const types = spawnSync("npm", ["run", "--silent", "types"], { cwd: root, encoding: "utf8" });
    if (types.status === 0) log("  worker-configuration.d.ts: regenerated (npm run types)");
    else log(`  worker-configuration.d.ts: not regenerated (run \`npm run types\` once the install is done): ${types.stderr.trim()}`);
  }

  // The README says how large the upload is (test/repo/upload-size.test.ts holds it to that): the blank's, now.
  if (existsSync(join(root, "README.md")) && /uploads \d+ KiB gzip/.test(read(root, "README.md"))) {
    const kib = uploadKib(root);
    if (kib === undefined) log('  README.md: upload size not measured (run `npm run build` and edit its "uploads <n> KiB gzip")');
    else {
      writeFileSync(join(root, "README.md"), read(root, "README.md").replace(/uploads \d+ KiB gzip/, `uploads ${kib} KiB gzip`));
      log(`  README.md: the Worker uploads ${kib} KiB gzip (measured with wrangler deploy --dry-run)`);
    }
  }

  const leftovers = APP_FILES.filter((file) => existsSync(join(root, file))).flatMap((file) => {
    const text = file === "wrangler.toml" ? withoutMigrations(read(root, file)) : read(root, file);
    return text
      .split("\n")
      .filter((line) => EXAMPLE_WORDS.test(line))
      .map((line) => `    ${file}: ${line.trim()}`);
  });
  if (leftovers.length) log(`Still naming the example, to edit by hand:\n${leftovers.join("\n")}`);
  return { changed: true, lockfile };
}

function main() {
  const root = process.cwd();
  const force = process.argv.slice(2).includes("--force");
  const fail = (message) => {
    console.error(`npm run blank: ${message}`);
    process.exit(1);
  };
  if (!existsSync(join(root, "src/index.ts")) || !existsSync(join(root, "wrangler.toml"))) {
    fail("run it from the root of a fork (src/index.ts or wrangler.toml not found)");
  }
  if (isEmpty(pendingChanges(root))) {
    startFromBlank(root);
    return;
  }
  if (!force) {
    let dirty;
    try {
      dirty = execFileSync("git", ["status", "--porcelain", "--", ...TOUCHED], { cwd: root, encoding: "utf8" }).trim();
    } catch {
      fail("cannot tell whether the files it changes are committed (not a git repository?): commit them, or pass --force");
    }
    if (dirty) fail(`uncommitted changes in files it deletes or rewrites would be lost (commit them, or pass --force):\n${dirty}`);
  }
  const { lockfile } = startFromBlank(root);
  const next = lockfile === "stale" ? "npm install (package-lock.json is out of step), then npm test" : "npm test";
  console.log(`Done. Next: ${next}. Review the change with git status and git diff, then commit it.`);
}

// Run as a command, not when imported. realpath: Node names the module by its real path (a tmpdir may be a symlink).
if (process.argv[1] && realpathSync(resolve(process.argv[1])) === fileURLToPath(import.meta.url)) main();
