/**
 * A list's first page is kept per isolate (server/server.ts `list`) and serialized once (modern/serve.ts): what is
 * kept must never reach a caller it does not fit, and a kept answer must be the answer a fresh one would be.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { createMcpWorker, defineTool, defineView, text } from "../../src";
import { adminOnly, FIXTURE } from "../helpers/fixture";
import { localIssuer } from "../helpers/issuer";
import { type Json, readMessage, rpc, testServer } from "../helpers/rpc";

let issuer: Awaited<ReturnType<typeof localIssuer>>;
beforeAll(async () => {
  issuer = await localIssuer();
});

const as = (jwt: string) => ({ headers: { authorization: `Bearer ${jwt}` } });
const names = (result: Record<string, any> | undefined) => result?.tools.map((tool: { name: string }) => tool.name) as string[];

describe("a kept tools/list", () => {
  it("is never given to a caller who may see fewer tools, nor withheld from one who may see more, in either order", async () => {
    // One server (one isolate's kept pages) for every request below.
    const server = testServer({ ...FIXTURE, tools: [...FIXTURE.tools, adminOnly] }, issuer.vars);
    const admin = as(await issuer.token({ scope: "notes:read notes:admin" }));
    const reader = as(await issuer.token({ scope: "notes:read" }));
    const listed = async (caller: { headers: Record<string, string> }) =>
      names((await readMessage(await server.send("tools/list", {}, caller))).result);
    const first = [await listed(admin), await listed(reader), await listed(admin), await listed(reader)];
    expect(first[0]).toContain("admin_report");
    expect(first[1]).not.toContain("admin_report");
    expect(first[2]).toEqual(first[0]);
    expect(first[3]).toEqual(first[1]);
    // And the other way round, on a server whose first list went to the reader.
    const other = testServer({ ...FIXTURE, tools: [...FIXTURE.tools, adminOnly] }, issuer.vars);
    const otherListed = async (caller: { headers: Record<string, string> }) =>
      names((await readMessage(await other.send("tools/list", {}, caller))).result);
    expect(await otherListed(reader)).not.toContain("admin_report");
    expect(await otherListed(admin)).toContain("admin_report");
  });

  it("answers each request with its own id, string or number, in the same bytes a freshly built answer has", async () => {
    const server = testServer(FIXTURE);
    const texts: string[] = [];
    for (const id of [7, "seven", 8]) {
      const response = await server.send("tools/list", {}, { id });
      expect(response.headers.get("content-type")).toBe("application/json");
      texts.push(await response.text());
    }
    const parsed = texts.map((text) => JSON.parse(text));
    expect(parsed.map((message) => message.id)).toEqual([7, "seven", 8]);
    // The same answer, id apart, and written exactly as JSON.stringify writes the parsed message.
    expect(parsed[1].result).toEqual(parsed[0].result);
    expect(parsed[2].result).toEqual(parsed[0].result);
    for (const [i, text] of texts.entries()) expect(text).toBe(JSON.stringify(parsed[i]));
    expect(parsed[0].result).toMatchObject({
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: FIXTURE.name } },
    });
  });

  it("leaves a page after a cursor to be built for its request (the cursor is the client's): a bad one is refused each time", async () => {
    const server = testServer(FIXTURE);
    for (let i = 0; i < 2; i++) {
      const { error } = await readMessage(await server.send("tools/list", { cursor: "not-a-cursor" }));
      expect(error?.code).toBe(-32602);
    }
  });

  it("for a client that renders views is its own (views named, private), and never reaches one that does not, in either order", async () => {
    const view = defineView({ uri: "ui://lists/demo", name: "demo", asset: "/views/demo.html" });
    const worker = createMcpWorker({
      name: "lists",
      version: "1.0.0",
      tools: [
        defineTool({
          name: "show",
          description: "Shows a view.",
          input: z.strictObject({}),
          view,
          handler: () => ({ content: [text("ok")] }),
        }),
      ],
    });
    const assets = {
      fetch: async () => new Response("<!doctype html>", { headers: { "content-type": "text/html" } }),
    } as unknown as Fetcher;
    const server = rpc((request) => worker.fetch(request, { ...env, ASSETS: assets } as Env, createExecutionContext()));
    const renders = { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } };
    const plain = () => server.call("tools/list");
    const viewing = () => server.call("tools/list", {}, { capabilities: renders });
    for (const result of [await plain(), await viewing(), await plain(), await viewing()].map((answer, i) => [i, answer] as const)) {
      const [i, answer] = result;
      const tool = (answer.tools as Json[])[0]!;
      if (i % 2 === 0) expect([tool._meta, answer.cacheScope], `plain list ${i}`).toEqual([undefined, "public"]);
      else
        expect([tool._meta, answer.cacheScope], `viewing list ${i}`).toEqual([
          expect.objectContaining({ ui: { resourceUri: "ui://lists/demo" } }),
          "private",
        ]);
    }
  });
});
