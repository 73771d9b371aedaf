/**
 * A copy of this repository to run a fork's step on (npm run blank, the README's first edit): its files as git sees
 * them in the working tree, in a temporary directory, committed there, with the repository's node_modules linked in
 * (not installed). And the README's code blocks, which those steps apply.
 */

import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

export const root = resolve(import.meta.dirname, "../..");

export const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=copy-test", "-c", "user.email=copy-test@example.com", ...args], { cwd, encoding: "utf8" });

/** A committed copy of the repository's files (tracked, or new and not ignored), with its node_modules linked in. */
export function copyOfRepository(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const files = git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0").filter(Boolean);
  for (const file of files) {
    if (!existsSync(join(root, file))) continue; // deleted in the working tree, not yet in the index
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(root, file), join(dir, file));
  }
  git(dir, "init", "-q");
  // Why: .gitignore's `node_modules/` matches a folder, not the link; the link must stay out of the copy's commits.
  writeFileSync(join(dir, ".git/info/exclude"), "node_modules\n");
  git(dir, "add", "-A");
  git(dir, "commit", "-qm", "the template");
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
  return dir;
}

/** The first fenced block after a README heading. */
export function blockUnder(readme: string, heading: string): string {
  const section = readme.split(`\n## ${heading}\n`)[1]?.split("\n## ")[0] ?? "";
  const block = /```\w*\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error(`the README has no code block under "## ${heading}"`);
  return block;
}
