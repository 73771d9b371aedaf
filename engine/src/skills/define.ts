/**
 * @module skills/define
 * Skills (the `io.modelcontextprotocol/skills` extension, SEP-2640): folders of instructions and supporting files a
 * host loads for its model. `defineSkill` names one; its files are `skills/<name>/` (SKILL.md first), built with
 * their digests into the Worker's static assets (build.mjs), and served as `skill://<name>/...` resources with
 * `skills/list`, `skills/get` and `resources/directory/read` (methods.ts).
 */

export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

/** Agent Skills names: 1 to 64 lowercase letters and digits, in words joined by single hyphens (as manifest.mjs checks). */
const SKILL_NAME = /^(?=.{1,64}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * Everything `defineSkill` takes: the skill's name, which is also its folder under `skills/` and the `name` of its
 * SKILL.md frontmatter (the build checks that they agree).
 *
 * @example
 * ```ts
 * export const reviewDefinition: SkillDefinition = { name: "code-review" };
 * ```
 */
export interface SkillDefinition {
  /** 1 to 64 lowercase letters and digits, in words joined by single hyphens: `notebook-keeping`. */
  name: string;
}

/**
 * A declared skill, as `defineSkill` returns it and `ServerDefinition.skills` takes it: its name and the URI of its
 * SKILL.md (`skill://<name>/SKILL.md`), the identity hosts know it by.
 *
 * @example
 * ```ts
 * export function skillUris(skills: readonly Skill[]): string[] {
 *   return skills.map((skill) => skill.uri);
 * }
 * ```
 */
export interface Skill {
  readonly name: string;
  readonly uri: string;
}

/**
 * Declares a skill: the folder `skills/<name>/`, with its SKILL.md (YAML frontmatter with at least `name` and
 * `description`, then the instructions) and any other files it refers to. `mcp-build-skills` (wrangler.toml's
 * `[build]`, run by `npm run dev`, the tests and every deploy) copies the files into the static assets with their
 * sizes and SHA-256 digests; the server then offers the extension (on a Worker with the ASSETS binding), lists the
 * skill, and serves each file as a `skill://<name>/<path>` resource.
 *
 * @param definition - The skill: `name`, its folder under `skills/`.
 * @returns The skill, for `ServerDefinition.skills`.
 * @throws When the name breaks the Agent Skills naming rules.
 *
 * @example
 * ```ts
 * export const skills: Skill[] = [defineSkill({ name: "code-review" })];
 * ```
 */
export function defineSkill(definition: SkillDefinition): Skill {
  const { name } = definition;
  if (!SKILL_NAME.test(name)) {
    throw new Error(`Skill "${name}": a name is 1 to 64 lowercase letters and digits, in words joined by single hyphens`);
  }
  return { name, uri: `skill://${name}/SKILL.md` };
}
