import { beforeAll, describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { definePrompt, defineResource, defineResourceTemplate, image, text } from "../../src";
import { compileUriTemplate } from "../../src/define/uri-template";
import { valueUri } from "../helpers/fixture";
import { localIssuer } from "../helpers/issuer";
import { fixture, readMessage, testServer } from "../helpers/rpc";

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

describe("resources a template lists for the caller", () => {
  /** How many items each caller owns; the template lists them three per page, with its own cursor (an offset). */
  const owned: Record<string, number> = { alice: 7, bob: 2 };
  const cursorsReceived: (string | undefined)[] = [];
  const FIXED = 51; // one more than a page, so the second page starts with a fixed resource and goes on with listed ones
  const fixed = Array.from({ length: FIXED }, (_, n) =>
    defineResource({ uri: `test://fixed/${n}`, name: `fixed-${n}`, read: () => [{ uri: `test://fixed/${n}`, text: "f" }] }),
  );
  const items = defineResourceTemplate({
    uriTemplate: "test://owned/{owner}/{n}",
    name: "owned item",
    read: (uri) => [{ uri, text: "x" }],
    list(ctx, cursor) {
      cursorsReceived.push(cursor);
      const start = cursor === undefined ? 0 : Number(cursor);
      const total = owned[ctx.principal.id] ?? 0;
      const end = Math.min(start + 3, total);
      const resources = Array.from({ length: end - start }, (_, i) => ({
        uri: `test://owned/${ctx.principal.id}/${start + i}`,
        name: `item ${start + i}`,
        title: `Item ${start + i}`,
      }));
      return end < total ? { resources, nextCursor: String(end) } : { resources };
    },
  });
  let issuer: Awaited<ReturnType<typeof localIssuer>>;
  let listing: ReturnType<typeof testServer>;
  beforeAll(async () => {
    issuer = await localIssuer();
    listing = testServer({ resources: [...fixed, items] }, issuer.vars);
  });
  const as = async (sub: string) => ({ headers: { authorization: `Bearer ${await issuer.token({ sub })}` } });

  /** Every page of resources/list for a caller, following nextCursor. */
  async function allPages(sub: string) {
    const pages: Record<string, any>[] = [];
    let cursor: string | undefined;
    do {
      const { result, error } = await readMessage(
        await listing.send("resources/list", cursor === undefined ? {} : { cursor }, await as(sub)),
      );
      expect(error).toBeUndefined();
      pages.push(result!);
      cursor = result!.nextCursor;
    } while (cursor !== undefined && pages.length < 20);
    return pages;
  }

  it("lists the fixed resources first, then the caller's listed ones, paged across both", async () => {
    const pages = await allPages("alice");
    expect(pages.map((page) => page.resources.length)).toEqual([50, 4, 3, 1]);
    const uris = pages.flatMap((page) => page.resources.map((resource: { uri: string }) => resource.uri));
    expect(uris).toEqual([...fixed.map((_, n) => `test://fixed/${n}`), ...Array.from({ length: 7 }, (_, n) => `test://owned/alice/${n}`)]);
    expect(pages[1]!.resources[1]).toEqual({ uri: "test://owned/alice/0", name: "item 0", title: "Item 0" });
    // The template got back exactly the cursors it issued.
    expect(cursorsReceived.slice(-3)).toEqual([undefined, "3", "6"]);
  });

  it("starts the listed resources on a new page when the fixed ones fill a page exactly", async () => {
    const exact = testServer({ resources: [...fixed.slice(0, 50), items] }, issuer.vars);
    const first = await readMessage(await exact.send("resources/list", {}, await as("bob")));
    expect(first.result?.resources).toHaveLength(50);
    const second = await readMessage(await exact.send("resources/list", { cursor: first.result!.nextCursor }, await as("bob")));
    expect(second.result?.resources.map((resource: { uri: string }) => resource.uri)).toEqual(["test://owned/bob/0", "test://owned/bob/1"]);
    expect(second.result).not.toHaveProperty("nextCursor");
  });

  it("lists only the caller's own resources", async () => {
    const listed = (await allPages("bob")).flatMap((page) => page.resources.map((resource: { uri: string }) => resource.uri));
    expect(listed.filter((uri: string) => uri.startsWith("test://owned/"))).toEqual(["test://owned/bob/0", "test://owned/bob/1"]);
    const carol = (await allPages("carol")).flatMap((page) => page.resources);
    expect(carol).toHaveLength(FIXED);
  });

  it("marks every page private and not cached, since the list depends on the caller", async () => {
    for (const page of await allPages("alice")) expect(page).toMatchObject({ ttlMs: 0, cacheScope: "private", resultType: "complete" });
  });

  it("refuses a tampered cursor, another caller's cursor and a cursor it did not issue with -32602", async () => {
    const first = await readMessage(await listing.send("resources/list", {}, await as("alice")));
    const second = await readMessage(await listing.send("resources/list", { cursor: first.result!.nextCursor }, await as("alice")));
    const cursor = second.result!.nextCursor as string;
    const flipped = (at: number) => `${cursor.slice(0, at)}${cursor[at] === "A" ? "B" : "A"}${cursor.slice(at + 1)}`;
    const payloadAt = cursor.indexOf(".", 3) + 5;
    for (const [bad, who] of [
      [flipped(payloadAt), "alice"],
      [flipped(cursor.length - 2), "alice"],
      [cursor, "bob"],
      ["bzUw", "alice"],
      ["", "alice"],
      ["x".repeat(5_000), "alice"],
    ] as const) {
      const message = await readMessage(await listing.send("resources/list", { cursor: bad }, await as(who)));
      expect(message.error).toEqual({ code: -32602, message: "Invalid cursor" });
    }
    const wrongType = await readMessage(await listing.send("resources/list", { cursor: 42 }, await as("alice")));
    expect(wrongType.error?.code).toBe(-32602);
  });

  it("keeps the template's list out of resources/templates/list", async () => {
    const { result } = await readMessage(await listing.send("resources/templates/list", {}, await as("alice")));
    expect(result?.resourceTemplates).toEqual([{ uriTemplate: "test://owned/{owner}/{n}", name: "owned item" }]);
  });

  it("serves the same pages to a 2025 client, without ttlMs or cacheScope", async () => {
    const headers = {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
      ...(await as("alice")).headers,
    };
    const first = await readMessage(await listing.post({ jsonrpc: "2.0", id: 1, method: "resources/list", params: {} }, headers));
    const second = await readMessage(
      await listing.post({ jsonrpc: "2.0", id: 2, method: "resources/list", params: { cursor: first.result!.nextCursor } }, headers),
    );
    expect(second.result?.resources.map((resource: { uri: string }) => resource.uri)).toEqual([
      "test://fixed/50",
      "test://owned/alice/0",
      "test://owned/alice/1",
      "test://owned/alice/2",
    ]);
    for (const { result } of [first, second]) {
      expect(result).not.toHaveProperty("ttlMs");
      expect(result).not.toHaveProperty("cacheScope");
      expect(result).not.toHaveProperty("resultType");
    }
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

  it("hands a completer its handler context: a template variable completes from values the caller stored", async () => {
    for (const key of ["plan-a", "plan-b", "other"]) await fixture.call("tools/call", { name: "put", arguments: { key, value: "v" } });
    const complete = async (value: string) =>
      (
        await fixture.call("completion/complete", {
          ref: { type: "ref/resource", uri: "fixture://values/{key}" },
          argument: { name: "key", value },
        })
      ).completion;
    expect(await complete("plan")).toEqual({ values: ["plan-a", "plan-b"], total: 2, hasMore: false });
    expect((await fixture.call("resources/read", { uri: valueUri("plan-b") })).contents).toEqual([
      { uri: valueUri("plan-b"), mimeType: "text/plain", text: "v" },
    ]);
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

  it("refuses a reference without the member its type needs, or of an unknown type, naming the member", async () => {
    const refusal = async (ref: unknown) =>
      (await readMessage(await server.send("completion/complete", { ref, argument: { name: "name", value: "" } }))).error;
    expect(await refusal({ type: "ref/prompt", uri: "test://x" })).toMatchObject({
      code: -32602,
      message: "Invalid params: ref.name: a ref/prompt reference needs a string name",
    });
    expect(await refusal({ type: "ref/resource", uri: 7 })).toMatchObject({
      code: -32602,
      message: "Invalid params: ref.uri: a ref/resource reference needs a string uri",
    });
    expect((await refusal({ type: "ref/tool", name: "greet" }))?.message).toMatch(/^Invalid params: ref\.type: /);
    expect((await refusal("greet"))?.message).toMatch(/^Invalid params: ref: /);
  });

  it("refuses context.arguments unless it maps names to strings, naming the value that is wrong", async () => {
    const complete = async (context: unknown) =>
      readMessage(
        await server.send("completion/complete", {
          ref: { type: "ref/prompt", name: "greet" },
          argument: { name: "name", value: "" },
          context,
        }),
      );
    const notString = await complete({ arguments: { name: "a", count: 1 } });
    expect(notString.error?.code).toBe(-32602);
    expect(notString.error?.message).toContain("context.arguments.count: Invalid input: expected string, received number");
    for (const context of [{ arguments: ["a"] }, { arguments: "a" }, "context"]) expect((await complete(context)).error?.code).toBe(-32602);
    expect((await complete({ arguments: { name: "a" } })).error).toBeUndefined();
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
