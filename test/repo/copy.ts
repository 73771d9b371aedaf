/**
 * A copy of this repository to run a fork's step on (npm run blank, the README's first edit, an engine update): its
 * files as git sees them in the working tree, in a temporary directory, committed there on `main` (the template's
 * branch, as a fork fetches it), with the repository's installed packages linked in (not installed). And the
 * README's code blocks, which those steps apply.
 */

import { execFileSync } from "node:child_process";
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

export const root = resolve(import.meta.dirname, "../..");

/** The branch a copy's files are committed on: the template's own, which the docs tell a fork to fetch. */
export const TEMPLATE_BRANCH = "main";

export const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=copy-test", "-c", "user.email=copy-test@example.com", ...args], { cwd, encoding: "utf8" });

/** A committed copy of the repository's files (tracked, or new and not ignored), with its packages linked in. */
export function copyOfRepository(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const files = git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0").filter(Boolean);
  for (const file of files) {
    if (!existsSync(join(root, file))) continue; // deleted in the working tree, not yet in the index
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(root, file), join(dir, file));
  }
  git(dir, "init", "-q", "-b", TEMPLATE_BRANCH);
  // Why: node_modules must stay out of the copy's commits whatever .gitignore says.
  writeFileSync(join(dir, ".git/info/exclude"), "node_modules\n");
  git(dir, "add", "-A");
  git(dir, "commit", "-qm", "the template");
  linkPackages(dir);
  return dir;
}

/**
 * The copy's node_modules/: a folder of its own holding a link to each package this repository installed, as an
 * install would leave it, but without installing. Why not one link to the whole folder: the workspace's package
 * (mcp-workers-engine, a link to ../engine) would then be this repository's engine, not the copy's, and every cache
 * a tool keeps in node_modules/ (vitest's, vite's, wrangler's) would be shared with this repository's own runs. So a
 * link npm made (the workspace's package, each command in .bin/) is made again as it reads, relative, and resolves
 * inside the copy; every other package links to this repository's; dot-folders (caches) are not taken.
 */
function linkPackages(dir: string): void {
  const linkEntries = (from: string, to: string) => {
    mkdirSync(to);
    for (const name of readdirSync(from)) {
      const source = join(from, name);
      if (lstatSync(source).isSymbolicLink()) symlinkSync(readlinkSync(source), join(to, name));
      else if (name === ".bin") linkEntries(source, join(to, name));
      else if (!name.startsWith(".")) symlinkSync(source, join(to, name));
    }
  };
  linkEntries(join(root, "node_modules"), join(dir, "node_modules"));
}

/** The first fenced block after a README heading. */
export function blockUnder(readme: string, heading: string): string {
  const section = readme.split(`\n## ${heading}\n`)[1]?.split("\n## ")[0] ?? "";
  const block = /```\w*\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error(`the README has no code block under "## ${heading}"`);
  return block;
}
