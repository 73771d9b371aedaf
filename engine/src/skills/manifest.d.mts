/** The types of manifest.mjs: the manifest the build writes and the Worker reads (catalog.ts). */

/** One file as the build described it: its path in the skill, size in bytes as stored, digest, media type. */
export interface ManifestFile {
  path: string;
  size: number;
  /** `sha256:` and 64 lowercase hex digits: the SHA-256 of the file's bytes. */
  digest: string;
  mimeType: string;
  /** UTF-8 that decodes without loss: served as `text`, else as a base64 `blob`. */
  text: boolean;
}

/** What the build writes to the app's `build/assets/skills/manifest.json` (the asset `/skills/manifest.json`). */
export interface Manifest {
  /** A digest of everything below: a new one means the skills changed. */
  version: string;
  skills: { name: string; frontmatter: Record<string, unknown>; files: ManifestFile[] }[];
}

export declare const SKILL_LIMITS: { files: number; bytes: number };
export declare const FILE_SEGMENT: RegExp;
export declare function mediaTypeOf(path: string): string;
export declare function sha256(bytes: Uint8Array): Promise<string>;
export declare function skillManifest(
  skills: readonly { name: string; files: readonly { path: string; bytes: Uint8Array }[] }[],
  parseYaml: (yaml: string) => unknown,
): Promise<Manifest>;
