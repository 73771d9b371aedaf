/**
 * The deploy paths people expect of a Cloudflare template, as far as they can be checked without an account: a
 * "Deploy to Cloudflare" button and `npm create cloudflare -- --template <repo>` both clone the repository, provision
 * what wrangler.toml declares (so it names no account's resource ids), ask for every secret `.dev.vars.example` lists
 * (with the descriptions `package.json` gives), and build without a terminal.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const wranglerToml = readFileSync("wrangler.toml", "utf8");
const devVarsExample = readFileSync(".dev.vars.example", "utf8");
const bindings = JSON.parse(readFileSync("package.json", "utf8")).cloudflare.bindings as Record<string, { description: string }>;
const readme = readFileSync("README.md", "utf8");

/** `NAME=value` lines that are not comments: what the button asks for. */
const listed = devVarsExample
  .split("\n")
  .filter((line) => /^[A-Z_]+=/.test(line))
  .map((line) => line.slice(0, line.indexOf("=")));

describe("deploying from a button or create-cloudflare", () => {
  it("declares bindings without any account's ids: KV, D1 and R2 are provisioned by the deploy", () => {
    const active = wranglerToml
      .split("\n")
      .filter((line) => !line.trimStart().startsWith("#"))
      .join("\n");
    expect(active).not.toMatch(/^\s*(account_id|id|database_id|bucket_name|preview_id)\s*=/m);
    expect(active).not.toMatch(/^\s*routes?\s*=/m);
  });

  it("lists STATE_KEYS, the one secret production needs, in .dev.vars.example (test/app/deploy.test.ts: its stand-in fails closed)", () => {
    expect(listed).toContain("STATE_KEYS");
  });

  it("describes in package.json every setting a deployer is asked for, and every [vars] entry", () => {
    const vars = [...(wranglerToml.split("[vars]")[1]?.split(/\n\[/)[0] ?? "").matchAll(/^([A-Z_]+)\s*=/gm)].map(([, name]) => name!);
    for (const name of [...listed, ...vars]) {
      expect(bindings[name]?.description, name).toMatch(/\S{10,}/);
    }
  });

  it("builds and deploys through npm scripts that need no terminal", () => {
    const scripts = JSON.parse(readFileSync("package.json", "utf8")).scripts as Record<string, string>;
    expect(scripts.deploy).toBe("wrangler deploy");
    expect(scripts.build).toMatch(/^wrangler deploy --dry-run /);
    // wrangler runs [build] before bundling, on deploy too, with node_modules/.bin on the PATH when npm or npx runs
    // it: each step must be a script of this repository run by node, or a command an installed package provides, so
    // nothing prompts. (An app without views or skills has no [build] at all.)
    const build = /\[build\]\s*\ncommand = "([^"]+)"/.exec(wranglerToml)?.[1];
    if (build === undefined) return;
    for (const step of build.split(" && ")) {
      const [command, ...args] = step.split(" ");
      if (command === "node") expect(existsSync(args[0]!), step).toBe(true);
      else expect(existsSync(join("node_modules/.bin", command!)), `${step}: a command of an installed package`).toBe(true);
    }
  });

  it("shows both deploy paths in the README", () => {
    expect(readme).toMatch(
      /\[!\[Deploy to Cloudflare\]\(https:\/\/deploy\.workers\.cloudflare\.com\/button\)\]\(https:\/\/deploy\.workers\.cloudflare\.com\/\?url=/,
    );
    // Pinned, as every tool is: the release the toolchain was last moved to.
    expect(readme).toMatch(/npm create cloudflare@2\.74\.0 -- [\w-]+ --template /);
  });
});
