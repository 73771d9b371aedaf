/**
 * Limits that live in two places must agree. The rate-limiting binding's limit and period are set in wrangler.toml
 * (the binding cannot tell them), and the engine names them in RateLimit-Limit and Retry-After from the
 * `limits.rateLimit` src/index.ts gives. (A tool's budget and its binding: test/app/declarations.test.ts.)
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const wranglerToml = readFileSync("wrangler.toml", "utf8");
const entry = readFileSync("src/index.ts", "utf8");

describe("the template's configuration", () => {
  it("tells the engine the period wrangler.toml gives the RATE_LIMITER binding", () => {
    const block = /\[\[ratelimits\]\]\s*\nname = "RATE_LIMITER"[\s\S]*?simple = \{[^}]*period = (\d+)/.exec(wranglerToml);
    expect(block, "wrangler.toml binds RATE_LIMITER with a simple period").not.toBeNull();
    const configured = /rateLimit:\s*\{[^}]*periodMs:\s*([\d_]+)/.exec(entry)?.[1]?.replaceAll("_", "");
    expect(configured, "src/index.ts sets limits.rateLimit.periodMs").toBeDefined();
    expect(Number(configured)).toBe(Number(block![1]) * 1000);
  });

  it("tells the engine the limit wrangler.toml gives the RATE_LIMITER binding, which it sends as RateLimit-Limit", () => {
    const block = /\[\[ratelimits\]\]\s*\nname = "RATE_LIMITER"[\s\S]*?simple = \{[^}]*limit = (\d+)/.exec(wranglerToml);
    expect(block, "wrangler.toml binds RATE_LIMITER with a simple limit").not.toBeNull();
    const configured = /rateLimit:\s*\{[^}]*requests:\s*([\d_]+)/.exec(entry)?.[1]?.replaceAll("_", "");
    expect(configured, "src/index.ts sets limits.rateLimit.requests").toBeDefined();
    expect(Number(configured)).toBe(Number(block![1]));
  });

  it("sets no limit in wrangler.toml that the engine reads as code", () => {
    const vars = wranglerToml.split("[vars]")[1]?.split(/\n\[/)[0] ?? "";
    for (const name of ["MAX_BODY_BYTES", "LISTEN_SHARD_CAPACITY", "STATE_TTL_SECONDS", "RATE_LIMIT_PERIOD_SECONDS", "LEGACY_CLIENTS"]) {
      expect(vars, name).not.toMatch(new RegExp(`^${name}\\s*=`, "m"));
    }
  });
});
