/**
 * The README's quick start works as written: its curl command gets a server/discover answer from the running server.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, inject, it } from "vitest";

const readme = readFileSync("README.md", "utf8");
const blocks = [...readme.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map(([, lang, body]) => ({ lang: lang!, body: body! }));

describe("README quick start", () => {
  it("has a quick-start curl command that gets a server/discover answer", () => {
    const curl = blocks.find((block) => block.body.startsWith("curl"))!.body.replaceAll("http://127.0.0.1:8787/mcp", inject("mcpUrl"));
    const answer = JSON.parse(execFileSync("sh", ["-c", curl], { encoding: "utf8" }));
    expect(answer.result).toMatchObject({
      resultType: "complete",
      supportedVersions: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"],
    });
  });
});
