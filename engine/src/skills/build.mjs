/**
 * Builds the skills (skills/<name>/: SKILL.md and its other files) into build/assets/skills/: a copy of every file
 * and manifest.json, their sizes, digests and frontmatter (manifest.mjs). The Worker serves both through the ASSETS
 * binding (wrangler.toml [assets]); nothing is hashed per request.
 *
 * Why copies, not the sources: the files served and the digests published come from the same bytes read once by the
 * same run, so editing a skill without rebuilding never makes the Worker serve a file that its manifest does not
 * describe (until the next build, it serves the previous files with their own digests). The manifest is written
 * last: a build that stops half way leaves no manifest, and the Worker then refuses to serve skills, loudly.
 *
 * Run by `npm run build:assets` (wrangler's [build]: npm run dev, npm run build, deploy; dev rebuilds when a file
 * under skills/ changes) and by the tests as a vitest global setup, like views/build.mjs.
 */
import { existsSync } from "node:fs";
import { lstat, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { argv } from "node:process";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { skillManifest } from "./manifest.mjs";

const root = fileURLToPath(new URL("../../..", import.meta.url));
export const SKILLS_SOURCE = `${root}skills`;
export const SKILLS_OUT = `${root}build/assets/skills`;

/** YAML 1.2 with the core schema (as the official SDK's client reads frontmatter); a repeated key is an error. */
export const parseFrontmatter = (yaml) => parse(yaml, { schema: "core", uniqueKeys: true });

/**
 * Every file under `dir`, as paths relative to it. Names starting with "." (.DS_Store, editor files) are not part of
 * a skill. A symbolic link is refused: it could point outside the skill, and hosts have no way to represent one.
 */
async function filesOf(dir, prefix = "") {
  const files = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue;
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    const full = `${dir}/${entry.name}`;
    if ((await lstat(full)).isSymbolicLink()) throw new Error(`Skills cannot be built: ${path} is a symbolic link; copy the file instead`);
    if (entry.isDirectory()) files.push(...(await filesOf(full, path)));
    else if (entry.isFile()) files.push({ path, bytes: new Uint8Array(await readFile(full)) });
  }
  return files;
}

/** Each folder of `source` is a skill (files beside them, such as a README, are not). */
export async function readSkills(source) {
  const skills = [];
  for (const entry of await readdir(source, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    skills.push({ name: entry.name, files: await filesOf(`${source}/${entry.name}`, "") });
  }
  return skills;
}

/**
 * Builds `source` into `out` (replacing what was there) and returns the manifest. Without `source`, `out` is left
 * empty: an app without skills still has the assets directory wrangler and the test pool need.
 */
export async function buildSkills(source = SKILLS_SOURCE, out = SKILLS_OUT) {
  await rm(out, { recursive: true, force: true });
  if (!existsSync(source)) {
    await mkdir(out, { recursive: true });
    return undefined;
  }
  const skills = await readSkills(source);
  const manifest = await skillManifest(skills, parseFrontmatter);
  for (const { name, files } of skills) {
    for (const { path, bytes } of files) {
      const target = `${out}/${name}/${path}`;
      await mkdir(target.slice(0, target.lastIndexOf("/")), { recursive: true });
      await writeFile(target, bytes);
    }
  }
  await mkdir(out, { recursive: true });
  await writeFile(`${out}/manifest.json`, JSON.stringify(manifest));
  return manifest;
}

/** The default export, so vitest can run it as a global setup. */
export default async function build() {
  await buildSkills();
}

// `node build.mjs [source out]`: the template's skills by default; another Worker's (the conformance fixture's).
if (argv[1] === fileURLToPath(import.meta.url)) {
  if (argv.length > 2) await buildSkills(resolve(argv[2]), resolve(argv[3] ?? "build/assets/skills"));
  else await build();
}
