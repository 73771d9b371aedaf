/**
 * The example's skill (skills/notebook-keeping/, declared in src/skills.ts), as the test run built it (vitest's
 * global setup runs the same build as every deploy) and as a host sees it through the test client: listed with its
 * files, each file served with exactly the size and digest the build published, its frontmatter equal to what a
 * host parses from SKILL.md, and its instructions naming only files of the skill and tools the server has.
 */
import { env } from "cloudflare:workers";
import { connect } from "mcp-workers-engine/testing";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { skills } from "../../src/skills";
import { fetchApp } from "./app";

const EXTENSION = "io.modelcontextprotocol/skills";
const SKILL = "skill://notebook-keeping/SKILL.md";
const assets = (env as { ASSETS?: Fetcher }).ASSETS;

async function sha256(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return `sha256:${[...hash].map((byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}
const bytesOf = (content: any): Uint8Array =>
  content.text !== undefined ? new TextEncoder().encode(content.text) : Uint8Array.fromBase64(content.blob);

describe.runIf(assets !== undefined)("the notebook-keeping skill", () => {
  it("is offered: the extension with directoryRead in server/discover, and in a 2025 client's initialize result", async () => {
    const client = await connect(fetchApp);
    expect((await client.discover()).capabilities).toMatchObject({ resources: {}, extensions: { [EXTENSION]: { directoryRead: true } } });
    const legacy = await connect(fetchApp, { era: "2025" });
    expect(legacy.initializeResult?.capabilities).toMatchObject({ extensions: { [EXTENSION]: { directoryRead: true } } });
    expect(((await legacy.request("skills/get", { uri: SKILL })) as any).skill.uri).toBe(SKILL);
    await legacy.close();
  });

  it("is listed, and every one of its files is served with exactly the size and digest its entry publishes", async () => {
    const client = await connect(fetchApp);
    const { skills: listed } = (await client.request("skills/list")) as any;
    expect(listed.map((skill: any) => skill.uri)).toEqual([SKILL]);
    const [entry] = listed;
    expect(entry.resources.map((file: any) => file.uri)).toEqual([
      SKILL,
      "skill://notebook-keeping/references/tags.md",
      "skill://notebook-keeping/templates/weekly-review.md",
    ]);
    for (const { uri, size, digest } of entry.resources) {
      const [content] = (await client.readResource(uri)).contents;
      const bytes = bytesOf(content);
      expect(bytes.byteLength, uri).toBe(size);
      expect(await sha256(bytes), uri).toBe(digest);
    }
  });

  it("has frontmatter equal, field by field, to what a host parses from the SKILL.md it reads", async () => {
    const client = await connect(fetchApp);
    const { skill } = (await client.request("skills/get", { uri: SKILL })) as any;
    const [content] = (await client.readResource(SKILL)).contents;
    const yaml = /^---\n([\s\S]*?)\n---\n/.exec((content as any).text)![1]!;
    expect(parse(yaml, { schema: "core" })).toEqual(skill.frontmatter);
    expect(skill.frontmatter).toMatchObject({ name: "notebook-keeping", description: expect.stringMatching(/^Keep a notes notebook/) });
  });

  it("links only to files of the skill, and names only tools this server has", async () => {
    const client = await connect(fetchApp);
    const { skill } = (await client.request("skills/get", { uri: SKILL })) as any;
    const text = ((await client.readResource(SKILL)).contents[0] as any).text as string;
    const links = [...text.matchAll(/\]\(([^)]+)\)/g)].map(([, target]) => `skill://notebook-keeping/${target}`);
    expect(links.length).toBeGreaterThan(1);
    const files = skill.resources.map((file: any) => file.uri);
    for (const link of links) expect(files, link).toContain(link);
    const { tools } = await client.listTools();
    const names = new Set(tools.map((tool) => tool.name));
    const named = [...`${text} ${skill.frontmatter.compatibility}`.matchAll(/\b([a-z]+_[a-z_]+)\b/g)].map(([, name]) => name!);
    expect(named.length).toBeGreaterThan(5);
    for (const name of named.filter((name) => name !== "notebook_id")) expect(names, name).toContain(name);
  });

  it("shows its folders through resources/directory/read, and its SKILL.md in resources/list", async () => {
    const client = await connect(fetchApp);
    const root = (await client.request("resources/directory/read", { uri: "skill://notebook-keeping" })) as any;
    expect(root.resources.map((child: any) => [child.name, child.mimeType])).toEqual([
      ["SKILL.md", "text/markdown"],
      ["references", "inode/directory"],
      ["templates", "inode/directory"],
    ]);
    const { resources } = await client.listResources();
    expect(resources).toContainEqual(expect.objectContaining({ uri: SKILL, name: "notebook-keeping", mimeType: "text/markdown" }));
  });

  it("is every skill the build found: each folder under skills/ is declared in src/skills.ts, and the other way round", async () => {
    const manifest = await (await assets!.fetch("https://assets.invalid/skills/manifest.json")).json<{ skills: { name: string }[] }>();
    expect(manifest.skills.map((skill) => skill.name).sort()).toEqual(skills.map((skill) => skill.name).sort());
  });
});
