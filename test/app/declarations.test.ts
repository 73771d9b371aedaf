/**
 * The app's declarations pass every check the engine makes at startup, so a broken tool name, schema or header
 * binding fails `npm test` rather than the first request after deploying; and a tool's budget agrees with the
 * wrangler.toml binding that keeps it (the binding cannot tell the engine its limit or period).
 */

import { env } from "cloudflare:workers";
import { validateServer } from "mcp-workers-engine";
import { describe, expect, it } from "vitest";
import { prompts } from "../../src/prompts";
import { resources } from "../../src/resources";
import { skills } from "../../src/skills";
import { tools } from "../../src/tools";
import wranglerToml from "../../wrangler.toml?raw";

describe("the app's declarations", () => {
  it("accepts every declaration in src/: tool names, JSON Schemas, header bindings, prompts, skills", () => {
    expect(() => validateServer({ name: "template", version: "1", tools: tools(), resources, prompts: prompts(), skills })).not.toThrow();
  });

  it("gives each tool's budget a rate-limiting binding in wrangler.toml with the same limit and period", () => {
    for (const { name, budget } of tools()) {
      if (!budget) continue;
      expect((env as unknown as Record<string, unknown>)[budget.binding], `${name}: the Worker binds ${budget.binding}`).toBeDefined();
      const block = new RegExp(`\\[\\[ratelimits\\]\\]\\s*\\nname = "${budget.binding}"[\\s\\S]*?simple = \\{([^}]*)\\}`).exec(
        wranglerToml,
      )?.[1];
      expect(block, `${name}: wrangler.toml has a [[ratelimits]] block for ${budget.binding}`).toBeDefined();
      expect(/limit = (\d+)/.exec(block!)?.[1], `${name}: budget.calls is the binding's limit`).toBe(String(budget.calls));
      expect(/period = (\d+)/.exec(block!)?.[1], `${name}: budget.periodMs is the binding's period`).toBe(String(budget.periodMs / 1000));
    }
  });
});
