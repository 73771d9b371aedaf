/**
 * The app tests' global setup: builds the assets (the views' HTML, the skills) with wrangler.toml's `[build]` command,
 * as `wrangler dev` and `wrangler deploy` do, since the Workers test pool does not run it and does not start without
 * the assets directory. Each build does nothing when its inputs are unchanged since the last one, so a warm run costs
 * a few file reads.
 *
 * Why the command is read from the file's text and not with wrangler's config reader (as test/e2e/dev-server.ts
 * does): importing wrangler inside vitest takes about 8 s, more than the rest of `npm run test:app`'s start.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");

/** `[build]`'s `command` in wrangler.toml, or undefined when it has no build (an app without views or skills). */
export function buildCommand(toml: string): string | undefined {
  const table = /^\[build\]\s*$([\s\S]*?)(?=^\[|(?![\s\S]))/m.exec(toml)?.[1];
  if (table === undefined) return undefined;
  const command = /^command\s*=\s*"((?:[^"\\]|\\.)*)"\s*$/m.exec(table)?.[1];
  if (command === undefined) throw new Error('wrangler.toml has a [build] table without a command = "..." line');
  return JSON.parse(`"${command}"`);
}

export default function setup(): void {
  const command = buildCommand(readFileSync(resolve(root, "wrangler.toml"), "utf8"));
  if (!command) return;
  const built = spawnSync(command, { cwd: root, shell: true, encoding: "utf8" });
  if (built.status !== 0) throw new Error(`wrangler.toml's build (${command}) failed:\n${built.stdout}${built.stderr}`);
}
