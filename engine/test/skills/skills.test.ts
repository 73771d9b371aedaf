/**
 * The Skills extension (SEP-2640) against the engine's fixture skills (fixture.ts): the capability in both eras,
 * `skills/list`, `skills/get`, `resources/directory/read`, the files through `resources/read` with the digests the
 * build published, the cache hints, the page-size limit, and every refusal the extension defines.
 */
import { describe, expect, it } from "vitest";
import { createMcpWorker, defineResource, defineSkill } from "../../src";
import { connect } from "../../src/testing";
import { FIXTURE } from "../helpers/fixture";
import { testServer } from "../helpers/rpc";
import { expectError, withLogs, withoutAccessLog } from "../helpers/wire";
import { ALPHA, BETA, contentBytes, digestOf, FILES, PNG, skillServer } from "./fixture";

const EXTENSION = "io.modelcontextprotocol/skills";
const server = await skillServer();
const encoder = new TextEncoder();
const bytesOf = (content: string | Uint8Array) => (typeof content === "string" ? encoder.encode(content) : content);

describe("the capability", () => {
  it("is advertised in server/discover with directoryRead, beside the resources capability it depends on", async () => {
    const result = await server.call<any>("server/discover");
    expect(result.capabilities).toMatchObject({ resources: { listChanged: true }, extensions: { [EXTENSION]: { directoryRead: true } } });
  });

  it("is advertised to 2025 clients in the initialize result, and the methods answer there without cache fields", async () => {
    const client = await connect(server.fetcher, { era: "2025", version: "2025-11-25" });
    expect(client.initializeResult?.capabilities).toMatchObject({ resources: {}, extensions: { [EXTENSION]: { directoryRead: true } } });
    const listed: any = await client.request("skills/list");
    expect(listed.skills.map((skill: any) => skill.uri)).toEqual(["skill://alpha/SKILL.md", "skill://beta/SKILL.md"]);
    const got = await client.request("skills/get", { uri: "skill://beta/SKILL.md" });
    const directory = await client.request("resources/directory/read", { uri: "skill://beta" });
    for (const result of [listed, got, directory]) {
      expect(result).not.toHaveProperty("ttlMs");
      expect(result).not.toHaveProperty("cacheScope");
      expect(result).not.toHaveProperty("resultType");
    }
    await client.close();
  });

  it("is not advertised by a server that declares no skills, whose skills methods are unknown (-32601, HTTP 404)", async () => {
    const plain = testServer(FIXTURE);
    const result = await plain.call<any>("server/discover");
    expect(result.capabilities.extensions?.[EXTENSION]).toBeUndefined();
    for (const method of ["skills/list", "skills/get", "resources/directory/read"]) {
      await expectError(await plain.send(method, { uri: "skill://alpha/SKILL.md" }), 404, -32601);
    }
  });

  it("is not advertised by a Worker without the ASSETS binding, which serves nothing of the skills", async () => {
    const bare = await skillServer({ assets: null });
    const result = await bare.call<any>("server/discover");
    expect(result.capabilities.extensions?.[EXTENSION]).toBeUndefined();
    await expectError(await bare.send("skills/list"), 404, -32601);
    await expectError(await bare.send("resources/read", { uri: "skill://alpha/SKILL.md" }), 200, -32602);
    const { resources } = await bare.call<any>("resources/list");
    expect(resources.map((resource: any) => resource.uri)).not.toContain("skill://alpha/SKILL.md");
  });
});

describe("skills/list", () => {
  it("lists every declared skill in declaration order: verbatim frontmatter and a complete manifest of its files", async () => {
    const result = await server.call<any>("skills/list");
    expect(result.resultType).toBe("complete");
    expect(result).not.toHaveProperty("nextCursor");
    const [alpha, beta] = result.skills;
    expect(alpha.uri).toBe("skill://alpha/SKILL.md");
    expect(alpha.frontmatter).toEqual({
      name: "alpha",
      description: "The first fixture skill, with folders.",
      license: "Apache-2.0",
      metadata: { owner: "engine-tests" },
    });
    expect(alpha.resources.map((resource: any) => resource.uri).sort()).toEqual(
      Object.keys(FILES.alpha!)
        .map((path) => `skill://alpha/${path}`)
        .sort(),
    );
    // Each digest and size is that of the file's bytes, computed here, not by the code under test.
    for (const resource of [...alpha.resources, ...beta.resources]) {
      const [, name, path] = /^skill:\/\/([^/]+)\/(.+)$/.exec(resource.uri)!;
      const bytes = bytesOf(FILES[name!]![path!]!);
      expect(resource).toEqual({ uri: resource.uri, digest: await digestOf(bytes), size: bytes.byteLength });
    }
    expect(beta).toEqual({
      uri: "skill://beta/SKILL.md",
      frontmatter: { name: "beta", description: "The second fixture skill." },
      resources: [expect.objectContaining({ uri: "skill://beta/SKILL.md" })],
    });
  });

  it("carries the cache hints of a list on 2026-07-28: lists.ttlMs, public while authorization is off", async () => {
    expect(await server.call<any>("skills/list")).toMatchObject({ ttlMs: 60_000, cacheScope: "public" });
    const tuned = await skillServer({ limits: { lists: { ttlMs: 5_000 } } });
    expect(await tuned.call<any>("skills/list")).toMatchObject({ ttlMs: 5_000, cacheScope: "public" });
  });

  it("pages by limits.skills.pageSize, never splitting an entry, and refuses a cursor it did not issue (-32602)", async () => {
    const paged = await skillServer({ limits: { skills: { pageSize: 1 } } });
    const first = await paged.call<any>("skills/list");
    expect(first.skills.map((skill: any) => skill.uri)).toEqual(["skill://alpha/SKILL.md"]);
    expect(first.skills[0].resources).toHaveLength(Object.keys(FILES.alpha!).length);
    const second = await paged.call<any>("skills/list", { cursor: first.nextCursor });
    expect(second.skills.map((skill: any) => skill.uri)).toEqual(["skill://beta/SKILL.md"]);
    expect(second).not.toHaveProperty("nextCursor");
    for (const cursor of ["not-a-cursor", btoa("o7"), 12]) {
      const error = await expectError(await paged.send("skills/list", { cursor }), 200, -32602);
      expect(error.error?.message).toBe("Invalid cursor");
    }
  });
});

describe("skills/get", () => {
  it("returns the same entry the listing carries, with the cache hints and no cursor", async () => {
    const { skills } = await server.call<any>("skills/list");
    const result = await server.call<any>("skills/get", { uri: "skill://alpha/SKILL.md" });
    expect(result).toMatchObject({ resultType: "complete", ttlMs: 60_000, cacheScope: "public" });
    expect(result.skill).toEqual(skills[0]);
    expect(result).not.toHaveProperty("nextCursor");
  });

  it("answers -32602 for a URI that names no skill this server serves: unknown, a supporting file, another scheme, missing", async () => {
    const cases: [unknown, RegExp][] = [
      ["skill://gamma/SKILL.md", /^No skill is served at skill:\/\/gamma\/SKILL\.md$/],
      ["skill://alpha/references/guide.md", /^No skill is served at/],
      ["skill://alpha", /^No skill is served at/],
      ["file:///etc/passwd", /start with skill:\/\//],
      [undefined, /"uri" must be a string/],
      [42, /"uri" must be a string/],
    ];
    for (const [uri, message] of cases) {
      const error = await expectError(await server.send("skills/get", { uri }), 200, -32602);
      expect(error.error?.message, String(uri)).toMatch(message);
    }
  });
});

/** URIs that try to step outside a skill or hide their path, each with the reason it is refused. */
const PLAIN_PATH =
  /a skill URI is a plain path: no percent-encoding, backslash, control character, query, fragment, empty, "\." or "\.\." segment/;
const TRAVERSALS: [string, RegExp][] = [
  ["skill://alpha/../beta/SKILL.md", PLAIN_PATH],
  ["skill://alpha/references/../../beta/SKILL.md", PLAIN_PATH],
  ["skill://alpha/./SKILL.md", PLAIN_PATH],
  ["skill://../etc/passwd", PLAIN_PATH],
  ["skill://alpha/references/..", PLAIN_PATH],
  ["skill://alpha/%2e%2e/beta/SKILL.md", PLAIN_PATH],
  ["skill://alpha/%2E%2E%2Fbeta/SKILL.md", PLAIN_PATH],
  ["skill://alpha\\..\\beta/SKILL.md", PLAIN_PATH],
  ["skill:///etc/passwd", PLAIN_PATH],
  ["skill://alpha//SKILL.md", PLAIN_PATH],
  ["skill://alpha/SKILL.md\u0000.png", PLAIN_PATH],
  ["skill://alpha/SKILL.md?x=1", PLAIN_PATH],
  ["skill://alpha/SKILL.md#top", PLAIN_PATH],
  [`skill://alpha/${"a/".repeat(1_100)}SKILL.md`, /at most 2048 characters/],
];

/** resources/read mirrors its URI in Mcp-Name, in the header's base64 form (a header value cannot carry NUL). */
const mirrored = (uri: string) => ({ "mcp-name": `=?base64?${encoder.encode(uri).toBase64()}?=` });

describe("bad URIs", () => {
  it("are refused with -32602 naming why, by skills/get, resources/read and resources/directory/read alike", async () => {
    for (const method of ["skills/get", "resources/read", "resources/directory/read"]) {
      for (const [uri, reason] of TRAVERSALS) {
        const response = await server.send(method, { uri }, method === "resources/read" ? { headers: mirrored(uri) } : {});
        // The longest one does not fit the Mcp-Name header's limit: the transport refuses it first (-32020, 400).
        if (method === "resources/read" && uri.length > 1_024) {
          await expectError(response, 400, -32020);
          continue;
        }
        const error = await expectError(response, 200, -32602);
        expect(error.error?.message, `${method} ${uri}`).toMatch(reason);
      }
    }
  });
});

describe("resources/read of a skill's files", () => {
  it("serves every file byte for byte as built: its size and SHA-256 match the entry (text, BOM and CRLF kept; binary as a blob)", async () => {
    const { skills } = await server.call<any>("skills/list");
    let read = 0;
    for (const skill of skills) {
      for (const { uri, digest, size } of skill.resources) {
        const result = await server.call<any>("resources/read", { uri });
        expect(result).toMatchObject({ resultType: "complete", ttlMs: 60_000, cacheScope: "public" });
        const [content] = result.contents;
        expect(content.uri).toBe(uri);
        const bytes = contentBytes(content);
        expect(bytes.byteLength, uri).toBe(size);
        expect(await digestOf(bytes), uri).toBe(digest);
        read++;
      }
    }
    expect(read).toBe(Object.keys(FILES.alpha!).length + Object.keys(FILES.beta!).length);
  });

  it("names each file's media type, and sends text as text and binary as base64", async () => {
    const read = async (uri: string) => (await server.call<any>("resources/read", { uri })).contents[0];
    expect(await read("skill://alpha/SKILL.md")).toMatchObject({ mimeType: "text/markdown", text: FILES.alpha!["SKILL.md"] });
    expect(await read("skill://alpha/references/guide.md")).toMatchObject({
      text: "\uFEFF# Guide\r\n\r\nA BOM and CRLF line ends, served byte for byte.\r\n",
    });
    expect(await read("skill://alpha/scripts/run.sh")).toMatchObject({ mimeType: "application/x-sh" });
    expect(await read("skill://alpha/assets/logo.png")).toEqual({
      uri: "skill://alpha/assets/logo.png",
      mimeType: "image/png",
      blob: PNG.toBase64(),
    });
  });

  it("answers resource not found for a file the build did not write, or a directory: -32602 with the URI, -32002 on 2025", async () => {
    for (const uri of ["skill://alpha/missing.md", "skill://alpha/references", "skill://alpha", "skill://gamma/SKILL.md"]) {
      const error = await expectError(await server.send("resources/read", { uri }), 200, -32602);
      expect(error.error).toEqual({ code: -32602, message: "Resource not found", data: { uri } });
    }
    const legacy = await connect(server.fetcher, { era: "2025", version: "2025-11-25" });
    await expect(legacy.readResource("skill://alpha/missing.md")).rejects.toMatchObject({ code: -32002 });
    await legacy.close();
  });

  it("refuses to serve a copy that no longer matches the manifest (-32603, logged), never its bytes", async () => {
    const stale = await skillServer({
      overrides: { "/skills/alpha/references/deep/note.txt": encoder.encode("changed after the build\n") },
    });
    const { value: refused, entries } = await withLogs(async () => {
      const response = await stale.send("resources/read", { uri: "skill://alpha/references/deep/note.txt" });
      await stale.settled();
      return response;
    });
    const error = await expectError(refused, 500, -32603);
    expect(JSON.stringify(error)).not.toContain("changed after the build");
    expect(withoutAccessLog(entries)).toEqual([
      expect.objectContaining({
        level: "error",
        message: "internal error",
        method: "resources/read",
        detail: "Skill file /skills/alpha/references/deep/note.txt changed since the build: rebuild",
      }),
    ]);
    // The other files still match: they are served.
    expect((await stale.call<any>("resources/read", { uri: "skill://beta/SKILL.md" })).contents).toHaveLength(1);
  });
});

describe("resources/list", () => {
  it("lists each skill's SKILL.md after the declared resources, named and described from its frontmatter", async () => {
    const { resources } = await server.call<any>("resources/list");
    expect(resources.at(0).uri).toBe("fixture://readme");
    expect(resources.slice(-2)).toEqual([
      {
        uri: "skill://alpha/SKILL.md",
        name: "alpha",
        description: "The first fixture skill, with folders.",
        mimeType: "text/markdown",
        size: encoder.encode(FILES.alpha!["SKILL.md"] as string).byteLength,
      },
      expect.objectContaining({ uri: "skill://beta/SKILL.md", name: "beta", description: "The second fixture skill." }),
    ]);
  });

  it("pages the declared resources and the skills as one list", async () => {
    const many = Array.from({ length: 49 }, (_, index) =>
      defineResource({ uri: `fixture://page/${index}`, name: `page ${index}`, read: () => [{ uri: `fixture://page/${index}`, text: "" }] }),
    );
    const paged = await skillServer({ definition: { resources: many } });
    const first = await paged.call<any>("resources/list");
    expect(first.resources).toHaveLength(50);
    expect(first.resources.at(-1).uri).toBe("skill://alpha/SKILL.md");
    const second = await paged.call<any>("resources/list", { cursor: first.nextCursor });
    expect(second.resources.map((resource: any) => resource.uri)).toEqual(["skill://beta/SKILL.md"]);
  });
});

describe("resources/directory/read", () => {
  it("lists a skill's root: its files with their media type and size, its folders as inode/directory, in order", async () => {
    const result = await server.call<any>("resources/directory/read", { uri: "skill://alpha" });
    expect(result).toMatchObject({ resultType: "complete", ttlMs: 60_000, cacheScope: "public" });
    expect(result.resources).toEqual([
      { uri: "skill://alpha/SKILL.md", name: "SKILL.md", mimeType: "text/markdown", size: expect.any(Number) },
      { uri: "skill://alpha/assets", name: "assets", mimeType: "inode/directory" },
      { uri: "skill://alpha/references", name: "references", mimeType: "inode/directory" },
      { uri: "skill://alpha/scripts", name: "scripts", mimeType: "inode/directory" },
    ]);
  });

  it("lists the direct children of every folder, and nothing deeper", async () => {
    const references = await server.call<any>("resources/directory/read", { uri: "skill://alpha/references" });
    expect(references.resources.map((child: any) => [child.name, child.mimeType])).toEqual([
      ["deep", "inode/directory"],
      ["guide.md", "text/markdown"],
    ]);
    const deep = await server.call<any>("resources/directory/read", { uri: "skill://alpha/references/deep" });
    expect(deep.resources).toEqual([{ uri: "skill://alpha/references/deep/note.txt", name: "note.txt", mimeType: "text/plain", size: 5 }]);
  });

  it("answers -32602 for a file, an unknown directory, or a URI with a trailing slash", async () => {
    const cases: [string, RegExp][] = [
      ["skill://alpha/SKILL.md", /^skill:\/\/alpha\/SKILL\.md is not a directory resource$/],
      ["skill://alpha/templates", /is not a directory resource$/],
      ["skill://gamma", /is not a directory resource$/],
      ["skill://alpha/", PLAIN_PATH],
    ];
    for (const [uri, message] of cases) {
      const error = await expectError(await server.send("resources/directory/read", { uri }), 200, -32602);
      expect(error.error?.message, uri).toMatch(message);
    }
  });

  it("pages a directory by limits.skills.pageSize, and refuses a cursor it did not issue", async () => {
    const paged = await skillServer({ limits: { skills: { pageSize: 3 } } });
    const first = await paged.call<any>("resources/directory/read", { uri: "skill://alpha" });
    expect(first.resources).toHaveLength(3);
    const second = await paged.call<any>("resources/directory/read", { uri: "skill://alpha", cursor: first.nextCursor });
    expect(second.resources.map((child: any) => child.name)).toEqual(["scripts"]);
    expect(second).not.toHaveProperty("nextCursor");
    await expectError(await paged.send("resources/directory/read", { uri: "skill://alpha", cursor: "bogus" }), 200, -32602);
  });
});

describe("limits.skills.pageSize", () => {
  it("is a count from 1 to 1000, 100 by default; any other value stops the Worker at startup, naming it", () => {
    expect(() => createMcpWorker({ ...FIXTURE, limits: { skills: { pageSize: 1_000 } } })).not.toThrow();
    for (const pageSize of [0, 1_001, 2.5]) {
      expect(() => createMcpWorker({ ...FIXTURE, limits: { skills: { pageSize } } })).toThrow(
        "limits.skills.pageSize must be an integer from 1 to 1000",
      );
    }
  });

  it("defaults to 100 skills a page", async () => {
    const files = Object.fromEntries(
      Array.from({ length: 101 }, (_, index) => [
        `s${index}`,
        { "SKILL.md": `---\nname: s${index}\ndescription: Skill number ${index}.\n---\n` },
      ]),
    );
    const many = await skillServer({ files, skills: Object.keys(files).map((name) => defineSkill({ name })) });
    const first = await many.call<any>("skills/list");
    expect(first.skills).toHaveLength(100);
    expect((await many.call<any>("skills/list", { cursor: first.nextCursor })).skills).toHaveLength(1);
  });
});

describe("declarations", () => {
  it("refuses a skill name that breaks the Agent Skills rules", () => {
    for (const name of ["", "Alpha", "a--b", "-a", "a-", "a_b", "a".repeat(65), "../x"]) {
      expect(() => defineSkill({ name }), name).toThrow("a name is 1 to 64 lowercase letters and digits");
    }
    expect(defineSkill({ name: "a".repeat(64) }).uri).toBe(`skill://${"a".repeat(64)}/SKILL.md`);
  });

  it("refuses a skill declared twice, and a resource of its own under skill://", () => {
    expect(() => createMcpWorker({ ...FIXTURE, skills: [ALPHA, defineSkill({ name: "alpha" })] })).toThrow(
      'Skill "alpha" is declared twice',
    );
    const squatter = defineResource({ uri: "skill://alpha/SKILL.md", name: "squatter", read: () => [] });
    expect(() => createMcpWorker({ ...FIXTURE, resources: [squatter], skills: [ALPHA] })).toThrow("skill:// URIs belong to the skills");
  });

  it("fails loudly (-32603, logged) when a declared skill was not built, or nothing was built at all", async () => {
    const undeclared = await skillServer({ skills: [ALPHA, BETA, defineSkill({ name: "gamma" })] });
    const unbuilt = await skillServer({ overrides: { "/skills/manifest.json": null } });
    const { value: answers, entries } = await withLogs(async () => {
      const listed = await undeclared.send("skills/list");
      const got = await unbuilt.send("skills/get", { uri: "skill://alpha/SKILL.md" });
      // Each server also tells the hub its skills' version after its first answer, which fails the same way.
      await Promise.all([undeclared.settled(), unbuilt.settled()]);
      return [listed, got];
    });
    await expectError(answers[0]!, 500, -32603);
    const error = await expectError(answers[1]!, 500, -32603);
    expect(error.error?.message).toBe("Internal error");
    const notBuilt = expect.stringContaining('Skill "gamma" is declared but not built');
    const noManifest = expect.stringContaining("Asset /skills/manifest.json answered HTTP 404");
    expect(withoutAccessLog(entries)).toHaveLength(4);
    expect(withoutAccessLog(entries)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ level: "error", message: "internal error", method: "skills/list", detail: notBuilt }),
        expect.objectContaining({ level: "error", message: "skills version announcement failed", detail: notBuilt }),
        expect.objectContaining({ level: "error", message: "internal error", method: "skills/get", detail: noManifest }),
        expect.objectContaining({ level: "error", message: "skills version announcement failed", detail: noManifest }),
      ]),
    );
  });
});
