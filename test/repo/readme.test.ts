/**
 * The README stays true: its scripts exist, its file map names real files and every engine folder, its JSON
 * snippets parse, every setting is documented, and the key generator works as written. (The quick-start curl runs
 * against the real server in test/e2e/quick-start.test.ts.)
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { describe, expect, it } from "vitest";

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
    const paths = [...rows.matchAll(/^\| `([^`]+)` +\|/gm)].map(([, path]) => path!);
    expect(paths.length).toBeGreaterThan(8);
    for (const path of paths) expect(existsSync(path), path).toBe(true);
    // Every engine folder and every test folder has its row, so a newcomer can find each concern from the map.
    const folders = (dir: string) =>
      readdirSync(dir)
        .filter((name) => statSync(`${dir}/${name}`).isDirectory() && name !== "node_modules")
        .map((name) => `${dir}/${name}/`);
    for (const folder of [...folders("src/mcp"), ...folders("test").filter((path) => path !== "test/helpers/")])
      expect(paths, folder).toContain(folder);
  });

  it("has JSON snippets that parse", () => {
    const json = blocks.filter((block) => block.lang === "json");
    expect(json.length).toBeGreaterThan(0);
    for (const block of json) expect(() => JSON.parse(block.body)).not.toThrow();
    for (const [, snippet] of readme.matchAll(/\*\*(?:Cursor|VS Code)\*\* \([^)]*\): `(\{.*\})`/g))
      expect(() => JSON.parse(snippet!)).not.toThrow();
  });

  it("has a key generator whose output is a valid STATE_KEYS value", () => {
    const command = /echo "k1:\$\(openssl rand -base64 32\)"/.exec(readme)![0];
    const value = execFileSync("sh", ["-c", command], { encoding: "utf8" }).trim();
    expect(value).toMatch(/^k1:[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(value.slice(3), "base64").length).toBe(32);
  });

  it("documents every setting the server reads", () => {
    const settings = [
      ...readFileSync("src/mcp/config/settings.ts", "utf8").matchAll(/read\.(?:string|integer|oneOf|list)\("([A-Z_]+)"/g),
    ].map(([, name]) => name!);
    expect(settings.length).toBeGreaterThan(12);
    for (const name of new Set(settings)) expect(readme, name).toContain(`| \`${name}\``);
  });

  it("documents every limit of createMcpWorker with its default", async () => {
    const { limitTable } = await import("../../src/mcp/config/options");
    const limits = limitTable();
    expect(limits.length).toBeGreaterThan(25);
    for (const { name, fallback } of limits)
      expect(readme, name).toMatch(new RegExp(`\\| \`${name.replace(".", "\\.")}\` +\\| \`${fallback}\``));
  });

  it("has no unfinished placeholders", () => {
    expect(readme).not.toMatch(/PLACEHOLDER|TODO|TBD/);
  });
});
