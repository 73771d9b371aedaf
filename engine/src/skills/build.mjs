#!/usr/bin/env node
/**
 * @module skills/build
 * Builds the skills (skills/<name>/: SKILL.md and its other files) into build/assets/skills/: a copy of every file
 * and manifest.json, their sizes, digests and frontmatter (manifest.mjs). The Worker serves both through the ASSETS
 * binding (wrangler.toml [assets]); nothing is hashed per request.
 *
 * Why copies, not the sources: the files served and the digests published come from the same bytes read once by the
 * same run, so editing a skill without rebuilding never makes the Worker serve a file that its manifest does not
 * describe (until the next build, it serves the previous files with their own digests). The manifest is written
 * last: a build that stops half way leaves no manifest, and the Worker then refuses to serve skills, loudly.
 *
 * The package's command `mcp-build-skills [source out]`, run from the app's root by wrangler's [build] (npm run dev,
 * npm run build, deploy; dev runs it again when a watched file changes) and by the app's tests before the runtime
 * starts. Without arguments it builds the app's skills/ into build/assets/skills/, and does nothing when they are
 * unchanged since its last build (a digest of every path and byte, kept in build/.stamps/, outside the assets).
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { lstat, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { argv } from "node:process";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { skillManifest } from "./manifest.mjs";

/** The app's skills and where they are built: relative to the directory the build runs in, the app's root. */
export const SKILLS_SOURCE = "skills";
export const SKILLS_OUT = "build/assets/skills";
/** The digest of the skills last built into SKILLS_OUT. */
const STAMP = "build/.stamps/skills.sha256";

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

/**
 * The build's own code. Why it is part of the digest: an engine update that changes what a build writes (the
 * manifest's shape, say) must rebuild skills that did not change.
 */
const BUILD_CODE = ["./build.mjs", "./manifest.mjs"].map((file) => readFileSync(new URL(file, import.meta.url)));

/** A digest of the build's code and every skill's paths and bytes: what decides whether a build would change anything. */
function digestOf(skills) {
  const hash = createHash("sha256");
  for (const code of BUILD_CODE) hash.update(`${code.length}\0`).update(code);
  for (const { name, files } of skills) {
    for (const { path, bytes } of files) hash.update(`${name}/${path}\0${bytes.length}\0`).update(bytes);
  }
  return hash.digest("hex");
}

/**
 * Builds the skills of the app at `root` (its skills/ into build/assets/skills/) unless they are what its last build
 * built and that build is complete. Returns whether it built.
 */
export async function buildAppSkills(root = process.cwd()) {
  const [source, out, stamp] = [SKILLS_SOURCE, SKILLS_OUT, STAMP].map((path) => join(root, path));
  const skills = existsSync(source) ? await readSkills(source) : [];
  const digest = digestOf(skills);
  // A build that stopped half way has no manifest (it is written last); an app without skills/ has an empty folder.
  const complete = existsSync(existsSync(source) ? `${out}/manifest.json` : out);
  if (complete && existsSync(stamp) && (await readFile(stamp, "utf8")) === digest) return false;
  await buildSkills(source, out);
  await mkdir(dirname(stamp), { recursive: true });
  await writeFile(stamp, digest);
  return true;
}

// `mcp-build-skills [source out]`: the app's skills by default; another Worker's (the conformance fixture's).
// realpath: npm links the command into node_modules/.bin, and Node names the module by its real path.
if (argv[1] && realpathSync(argv[1]) === fileURLToPath(import.meta.url)) {
  if (argv.length > 2) await buildSkills(resolve(argv[2]), resolve(argv[3] ?? SKILLS_OUT));
  else if (await buildAppSkills()) console.log(`skills: built ${SKILLS_SOURCE}/ into ${SKILLS_OUT}/`);
  else console.log(`skills: ${SKILLS_OUT}/ is up to date`);
}
