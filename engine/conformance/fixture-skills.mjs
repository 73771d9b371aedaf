/**
 * Builds the fixture's skill (./skills/) with its digests into ./build/assets/skills, as an app's build does, before
 * the fixture Worker starts (run.mjs, inspector.mjs): the Skills extension's scenarios read it.
 */
import { join } from "node:path";
import { buildSkills } from "../src/skills/build.mjs";

const here = import.meta.dirname;

export function buildFixtureSkills() {
  return buildSkills(join(here, "skills"), join(here, "build/assets/skills"));
}
