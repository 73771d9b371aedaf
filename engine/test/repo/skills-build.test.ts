/**
 * The skills build (src/skills/build.mjs, the package's `mcp-build-skills`, part of every build of an app's assets):
 * what it writes for the repository's skills/ (copies and a manifest whose sizes and digests are those of the
 * files, as node:crypto computes them here), that the engine reads exactly that, and every skill it refuses to build.
 */
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildAppSkills, buildSkills } from "../../src/skills/build.mjs";

const temporary: string[] = [];
afterEach(() => {
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "skills-build-"));
  temporary.push(dir);
  return dir;
}

/** Writes `files` (paths relative to `root`) and returns `root`. */
function writeTree(root: string, files: Record<string, string | Buffer>): string {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

function filesUnder(dir: string, prefix = ""): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = prefix ? `${prefix}/${name}` : name;
    return statSync(join(dir, name)).isDirectory() ? filesUnder(join(dir, name), path) : [path];
  });
}

const sha256 = (bytes: Buffer) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
const skillMd = (name: string, extra = "") => `---\nname: ${name}\ndescription: A skill named ${name}.\n${extra}---\n\n# ${name}\n`;

/** Builds `files` as a skills/ folder; the error message when the build refuses it. */
async function refusal(files: Record<string, string | Buffer>): Promise<string> {
  const source = writeTree(tempDir(), files);
  return buildSkills(source, join(tempDir(), "out")).then(
    () => "built",
    (error: Error) => error.message,
  );
}

/** A folder of real skills: the conformance fixture's (conformance/skills/). */
const SKILLS_SOURCE = resolve(import.meta.dirname, "../../conformance/skills");

describe("the skills build", () => {
  it("copies every file of a folder of skills (the conformance fixture's) and describes each with the size and SHA-256 of its bytes", async () => {
    const out = join(tempDir(), "skills");
    const manifest = (await buildSkills(SKILLS_SOURCE, out))!;
    expect(manifest.skills.map((skill) => skill.name)).toEqual(
      readdirSync(SKILLS_SOURCE).filter((name) => statSync(join(SKILLS_SOURCE, name)).isDirectory()),
    );
    for (const skill of manifest.skills) {
      expect(skill.files.map((file) => file.path).sort()).toEqual(filesUnder(join(SKILLS_SOURCE, skill.name)).sort());
      for (const file of skill.files) {
        const source = readFileSync(join(SKILLS_SOURCE, skill.name, file.path));
        expect(readFileSync(join(out, skill.name, file.path)).equals(source), file.path).toBe(true);
        expect(file).toMatchObject({ size: source.byteLength, digest: sha256(source) });
      }
    }
    expect(JSON.parse(readFileSync(join(out, "manifest.json"), "utf8"))).toEqual(manifest);
  });

  it("describes each file's media type and whether it is served as text, and the frontmatter as JSON", async () => {
    const source = writeTree(tempDir(), {
      "one/SKILL.md": skillMd("one", "license: MIT\nmetadata:\n  owner: tests\n"),
      "one/docs/a.md": "\uFEFFa\r\n",
      "one/docs/deep/b.bin": Buffer.from([0xff, 0x00, 0xfe]),
    });
    const manifest = (await buildSkills(source, join(tempDir(), "out")))!;
    expect(manifest.version).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(manifest.skills[0]!.frontmatter).toEqual({
      name: "one",
      description: "A skill named one.",
      license: "MIT",
      metadata: { owner: "tests" },
    });
    expect(manifest.skills[0]!.files.map(({ path, mimeType, text }) => [path, mimeType, text])).toEqual([
      ["SKILL.md", "text/markdown", true],
      ["docs/a.md", "text/markdown", true],
      ["docs/deep/b.bin", "application/octet-stream", false],
    ]);
  });

  it("gives the same files the same version, and any changed byte a new one", async () => {
    const files = { "one/SKILL.md": skillMd("one"), "one/notes.txt": "first\n" };
    const first = (await buildSkills(writeTree(tempDir(), files), join(tempDir(), "out")))!;
    const again = (await buildSkills(writeTree(tempDir(), files), join(tempDir(), "out")))!;
    const changed = (await buildSkills(writeTree(tempDir(), { ...files, "one/notes.txt": "First\n" }), join(tempDir(), "out")))!;
    expect(again.version).toBe(first.version);
    expect(changed.version).not.toBe(first.version);
    expect(changed.skills[0]!.files[0]).toEqual(first.skills[0]!.files[0]);
  });

  it("leaves out names starting with a dot, and files beside the skills' folders", async () => {
    const manifest = (await buildSkills(
      writeTree(tempDir(), {
        "README.md": "about these skills\n",
        "one/SKILL.md": skillMd("one"),
        "one/.DS_Store": "x",
        ".hidden/SKILL.md": skillMd("hidden"),
      }),
      join(tempDir(), "out"),
    ))!;
    expect(manifest.skills.map((skill) => [skill.name, skill.files.map((file) => file.path)])).toEqual([["one", ["SKILL.md"]]]);
  });

  it("removes what an earlier build wrote when there is no skills/ folder, leaving the empty folder the assets need", async () => {
    const out = join(tempDir(), "out");
    await buildSkills(writeTree(tempDir(), { "one/SKILL.md": skillMd("one") }), out);
    expect(await buildSkills(join(tempDir(), "missing"), out)).toBeUndefined();
    expect(readdirSync(out)).toEqual([]);
  });

  it("refuses, naming the file and the rule, every skill a conforming host could not load or that would need escaping", async () => {
    const cases: [Record<string, string | Buffer>, RegExp][] = [
      [{ "one/notes.md": "no SKILL.md\n" }, /one: has no SKILL\.md/],
      [{ "one/SKILL.md": skillMd("two") }, /frontmatter name must be "one", the folder's name/],
      [{ "One/SKILL.md": skillMd("One") }, /skills\/One: a skill's name is 1 to 64 lowercase letters/],
      [{ "a--b/SKILL.md": skillMd("a--b") }, /skills\/a--b: a skill's name/],
      [{ "one/SKILL.md": "# no frontmatter\n" }, /must be UTF-8 text that begins with a "---" line/],
      [{ "one/SKILL.md": "---\nname: one\ndescription: [unclosed\n---\n" }, /frontmatter is not valid YAML/],
      [{ "one/SKILL.md": "---\nname: one\nname: one\ndescription: twice\n---\n" }, /frontmatter is not valid YAML/],
      [{ "one/SKILL.md": "---\n- a list\n---\n" }, /frontmatter must be a mapping/],
      [{ "one/SKILL.md": "---\nname: one\ndescription: x\nweight: .inf\n---\n" }, /not a finite number/],
      [
        { "one/SKILL.md": `---\nname: one\ndescription: ${"d".repeat(1025)}\n---\n` },
        /description must be a string of 1 to 1024 characters/,
      ],
      [{ "one/SKILL.md": "---\nname: one\ndescription: ''\n---\n" }, /description must be a string of 1 to 1024 characters/],
      [{ "one/SKILL.md": skillMd("one", `compatibility: ${"c".repeat(501)}\n`) }, /compatibility must be a string of 1 to 500/],
      [{ "one/SKILL.md": skillMd("one", "metadata:\n  version: 2\n") }, /metadata must map strings to strings/],
      [{ "one/SKILL.md": skillMd("one"), "one/my notes.md": "x" }, /"my notes\.md" is not a usable file name/],
      [{ "one/SKILL.md": skillMd("one"), "one/q%41.md": "x" }, /"q%41\.md" is not a usable file name/],
      [{ "one/SKILL.md": skillMd("one"), "one/é.md": "x" }, /"é\.md" is not a usable file name/],
    ];
    for (const [files, message] of cases) expect(await refusal(files), JSON.stringify(Object.keys(files))).toMatch(message);
  });

  // Why a longer timeout: it writes and digests two 16 MiB skills and two of 512 files; on a busy machine that took 5 s.
  it("refuses a skill over the extension's limits: 512 files, 16 MiB (16,777,216 bytes) in all", { timeout: 30_000 }, async () => {
    const many = Object.fromEntries(Array.from({ length: 512 }, (_, index) => [`one/f${index}.txt`, "x"]));
    expect(await refusal({ "one/SKILL.md": skillMd("one"), ...many })).toMatch(
      /one: 513 files, \d+ bytes; a skill may have at most 512 files and 16777216 bytes/,
    );
    expect(await refusal({ "one/SKILL.md": skillMd("one"), ...Object.fromEntries(Object.entries(many).slice(1)) })).toBe("built");
    const skill = skillMd("one");
    const filler = Buffer.alloc(16_777_216 - Buffer.byteLength(skill), 0x61);
    expect(await refusal({ "one/SKILL.md": skill, "one/big.txt": filler })).toBe("built");
    expect(await refusal({ "one/SKILL.md": skill, "one/big.txt": Buffer.concat([filler, Buffer.from("a")]) })).toMatch(/16777217 bytes/);
  });

  it("refuses a symbolic link, which could point outside the skill", async () => {
    const source = writeTree(tempDir(), { "one/SKILL.md": skillMd("one") });
    symlinkSync("/etc/hostname", join(source, "one/link.txt"));
    await expect(buildSkills(source, join(tempDir(), "out"))).rejects.toThrow("link.txt is a symbolic link");
  });

  it("builds an app's skills once, then does nothing while they are unchanged, and again when a byte changes", async () => {
    const app = tempDir();
    writeTree(join(app, "skills"), { "one/SKILL.md": skillMd("one") });
    expect(await buildAppSkills(app)).toBe(true);
    expect(await buildAppSkills(app)).toBe(false);
    writeFileSync(join(app, "skills/one/SKILL.md"), skillMd("one", "license: MIT\n"));
    expect(await buildAppSkills(app)).toBe(true);
    expect(JSON.parse(readFileSync(join(app, "build/assets/skills/manifest.json"), "utf8")).skills[0].frontmatter.license).toBe("MIT");
    // A build that stopped before its manifest is built again, whatever the stamp says.
    rmSync(join(app, "build/assets/skills/manifest.json"));
    expect(await buildAppSkills(app)).toBe(true);
  });

  it("builds again over a stamp that records the skills alone, as a build by other code would: the build's code is part of what it records", async () => {
    const app = tempDir();
    writeTree(join(app, "skills"), { "one/SKILL.md": skillMd("one") });
    expect(await buildAppSkills(app)).toBe(true);
    const bytes = readFileSync(join(app, "skills/one/SKILL.md"));
    const skillsAlone = createHash("sha256").update(`one/SKILL.md\0${bytes.length}\0`).update(bytes).digest("hex");
    writeFileSync(join(app, "build/.stamps/skills.sha256"), skillsAlone);
    expect(await buildAppSkills(app)).toBe(true);
    expect(await buildAppSkills(app)).toBe(false);
  });

  it("builds an app without skills/ once: an empty assets folder, then nothing to do", async () => {
    const app = tempDir();
    expect(await buildAppSkills(app)).toBe(true);
    expect(readdirSync(join(app, "build/assets/skills"))).toEqual([]);
    expect(await buildAppSkills(app)).toBe(false);
  });
});
