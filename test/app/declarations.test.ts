/**
 * The app's declarations pass every check the engine makes at startup, so a broken tool name, schema or header
 * binding fails `npm test` rather than the first request after deploying.
 */

import { validateServer } from "mcp-workers-engine";
import { describe, expect, it } from "vitest";
import { prompts } from "../../src/prompts";
import { resources } from "../../src/resources";
import { skills } from "../../src/skills";
import { tools } from "../../src/tools";

describe("the app's declarations", () => {
  it("accepts every declaration in src/: tool names, JSON Schemas, header bindings, prompts, skills", () => {
    expect(() => validateServer({ name: "template", version: "1", tools: tools(), resources, prompts: prompts(), skills })).not.toThrow();
  });
});
