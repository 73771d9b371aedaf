/**
 * The official TypeScript client's Skills extension host side (`SkillsClient`, @modelcontextprotocol/client 2.4.0
 * `ext/skills`) against the running Worker: it lists the example's skill, gets it, reads and verifies every file
 * (size, SHA-256 digest, and SKILL.md's frontmatter against the entry) and reads its directories, on 2026-07-28
 * (with the cache fields it requires there) and on 2025-11-25 (through initialize).
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient, SkillVerificationError } from "@modelcontextprotocol/client/ext/skills";
import { afterEach, describe, expect, inject, it } from "vitest";
import { appBinds } from "./app-bindings";

const SKILL = "skill://notebook-keeping/SKILL.md";
const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

async function skillsClient(mode: "2026-07-28" | "legacy") {
  const client = new Client(
    { name: "e2e-skills", version: "1.0.0" },
    { versionNegotiation: { mode: mode === "legacy" ? "legacy" : { pin: mode } } },
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(inject("mcpUrl"))));
  open.push(client);
  return { client, skills: new SkillsClient(client) };
}

describe.runIf(appBinds("ASSETS"))("the official SDK's skills client", () => {
  it("on 2026-07-28: lists, gets and reads every file of the skill, each verified against its entry", async () => {
    const { client, skills } = await skillsClient("2026-07-28");
    expect(client.getProtocolEra()).toBe("modern");
    expect(skills.supported).toBe(true);
    expect(skills.directoryRead).toBe(true);

    const listing = await skills.list();
    expect(listing).toMatchObject({ invalid: [], ttlMs: 60_000, cacheScope: "public" });
    expect(listing.skills.map((skill) => skill.uri)).toEqual([SKILL]);
    const { skill, ttlMs, cacheScope } = await skills.get(SKILL);
    expect({ ttlMs, cacheScope }).toEqual({ ttlMs: 60_000, cacheScope: "public" });
    expect(skill).toEqual(listing.skills[0]);

    const manifest = await skills.read(skill);
    expect(manifest).toMatchObject({ uri: SKILL, mimeType: "text/markdown", verified: true, frontmatter: skill.frontmatter });
    expect(manifest.body?.trimStart()).toMatch(/^# Keeping a notebook organised/);
    // Every file the entry lists, by the relative reference SKILL.md uses for it.
    const files = (skill.resources as { uri: string }[]).map(({ uri }) => uri.slice("skill://notebook-keeping/".length));
    expect(files).toEqual(["SKILL.md", "references/tags.md", "templates/weekly-review.md"]);
    for (const ref of files) expect((await skills.read(skill, ref)).verified, ref).toBe(true);
  });

  it("on 2026-07-28: reads the skill's directories, and refuses a file the entry does not list before asking", async () => {
    const { skills } = await skillsClient("2026-07-28");
    const root = await skills.readDirectory("skill://notebook-keeping");
    expect(root).toMatchObject({ ttlMs: 60_000, cacheScope: "public" });
    expect(root.resources.map((child) => [child.name, child.mimeType])).toEqual([
      ["SKILL.md", "text/markdown"],
      ["references", "inode/directory"],
      ["templates", "inode/directory"],
    ]);
    const references = await skills.readDirectory("skill://notebook-keeping/references");
    expect(references.resources.map((child) => child.uri)).toEqual(["skill://notebook-keeping/references/tags.md"]);
    const { skill } = await skills.get(SKILL);
    await expect(skills.read(skill, "../other/SKILL.md")).rejects.toBeInstanceOf(SkillVerificationError);
  });

  it("on 2025-11-25 (initialize): lists, gets, reads and verifies the same skill, without the cache fields", async () => {
    const { client, skills } = await skillsClient("legacy");
    expect(client.getProtocolEra()).toBe("legacy");
    expect(skills.supported).toBe(true);
    const listing = await skills.list();
    expect(listing.skills.map((skill) => skill.uri)).toEqual([SKILL]);
    expect(listing).not.toHaveProperty("ttlMs");
    const { skill } = await skills.get(SKILL);
    for (const { uri } of skill.resources as { uri: string }[]) expect((await skills.read(skill, uri)).verified, uri).toBe(true);
    expect((await skills.readDirectory("skill://notebook-keeping/templates")).resources).toHaveLength(1);
  });

  it("sees the skill's SKILL.md as an ordinary resource too, for a client without the extension", async () => {
    const { client } = await skillsClient("2026-07-28");
    const { resources } = await client.listResources();
    expect(resources).toContainEqual(expect.objectContaining({ uri: SKILL, name: "notebook-keeping", mimeType: "text/markdown" }));
    const read = await client.readResource({ uri: SKILL });
    expect((read.contents[0] as { text: string }).text).toMatch(/^---\nname: notebook-keeping\n/);
  });
});
