import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { definePrompt, defineResource, defineResourceTemplate, image, text } from "../../../src/mcp";
import { compileUriTemplate } from "../../../src/mcp/define/uri-template";
import { readMessage, testServer } from "../../helpers/rpc";

const server = testServer({
  resources: [
    defineResource({
      uri: "test://text",
      name: "text",
      mimeType: "text/plain",
      read: () => [{ uri: "test://text", mimeType: "text/plain", text: "hi" }],
    }),
    defineResource({ uri: "test://empty", name: "empty", read: () => [] }),
    defineResourceTemplate({
      uriTemplate: "test://items/{id}",
      name: "item",
      cache: { ttlMs: 5_000, cacheScope: "public" },
      read: (uri, { id }) => (id === "missing" ? undefined : [{ uri, mimeType: "application/json", text: JSON.stringify({ id }) }]),
      complete: { id: (value) => ["alpha", "beta", "alps"].filter((id) => id.startsWith(value)) },
    }),
  ],
  prompts: [
    definePrompt({
      name: "greet",
      description: "Greets someone.",
      arguments: z.strictObject({ name: z.string().check(z.describe("Who to greet")), style: z.optional(z.string()) }),
      complete: { name: (value) => Array.from({ length: 150 }, (_, i) => `${value}${i}`) },
      get: ({ name, style }) => ({ messages: [{ role: "user", content: text(`Say hello to ${name}${style ? ` (${style})` : ""}`) }] }),
    }),
    definePrompt({
      name: "picture",
      description: "An image prompt.",
      get: () => ({ messages: [{ role: "user", content: image("AAAA", "image/png") }] }),
    }),
  ],
});

describe("resources", () => {
  it("lists fixed resources and templates with cache hints", async () => {
    const list = await readMessage(await server.send("resources/list"));
    expect(list.result).toMatchObject({
      resources: [{ uri: "test://text", name: "text", mimeType: "text/plain" }, { uri: "test://empty" }],
      cacheScope: "public",
    });
    const templates = await readMessage(await server.send("resources/templates/list"));
    expect(templates.result?.resourceTemplates).toEqual([{ uriTemplate: "test://items/{id}", name: "item" }]);
  });

  it("reads a fixed resource, not cached unless declared", async () => {
    const { result } = await readMessage(await server.send("resources/read", { uri: "test://text" }));
    expect(result).toMatchObject({
      contents: [{ uri: "test://text", text: "hi" }],
      ttlMs: 0,
      cacheScope: "private",
      resultType: "complete",
    });
  });

  it("reads through a template with the variables percent-decoded and its cache hint", async () => {
    const { result } = await readMessage(await server.send("resources/read", { uri: "test://items/a%20b" }));
    expect(result).toMatchObject({ contents: [{ text: '{"id":"a b"}' }], ttlMs: 5_000, cacheScope: "public" });
  });

  it("answers an unknown URI with -32602 and data.uri, never empty contents", async () => {
    for (const uri of ["test://nothing", "test://items/missing", "test://empty", "test://items/a/b", "test://items/%E0%A4%A"]) {
      const message = await readMessage(await server.send("resources/read", { uri }));
      expect(message.error).toEqual({ code: -32602, message: "Resource not found", data: { uri } });
    }
  });

  it("answers a missing uri with -32602", async () => {
    expect((await readMessage(await server.send("resources/read", {}))).error?.code).toBe(-32602);
  });
});

describe("prompts", () => {
  it("lists prompts with arguments, descriptions and required flags from the zod schema", async () => {
    const { result } = await readMessage(await server.send("prompts/list"));
    expect(result?.prompts).toEqual([
      {
        name: "greet",
        description: "Greets someone.",
        arguments: [
          { name: "name", description: "Who to greet", required: true },
          { name: "style", required: false },
        ],
      },
      { name: "picture", description: "An image prompt." },
    ]);
  });

  it("gets a prompt with its arguments", async () => {
    const { result } = await readMessage(await server.send("prompts/get", { name: "greet", arguments: { name: "Ada" } }));
    expect(result).toMatchObject({
      resultType: "complete",
      messages: [{ role: "user", content: { type: "text", text: "Say hello to Ada" } }],
    });
  });

  it("answers an unknown prompt and missing or wrong arguments with -32602", async () => {
    expect((await readMessage(await server.send("prompts/get", { name: "nope" }))).error?.code).toBe(-32602);
    expect((await readMessage(await server.send("prompts/get", { name: "greet" }))).error?.message).toContain("name:");
    expect((await readMessage(await server.send("prompts/get", { name: "greet", arguments: { name: 3 } }))).error?.code).toBe(-32602);
  });
});

describe("completion/complete", () => {
  it("completes a template variable", async () => {
    const { result } = await readMessage(
      await server.send("completion/complete", {
        ref: { type: "ref/resource", uri: "test://items/{id}" },
        argument: { name: "id", value: "al" },
      }),
    );
    expect(result?.completion).toEqual({ values: ["alpha", "alps"], total: 2, hasMore: false });
  });

  it("caps suggestions at 100 and says there are more", async () => {
    const { result } = await readMessage(
      await server.send("completion/complete", { ref: { type: "ref/prompt", name: "greet" }, argument: { name: "name", value: "x" } }),
    );
    expect(result?.completion).toMatchObject({ total: 150, hasMore: true });
    expect((result!.completion as { values: string[] }).values).toHaveLength(100);
  });

  it("answers an argument without a completer with no values", async () => {
    const { result } = await readMessage(
      await server.send("completion/complete", { ref: { type: "ref/prompt", name: "greet" }, argument: { name: "style", value: "" } }),
    );
    expect(result?.completion).toEqual({ values: [], total: 0, hasMore: false });
  });

  it("answers unknown references and malformed params with -32602", async () => {
    const cases = [
      { ref: { type: "ref/prompt", name: "nope" }, argument: { name: "a", value: "" } },
      { ref: { type: "ref/resource", uri: "test://unknown/{x}" }, argument: { name: "x", value: "" } },
      { ref: { type: "ref/other" }, argument: { name: "a", value: "" } },
      { ref: { type: "ref/prompt", name: "greet" } },
    ];
    for (const params of cases) expect((await readMessage(await server.send("completion/complete", params))).error?.code).toBe(-32602);
  });
});

describe("capabilities follow what is registered", () => {
  it("advertises only tools for a tools-only server and answers other families with 404/-32601", async () => {
    const toolsOnly = testServer({});
    const { result } = await readMessage(await toolsOnly.send("server/discover"));
    expect(result?.capabilities).toEqual({});
    for (const method of ["tools/list", "resources/list", "prompts/list", "completion/complete"]) {
      const response = await toolsOnly.send(method);
      expect(response.status).toBe(404);
      expect((await readMessage(response)).error?.code).toBe(-32601);
    }
  });
});

describe("URI templates", () => {
  it("matches one path segment per variable and refuses operators at startup", () => {
    const template = compileUriTemplate("note://{notebook}/{note}");
    expect(template.match("note://a/b")).toEqual({ notebook: "a", note: "b" });
    expect(template.match("note://a/b/c")).toBeUndefined();
    expect(template.match("note://a/")).toBeUndefined();
    expect(() => compileUriTemplate("file:///{+path}")).toThrow(/only \{name\} variables/);
    expect(() => compileUriTemplate("x://{a}/{a}")).toThrow(/twice/);
  });
});
