/**
 * The README stays true: its scripts exist, its file map names real files, its JSON snippets parse, and the
 * commands that can run here (the quick-start curl, the key generator) work as written.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, inject, it } from "vitest";

const readme = readFileSync("README.md", "utf8");
const scripts = Object.keys(JSON.parse(readFileSync("package.json", "utf8")).scripts as Record<string, string>);
const blocks = [...readme.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map(([, lang, body]) => ({ lang: lang!, body: body! }));

describe("README", () => {
  it("names only npm scripts that exist", () => {
    const named = [...readme.matchAll(/npm run ([\w:-]+)/g)].map(([, name]) => name!);
    expect(named.length).toBeGreaterThan(5);
    for (const name of named) expect(scripts, `npm run ${name}`).toContain(name);
    expect(readme).toContain("npm install && npm run dev");
    expect(readme).toContain("npm test");
  });

  it("maps only files and folders that exist", () => {
    const rows = readme.split("## File map")[1]!.split("\n## ")[0]!;
    const paths = [...rows.matchAll(/^\| `([^`]+)` \|/gm)].map(([, path]) => path!);
    expect(paths.length).toBeGreaterThan(8);
    for (const path of paths) expect(existsSync(path), path).toBe(true);
  });

  it("has JSON snippets that parse", () => {
    const json = blocks.filter((block) => block.lang === "json");
    expect(json.length).toBeGreaterThan(0);
    for (const block of json) expect(() => JSON.parse(block.body)).not.toThrow();
    for (const [, snippet] of readme.matchAll(/\*\*(?:Cursor|VS Code)\*\* \([^)]*\): `(\{.*\})`/g))
      expect(() => JSON.parse(snippet!)).not.toThrow();
  });

  it("has a quick-start curl command that gets a server/discover answer", () => {
    const curl = blocks.find((block) => block.body.startsWith("curl"))!.body.replaceAll("http://127.0.0.1:8787/mcp", inject("mcpUrl"));
    const answer = JSON.parse(execFileSync("sh", ["-c", curl], { encoding: "utf8" }));
    expect(answer.result).toMatchObject({
      resultType: "complete",
      supportedVersions: ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"],
    });
  });

  it("has a key generator whose output is a valid STATE_KEYS value", () => {
    const command = /echo "k1:\$\(openssl rand -base64 32\)"/.exec(readme)![0];
    const value = execFileSync("sh", ["-c", command], { encoding: "utf8" }).trim();
    expect(value).toMatch(/^k1:[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(value.slice(3), "base64").length).toBe(32);
  });

  it("documents every setting the server reads", () => {
    const settings = [...readFileSync("src/mcp/config.ts", "utf8").matchAll(/read\.(?:string|integer|oneOf|list)\("([A-Z_]+)"/g)].map(
      ([, name]) => name!,
    );
    expect(settings.length).toBeGreaterThan(20);
    for (const name of new Set(settings)) expect(readme, name).toContain(`| \`${name}\``);
  });

  it("has no unfinished placeholders", () => {
    expect(readme).not.toMatch(/PLACEHOLDER|TODO|TBD/);
  });
});
