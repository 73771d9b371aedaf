/**
 * @module skills/manifest
 * The skills manifest, computed at build time from each skill's files (never per request): every file's size,
 * SHA-256 digest, media type and whether it is UTF-8 text, each skill's SKILL.md frontmatter as JSON, and a version
 * that changes whenever any of it does. `build.mjs` writes it beside the files it describes; the Worker reads it
 * once per isolate (catalog.ts).
 *
 * Pure JavaScript over WebCrypto, so the build (Node) and the engine's tests (workerd) compute it the same way. The
 * YAML parser is passed in: the build uses the `yaml` package (YAML 1.2, core schema).
 *
 * Why every rule here fails the build instead of warning: a skill that breaks one is either unloadable by a
 * conforming host (the Agent Skills naming rules, the extension's per-skill limits) or would need escaping in its
 * URIs, and a deploy is a bad place to find out.
 */

/** The extension's per-skill limits (SEP-2640): files per skill, and their total size in bytes as stored. */
export const SKILL_LIMITS = { files: 512, bytes: 16_777_216 };

/** Agent Skills names: 1 to 64 lowercase letters and digits, in words joined by single hyphens. */
const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/**
 * A file or folder name in a skill: unreserved URI characters only, not starting with a dot. Why so strict: such a
 * name is its own URI segment (nothing to percent-encode, so one URI per file), and no name is "." or "..".
 */
export const FILE_SEGMENT = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*$/;

const MEDIA_TYPES = {
  md: "text/markdown",
  txt: "text/plain",
  json: "application/json",
  yaml: "application/yaml",
  yml: "application/yaml",
  csv: "text/csv",
  html: "text/html",
  css: "text/css",
  js: "text/javascript",
  ts: "text/typescript",
  py: "text/x-python",
  sh: "application/x-sh",
  xml: "application/xml",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
};

/** The media type a file is served with, from its extension; `application/octet-stream` when unknown. */
export function mediaTypeOf(path) {
  const extension = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  return (extension && MEDIA_TYPES[extension]) ?? "application/octet-stream";
}

/** `sha256:` and the lowercase hex SHA-256 of the bytes, as the extension writes a digest. */
export async function sha256(bytes) {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return `sha256:${Array.from(hash, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}

/** Whether the bytes are UTF-8 that decodes without loss (a BOM kept): such a file is served as `text`, else as a blob. */
function isText(bytes) {
  try {
    new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

const characters = (text) => [...text].length;

/** The YAML between SKILL.md's opening `---` line and the next `---` line (a BOM and CRLF line ends allowed). */
function frontmatterYaml(markdown) {
  const text = markdown.replace(/^\uFEFF/, "").replaceAll("\r\n", "\n");
  if (!text.startsWith("---\n")) return undefined;
  const end = /^---[ \t]*$/m.exec(text.slice(4));
  return end ? text.slice(4, 4 + end.index) : undefined;
}

/** Why JSON only: the frontmatter travels as JSON in every skill entry, and a host compares it with what it parses. */
function jsonProblem(value, at) {
  if (value === null || typeof value === "string" || typeof value === "boolean") return undefined;
  if (typeof value === "number") return Number.isFinite(value) ? undefined : `${at} is not a finite number`;
  if (Array.isArray(value)) return value.map((item, index) => jsonProblem(item, `${at}[${index}]`)).find(Boolean);
  if (typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return `${at} is not a JSON value`;
  for (const [key, item] of Object.entries(value)) {
    if (key === "__proto__") return `${at} has a "__proto__" key`;
    const problem = jsonProblem(item, `${at}.${key}`);
    if (problem) return problem;
  }
  return undefined;
}

/** The frontmatter of one skill's SKILL.md as JSON, or the problems that keep it from being served. */
function readFrontmatter(name, bytes, parseYaml, problems) {
  const yaml = isText(bytes) ? frontmatterYaml(new TextDecoder().decode(bytes)) : undefined;
  if (yaml === undefined) {
    problems.push(`${name}/SKILL.md must be UTF-8 text that begins with a "---" line of YAML frontmatter`);
    return undefined;
  }
  let frontmatter;
  try {
    frontmatter = parseYaml(yaml);
  } catch (error) {
    problems.push(`${name}/SKILL.md frontmatter is not valid YAML: ${error instanceof Error ? error.message : error}`);
    return undefined;
  }
  const problem = jsonProblem(frontmatter, "frontmatter");
  if (problem || typeof frontmatter !== "object" || frontmatter === null || Array.isArray(frontmatter)) {
    problems.push(`${name}/SKILL.md frontmatter must be a mapping of JSON values${problem ? ` (${problem})` : ""}`);
    return undefined;
  }
  const { name: declared, description, compatibility, metadata } = frontmatter;
  if (declared !== name)
    problems.push(`${name}/SKILL.md frontmatter name must be "${name}", the folder's name (it is ${JSON.stringify(declared)})`);
  if (typeof description !== "string" || description.trim() === "" || characters(description) > 1024)
    problems.push(`${name}/SKILL.md frontmatter description must be a string of 1 to 1024 characters`);
  if (compatibility !== undefined && (typeof compatibility !== "string" || compatibility === "" || characters(compatibility) > 500))
    problems.push(`${name}/SKILL.md frontmatter compatibility must be a string of 1 to 500 characters`);
  const stringMap = (value) =>
    typeof value === "object" && value !== null && !Array.isArray(value) && Object.values(value).every((item) => typeof item === "string");
  if (metadata !== undefined && !stringMap(metadata)) problems.push(`${name}/SKILL.md frontmatter metadata must map strings to strings`);
  return frontmatter;
}

/**
 * The manifest of these skills (each `{ name, files: [{ path, bytes }] }`, paths relative to the skill's folder with
 * `/` between names). Skills come out sorted by name and files by path, so the same files give the same manifest
 * and version. Throws one Error listing every problem found.
 */
export async function skillManifest(skills, parseYaml) {
  const problems = [];
  const built = [];
  for (const { name, files } of [...skills].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (name.length > 64 || !SKILL_NAME.test(name))
      problems.push(`skills/${name}: a skill's name is 1 to 64 lowercase letters and digits, in words joined by single hyphens`);
    for (const { path } of files) {
      const bad = path.split("/").find((segment) => !FILE_SEGMENT.test(segment));
      if (bad !== undefined)
        problems.push(
          `${name}/${path}: "${bad}" is not a usable file name: use letters, digits, ".", "_", "~", "-", not starting with "."`,
        );
    }
    const total = files.reduce((sum, file) => sum + file.bytes.byteLength, 0);
    if (files.length > SKILL_LIMITS.files || total > SKILL_LIMITS.bytes)
      problems.push(
        `${name}: ${files.length} files, ${total} bytes; a skill may have at most ${SKILL_LIMITS.files} files and ${SKILL_LIMITS.bytes} bytes (SEP-2640)`,
      );
    const manifest = files.find((file) => file.path === "SKILL.md");
    if (!manifest) {
      problems.push(`${name}: has no SKILL.md`);
      continue;
    }
    const frontmatter = readFrontmatter(name, manifest.bytes, parseYaml, problems);
    const described = await Promise.all(
      [...files]
        .sort((a, b) => (a.path < b.path ? -1 : 1))
        .map(async ({ path, bytes }) => ({
          path,
          size: bytes.byteLength,
          digest: await sha256(bytes),
          mimeType: mediaTypeOf(path),
          text: isText(bytes),
        })),
    );
    built.push({ name, frontmatter, files: described });
  }
  if (problems.length > 0) throw new Error(`Skills cannot be built:\n- ${problems.join("\n- ")}`);
  const version = await sha256(new TextEncoder().encode(JSON.stringify(built)));
  return { version, skills: built };
}
