/**
 * @module skills/catalog
 * The skills as the Worker serves them: the build's manifest (build.mjs, manifest.mjs), read from the static assets
 * once per isolate, turned into what the methods answer with: each skill's entry (frontmatter and file manifest),
 * every file by URI, every directory's children, and SKILL.md as `resources/list` shows it.
 */

import { fetchAsset } from "../define/views";
import type { JsonObject } from "../wire/types";
import type { Skill } from "./define";
import type { Manifest, ManifestFile } from "./manifest.mjs";

export const MANIFEST_ASSET = "/skills/manifest.json";
export const DIRECTORY_MIME_TYPE = "inode/directory";

export interface SkillCatalog {
  version: string;
  /** `skills/list` entries, in declaration order. */
  entries: JsonObject[];
  /** Each entry by the URI of its SKILL.md. */
  bySkillUri: Map<string, JsonObject>;
  /** Every file by its URI, with the asset it is read from. */
  files: Map<string, { asset: string; file: ManifestFile }>;
  /** Every directory (each skill's root, each folder in it) by its URI: its direct children, as Resources. */
  directories: Map<string, JsonObject[]>;
  /** Each skill's SKILL.md as `resources/list` shows it. */
  listed: JsonObject[];
}

/**
 * Reads the manifest and builds the catalog of the declared skills. A declared skill missing from the manifest is a
 * deployment that was not built (or a typo in the app's src/skills.ts): reported loudly, never served as an empty skill.
 */
export async function loadCatalog(assets: Fetcher, declared: readonly Skill[]): Promise<SkillCatalog> {
  const manifest = (await (await fetchAsset(assets, MANIFEST_ASSET)).json()) as Manifest;
  const catalog: SkillCatalog = {
    version: manifest.version,
    entries: [],
    bySkillUri: new Map(),
    files: new Map(),
    directories: new Map(),
    listed: [],
  };
  for (const { name, uri } of declared) {
    const built = manifest.skills.find((skill) => skill.name === name);
    if (!built)
      throw new Error(
        `Skill "${name}" is declared but not built (not in ${MANIFEST_ASSET}): build the skills (mcp-build-skills, wrangler.toml's [build])`,
      );
    const root = `skill://${name}`;
    const entry = {
      uri,
      frontmatter: built.frontmatter,
      resources: built.files.map((file) => ({ uri: `${root}/${file.path}`, digest: file.digest, size: file.size })),
    };
    catalog.entries.push(entry);
    catalog.bySkillUri.set(uri, entry);
    const skillMd = built.files.find((file) => file.path === "SKILL.md");
    const { name: label, description } = built.frontmatter;
    catalog.listed.push({
      uri,
      name: label as string,
      description: description as string,
      mimeType: "text/markdown",
      size: skillMd?.size ?? 0,
    });
    catalog.directories.set(root, []);
    for (const file of built.files) {
      catalog.files.set(`${root}/${file.path}`, { asset: `/skills/${name}/${file.path}`, file });
      addToDirectories(catalog.directories, root, file);
    }
  }
  for (const children of catalog.directories.values()) children.sort((a, b) => ((a.uri as string) < (b.uri as string) ? -1 : 1));
  return catalog;
}

/** Adds a file, and each folder on its path, to the children of the directory that holds it. */
function addToDirectories(directories: Map<string, JsonObject[]>, root: string, file: ManifestFile): void {
  const segments = file.path.split("/");
  let parent = root;
  for (const [index, name] of segments.entries()) {
    const uri = `${parent}/${name}`;
    const isFile = index === segments.length - 1;
    if (isFile) directories.get(parent)!.push({ uri, name, mimeType: file.mimeType, size: file.size });
    else if (!directories.has(uri)) {
      directories.get(parent)!.push({ uri, name, mimeType: DIRECTORY_MIME_TYPE });
      directories.set(uri, []);
    }
    parent = uri;
  }
}
