/**
 * Every skill this server offers (the Skills extension): instructions and files a host loads for its model, to use
 * this server's tools well. Each one is a folder, skills/<name>/, with its SKILL.md (YAML frontmatter with `name`
 * and `description`, then the instructions) and the files it refers to; declare it here by that name. The build
 * (`npm run dev`, the tests, every deploy) copies the files into the static assets with their digests.
 */
import { defineSkill } from "mcp-workers-engine";

export const skills = [
  // How to keep a notebook organised with the notes tools: skills/notebook-keeping/.
  defineSkill({ name: "notebook-keeping" }),
];
