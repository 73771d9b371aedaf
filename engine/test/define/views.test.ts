/**
 * Interactive views (MCP Apps, `io.modelcontextprotocol/ui`): a tool names a `ui://` view, the server reads its HTML
 * through the ASSETS binding, and only a client that declares the extension sees any of it. Every other client gets
 * the answers a server without views gives.
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { createMcpWorker, defineTool, defineView, type EngineBindings, type ServerDefinition, text } from "../../src";
import { FIXTURE } from "../helpers/fixture";
import { type Json, readMessage, rpc } from "../helpers/rpc";
import { withLogs, withoutAccessLog } from "../helpers/wire";

const UI = "io.modelcontextprotocol/ui";
const MIME = "text/html;profile=mcp-app";
const HTML = "<!doctype html><title>Demo view</title><p>demo</p>";
const RENDERS_VIEWS = { extensions: { [UI]: { mimeTypes: [MIME] } } };

/** Static assets as the ASSETS binding serves them: the demo view's HTML, 404 for any other path. */
const assets = {
  fetch: async (request: Request) =>
    new URL(request.url).pathname === "/views/demo.html"
      ? new Response(HTML, { headers: { "content-type": "text/html" } })
      : new Response("", { status: 404 }),
} as unknown as Fetcher;

const demoView = defineView({
  uri: "ui://fixture/demo",
  name: "demo",
  title: "Demo",
  asset: "/views/demo.html",
  csp: { connectDomains: ["https://api.example.com"], resourceDomains: ["https://cdn.example.com"] },
  permissions: { clipboardWrite: {} },
  prefersBorder: false,
});
const missingView = defineView({ uri: "ui://fixture/missing", name: "missing", asset: "/views/missing.html" });

const showsView = (name: string, view = demoView) =>
  defineTool({ name, description: "Shows the demo view.", input: z.strictObject({}), view, handler: () => ({ content: [text("shown")] }) });

/** The fixture server plus tools with views (two share one), served with `bindings` in place of the real ones. */
function serve(extraTools: ServerDefinition["tools"], bindings: Partial<EngineBindings> & { ASSETS?: Fetcher | undefined }) {
  const worker = createMcpWorker({
    ...FIXTURE,
    name: "test-server",
    version: "1.0.0",
    tools: [...(FIXTURE.tools ?? []), ...(extraTools ?? [])],
  });
  const testEnv: EngineBindings = { ...env, ...bindings };
  if (bindings.ASSETS === undefined) delete testEnv.ASSETS;
  return rpc((request) => worker.fetch(request, testEnv, createExecutionContext()));
}
const VIEW_TOOLS = [showsView("show_demo"), showsView("show_demo_again"), showsView("show_missing", missingView)];
const withViews = serve(VIEW_TOOLS, { ASSETS: assets });
/** The same tools without `view`: what every client saw before views existed. */
const withoutViews = serve(
  VIEW_TOOLS.map(({ view: _view, ...tool }) => tool),
  { ASSETS: assets },
);

const toolNamed = (result: Json, name: string) => (result.tools as Json[]).find((tool) => tool.name === name)!;

describe("a client that declares the extension", () => {
  it("sees each tool's view as _meta.ui.resourceUri (and the flat ui/resourceUri key 2025 hosts read)", async () => {
    const result = await withViews.call("tools/list", {}, { capabilities: RENDERS_VIEWS });
    expect(toolNamed(result, "show_demo")._meta).toEqual({
      ui: { resourceUri: "ui://fixture/demo" },
      "ui/resourceUri": "ui://fixture/demo",
    });
    expect(toolNamed(result, "show_demo_again")._meta).toMatchObject({ ui: { resourceUri: "ui://fixture/demo" } });
    expect(toolNamed(result, "echo")._meta).toBeUndefined();
    // The list differs per client, so no shared cache may hand it to one that does not render views.
    expect(result.cacheScope).toBe("private");
  });

  it("is told the server offers the extension, in a server/discover answer no shared cache may reuse", async () => {
    const discovered = await withViews.call("server/discover", {}, { capabilities: RENDERS_VIEWS });
    expect((discovered.capabilities as Json).extensions).toMatchObject({ [UI]: {} });
    expect(discovered.cacheScope).toBe("private");
  });

  it("lists a view shared by two tools once, as an HTML app resource", async () => {
    const listed = (await withViews.call("resources/list", {}, { capabilities: RENDERS_VIEWS })).resources as Json[];
    const views = listed.filter((resource) => String(resource.uri).startsWith("ui://"));
    expect(views.map((view) => view.uri)).toEqual(["ui://fixture/demo", "ui://fixture/missing"]);
    expect(views[0]).toMatchObject({ name: "demo", title: "Demo", mimeType: MIME });
    expect(views[0]).not.toHaveProperty("view");
    expect(views[0]).not.toHaveProperty("asset");
  });

  it("reads the view's HTML from the assets binding, with its CSP domains, permissions and border preference", async () => {
    const result = await withViews.call("resources/read", { uri: "ui://fixture/demo" }, { capabilities: RENDERS_VIEWS });
    expect(result.contents).toEqual([
      {
        uri: "ui://fixture/demo",
        mimeType: MIME,
        text: HTML,
        _meta: {
          ui: {
            csp: { connectDomains: ["https://api.example.com"], resourceDomains: ["https://cdn.example.com"] },
            permissions: { clipboardWrite: {} },
            prefersBorder: false,
          },
        },
      },
    ]);
  });

  it("gets an internal error, not an empty view, when the view's asset was not built", async () => {
    const { value: response, entries } = await withLogs(() =>
      withViews.send("resources/read", { uri: "ui://fixture/missing" }, { capabilities: RENDERS_VIEWS }),
    );
    expect((await readMessage(response)).error?.code).toBe(-32603);
    // The log says why, and how to fix it.
    expect(withoutAccessLog(entries)).toEqual([
      expect.objectContaining({
        level: "error",
        message: "internal error",
        method: "resources/read",
        detail:
          "Asset /views/missing.html answered HTTP 404: build the assets (wrangler.toml's [build], which wrangler dev and deploy run)",
      }),
    ]);
  });

  it("declared without mimeTypes still counts; with mimeTypes lacking the MCP App profile it does not", async () => {
    const bare = await withViews.call("tools/list", {}, { capabilities: { extensions: { [UI]: {} } } });
    expect(toolNamed(bare, "show_demo")._meta).toBeDefined();
    const other = await withViews.call("tools/list", {}, { capabilities: { extensions: { [UI]: { mimeTypes: ["text/uri-list"] } } } });
    expect(toolNamed(other, "show_demo")._meta).toBeUndefined();
  });
});

describe("a client that does not declare the extension", () => {
  it("gets exactly the tools/list, resources/list and server/discover a server without views gives", async () => {
    for (const method of ["tools/list", "resources/list", "server/discover"]) {
      expect(await withViews.call(method, {}, { capabilities: {} })).toEqual(await withoutViews.call(method, {}, { capabilities: {} }));
    }
  });

  it("finds no view at its ui:// URI: the same 'Resource not found' a server without views answers", async () => {
    const read = async (server: typeof withViews) =>
      (await readMessage(await server.send("resources/read", { uri: "ui://fixture/demo" }, { capabilities: {} }))).error;
    expect(await read(withViews)).toEqual({ code: -32602, message: "Resource not found", data: { uri: "ui://fixture/demo" } });
    expect(await read(withViews)).toEqual(await read(withoutViews));
  });

  it("declared the extension on an earlier request only: capabilities are per request on 2026-07-28", async () => {
    await withViews.call("tools/list", {}, { capabilities: RENDERS_VIEWS });
    expect(toolNamed(await withViews.call("tools/list", {}, { capabilities: {} }), "show_demo")._meta).toBeUndefined();
  });
});

describe("2025 clients", () => {
  const LEGACY = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-11-25",
  };
  async function session(server: ReturnType<typeof rpc>, capabilities: Json) {
    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "host", version: "1" } },
    };
    const response = await server.post(init, LEGACY);
    const initialized = (await readMessage(response)).result!;
    const headers = { ...LEGACY, "mcp-session-id": response.headers.get("mcp-session-id") };
    const list = async () =>
      (await readMessage(await server.post({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} }, headers))).result!;
    return { initialized, list };
  }

  it("that declared the extension at initialize see views for the whole session", async () => {
    const { initialized, list } = await session(withViews, RENDERS_VIEWS);
    expect(initialized.capabilities.extensions).toMatchObject({ [UI]: {} });
    expect(toolNamed(await list(), "show_demo")._meta).toMatchObject({ ui: { resourceUri: "ui://fixture/demo" } });
  });

  it("that did not declare it see no view", async () => {
    const { initialized, list } = await session(withViews, {});
    expect(initialized.capabilities.extensions).toBeUndefined();
    expect(toolNamed(await list(), "show_demo")._meta).toBeUndefined();
  });

  it("without sessions (no LEGACY_SESSIONS) are not offered views: later requests could not know they render them", async () => {
    const stateless = serve(VIEW_TOOLS, { ASSETS: assets, LEGACY_SESSIONS: undefined });
    const { initialized, list } = await session(stateless, RENDERS_VIEWS);
    expect(initialized.capabilities.extensions).toBeUndefined();
    expect(toolNamed(await list(), "show_demo")._meta).toBeUndefined();
  });
});

describe("defineView", () => {
  it("refuses a URI that is not ui:// and an asset path that is not absolute", () => {
    expect(() => defineView({ uri: "https://x/y" as `ui://${string}`, name: "bad", asset: "/a.html" })).toThrow(/ui:\/\//);
    expect(() => defineView({ uri: "ui://x/y", name: "bad", asset: "a.html" })).toThrow(/starting with \//);
  });
});
