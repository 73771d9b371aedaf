/**
 * The MCP Server Card (SEP-2127, draft), through the real Worker: off by default; on, the same document on both paths
 * the draft has named, with its media type, a strong ETag and 304s, HEAD, its own CORS (every origin), cache headers,
 * the Host check, and 405 for other methods. The card never disagrees with `server/discover` and `initialize`
 * (name, version, descriptive fields, protocol versions) whatever the server offers, and claims no capability;
 * it validates against the draft's published JSON Schema (vendored in server-card-schema.ts).
 */

import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Validator } from "@cfworker/json-schema";
import { beforeAll, describe, expect, it, vi } from "vitest";
import * as z from "zod/mini";
import {
  authorizationServer,
  createMcpWorker,
  defineTool,
  defineView,
  type EngineOptions,
  type ServerDefinition,
  text,
  validateServer,
} from "../../src";
import { parseConfig } from "../../src/config/config";
import { resolveOptions } from "../../src/config/options";
import { McpServer } from "../../src/server/server";
import { createRouter } from "../../src/worker/router";
import { LOGIN } from "../helpers/auth-server";
import { FIXTURE } from "../helpers/fixture";
import { localIssuer } from "../helpers/issuer";
import { fixture, type Json, readMessage, rpc, SERVED_VERSIONS, testServer } from "../helpers/rpc";
import { withLogs } from "../helpers/wire";
import { skillServer } from "../skills/fixture";
import { TASK_CLIENT, taskTools } from "../tasks/fixtures";
import { SERVER_CARD_SCHEMA } from "./server-card-schema";

const ORIGIN = "http://localhost:8787";
const PATHS = ["/mcp/server-card", "/.well-known/mcp/server-card.json"];
const MEDIA_TYPE = "application/mcp-server-card+json";
/** What the card needs of a server beyond the fixture's declarations: a reverse-DNS name and a description. */
const CARDED = {
  ...FIXTURE,
  name: "io.github.example/engine-fixture",
  description: "A fixture for the engine's tests.",
  websiteUrl: "https://example.com/docs",
  serverCard: true,
} satisfies ServerDefinition & EngineOptions;

type Target = ReturnType<typeof testServer>;
/** A request as Cloudflare hands it to the Worker: its URL's origin is the Host the caller sent. */
const at = (origin: string, path: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
  new Request(`${origin}${path}`, { ...init, headers: { ...init.headers, host: new URL(origin).host } });
const cardOf = async (target: Pick<Target, "fetch">, path = PATHS[0]!, origin = ORIGIN) => {
  const response = await target.fetch(at(origin, path));
  expect(response.status, path).toBe(200);
  return (await response.json()) as Json & { remotes: Json[] };
};

const cardSchema = new Validator({ ...SERVER_CARD_SCHEMA, $ref: "#/$defs/ServerCard" } as never, "2020-12", false);
const schemaErrors = (card: unknown) => cardSchema.validate(card).errors.map((error) => `${error.instanceLocation}: ${error.error}`);

describe("the server card, off (the default)", () => {
  it("answers both paths, with every method, exactly as it answers a path it does not know", async () => {
    const unknown = await fixture.fetch(at(ORIGIN, "/no-such-path"));
    expect(unknown.status).toBe(404);
    const unknownText = await unknown.text();
    for (const path of PATHS) {
      for (const method of ["GET", "HEAD", "POST"]) {
        const response = await fixture.fetch(at(ORIGIN, path, { method }));
        expect(response.status, `${method} ${path}`).toBe(404);
        if (method !== "HEAD") expect(await response.text()).toBe(unknownText);
      }
    }
    // `serverCard: false` is the same as leaving it out, and a server that could not have a card still starts.
    const off = testServer({ ...FIXTURE, serverCard: false });
    for (const path of PATHS) expect((await off.fetch(at(ORIGIN, path))).status, path).toBe(404);
    // In authorization-server mode both paths go where they always went: the well-known one to the engine (404), the
    // one under /mcp to the provider, which wants a token for every path there.
    const worker = createMcpWorker({ ...FIXTURE, authorizationServer });
    const bindings = { ...env, ...LOGIN, OAUTH_RATE_LIMITER: undefined } as unknown as Env;
    expect((await worker.fetch(at(ORIGIN, PATHS[1]!), bindings, createExecutionContext())).status).toBe(404);
    expect((await worker.fetch(at(ORIGIN, PATHS[0]!), bindings, createExecutionContext())).status).toBe(401);
  });
});

describe("the server card, on", () => {
  const carded = testServer(CARDED);

  it("is the same document on both paths, built from the server's declarations and its endpoint", async () => {
    const [first, second] = await Promise.all(PATHS.map((path) => carded.fetch(at(ORIGIN, path))));
    const body = await first!.text();
    expect(await second!.text()).toBe(body);
    expect(second!.headers.get("etag")).toBe(first!.headers.get("etag"));
    expect(JSON.parse(body)).toEqual({
      $schema: "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json",
      name: "io.github.example/engine-fixture",
      version: "1.0.0",
      description: "A fixture for the engine's tests.",
      title: "Engine fixture",
      websiteUrl: "https://example.com/docs",
      remotes: [{ type: "streamable-http", url: `${ORIGIN}/mcp`, supportedProtocolVersions: SERVED_VERSIONS }],
    });
  });

  it("names the endpoint by the origin the request came to", async () => {
    expect((await cardOf(carded, PATHS[1], "http://127.0.0.1:8787")).remotes[0]!.url).toBe("http://127.0.0.1:8787/mcp");
  });

  it("answers in the card's media type to a client that accepts it, and in application/json to one that asks for that or names none", async () => {
    const typeFor = async (accept: string | undefined) =>
      (await carded.fetch(at(ORIGIN, PATHS[0]!, { headers: accept === undefined ? {} : { accept } }))).headers.get("content-type");
    expect(await typeFor(MEDIA_TYPE)).toBe(MEDIA_TYPE);
    expect(await typeFor("*/*")).toBe(MEDIA_TYPE);
    expect(await typeFor("application/json")).toBe("application/json");
    expect(await typeFor(`${MEDIA_TYPE};q=0, application/json`)).toBe("application/json");
    expect(await typeFor(undefined)).toBe("application/json");
    // The same bytes either way; a cache keeps one copy per Accept.
    expect((await carded.fetch(at(ORIGIN, PATHS[0]!))).headers.get("vary")).toBe("Accept");
  });

  it("sends a strong ETag, the SHA-256 of the body, and answers 304 without a body when If-None-Match names it", async () => {
    const asCard = { accept: MEDIA_TYPE };
    const response = await carded.fetch(at(ORIGIN, PATHS[0]!, { headers: asCard }));
    const body = await response.text();
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(body)));
    const etag = `"${digest.toBase64({ alphabet: "base64url", omitPadding: true })}"`;
    expect(response.headers.get("etag")).toBe(etag);
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const revalidated = await carded.fetch(at(ORIGIN, PATHS[1]!, { headers: { ...asCard, "if-none-match": ifNoneMatch } }));
      expect(revalidated.status, ifNoneMatch).toBe(304);
      expect(await revalidated.text()).toBe("");
      expect(revalidated.headers.get("etag")).toBe(etag);
      expect(revalidated.headers.get("cache-control")).toBe("public, max-age=3600");
    }
    const changed = await carded.fetch(at(ORIGIN, PATHS[0]!, { headers: { ...asCard, "if-none-match": '"an-older-card"' } }));
    expect([changed.status, await changed.text()]).toEqual([200, body]);
  });

  it("gives each media type its own ETag, so a cache that keeps both (Vary: Accept) never refreshes one with the other", async () => {
    const get = (accept: string, ifNoneMatch?: string) =>
      carded.fetch(at(ORIGIN, PATHS[0]!, { headers: { accept, ...(ifNoneMatch && { "if-none-match": ifNoneMatch }) } }));
    const card = await get(MEDIA_TYPE);
    const json = await get("application/json");
    const [cardTag, jsonTag] = [card.headers.get("etag")!, json.headers.get("etag")!];
    expect(await card.text()).toBe(await json.text());
    expect(jsonTag).not.toBe(cardTag);
    expect(jsonTag).toMatch(/^"[A-Za-z0-9_-]+\.json"$/);
    expect((await get(MEDIA_TYPE, jsonTag)).status).toBe(200);
    expect((await get("application/json", cardTag)).status).toBe(200);
    const revalidated = await get("application/json", jsonTag);
    expect([revalidated.status, revalidated.headers.get("etag")]).toEqual([304, jsonTag]);
  });

  it("builds the card once per origin, not per request", async () => {
    const target = testServer(CARDED);
    const digest = vi.spyOn(crypto.subtle, "digest");
    try {
      for (let request = 0; request < 3; request++) for (const path of PATHS) await cardOf(target, path);
      expect(digest).toHaveBeenCalledTimes(1);
      await cardOf(target, PATHS[0], "http://127.0.0.1:8787");
      await cardOf(target, PATHS[1], "http://127.0.0.1:8787");
      expect(digest).toHaveBeenCalledTimes(2);
    } finally {
      digest.mockRestore();
    }
  });

  it("answers HEAD with the headers of GET and no body", async () => {
    const get = await carded.fetch(at(ORIGIN, PATHS[0]!));
    for (const path of PATHS) {
      const head = await carded.fetch(at(ORIGIN, path, { method: "HEAD" }));
      expect(head.status, path).toBe(200);
      expect(await head.text()).toBe("");
      for (const name of ["etag", "content-type", "cache-control", "vary", "access-control-allow-origin"]) {
        expect(head.headers.get(name), name).toBe(get.headers.get(name));
      }
    }
  });

  it("refuses every other method with 405, naming GET, HEAD and OPTIONS", async () => {
    for (const path of PATHS) {
      for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
        const refused = await carded.fetch(at(ORIGIN, path, { method, ...(method !== "DELETE" && { body: "{}" }) }));
        expect(refused.status, `${method} ${path}`).toBe(405);
        expect(refused.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
      }
    }
  });

  it("can be read by a page on any origin, ETag included, even one the server's own CORS would refuse", async () => {
    for (const origin of ["https://registry.example", "http://localhost:6274"]) {
      const response = await carded.fetch(at(ORIGIN, PATHS[0]!, { headers: { origin } }));
      expect(response.headers.get("access-control-allow-origin"), origin).toBe("*");
      expect(response.headers.get("access-control-expose-headers"), origin).toBe("ETag");
      expect(response.headers.get("vary"), origin).toBe("Accept");
    }
    // A cross-origin conditional GET is preflighted (If-None-Match is not a safelisted header).
    const preflight = await carded.fetch(
      at(ORIGIN, PATHS[1]!, {
        method: "OPTIONS",
        headers: {
          origin: "https://registry.example",
          "access-control-request-method": "GET",
          "access-control-request-headers": "if-none-match",
        },
      }),
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-methods")).toBe("GET, HEAD");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("If-None-Match");
    // The MCP endpoint itself stays behind the allow-list.
    const mcpPreflight = await carded.fetch(at(ORIGIN, "/mcp", { method: "OPTIONS", headers: { origin: "https://registry.example" } }));
    expect(mcpPreflight.status).toBe(403);
  });

  it("may be cached for an hour", async () => {
    expect((await carded.fetch(at(ORIGIN, PATHS[0]!))).headers.get("cache-control")).toBe("public, max-age=3600");
  });

  it("publishes no domain-level catalog, on either path the drafts have named for one", async () => {
    for (const path of ["/.well-known/ai-catalog.json", "/.well-known/mcp/catalog.json"]) {
      expect((await carded.fetch(at(ORIGIN, path))).status, path).toBe(404);
    }
  });

  it("answers 503 on both paths, naming no setting, while the configuration is invalid", async () => {
    const unconfigured = testServer(CARDED, { MCP_ENV: "production", STATE_KEYS: "", ALLOWED_HOSTS: "mcp.example.com" });
    for (const path of PATHS) {
      const { value: response } = await withLogs(() => unconfigured.fetch(at("http://mcp.example.com", path)));
      expect(response.status, path).toBe(503);
      expect(await response.json()).toEqual({
        jsonrpc: "2.0",
        error: { code: -32603, message: "Service unavailable: server configuration is invalid" },
      });
    }
  });

  it("carries the repository the option names", async () => {
    const repository = { url: "https://github.com/example/notes", source: "github", subfolder: "server" };
    const card = await cardOf(testServer({ ...CARDED, serverCard: { repository } }));
    expect(card.repository).toEqual(repository);
    expect(schemaErrors(card)).toEqual([]);
  });
});

describe("the server card and the Host check", () => {
  const OTHER = "http://other-service.example";
  const THIS_SERVER = "http://mcp.example.com";

  it("in production with ALLOWED_HOSTS, refuses any other Host on both paths and never names it", async () => {
    const target = testServer(CARDED, { MCP_ENV: "production", ALLOWED_HOSTS: "mcp.example.com" });
    for (const path of PATHS) {
      for (const method of ["GET", "HEAD", "OPTIONS"]) {
        const refused = await target.fetch(at(OTHER, path, { method }));
        expect(refused.status, `${method} ${path}`).toBe(403);
        expect(await refused.text()).not.toContain("other-service");
      }
      expect((await cardOf(target, path, THIS_SERVER)).remotes[0]!.url).toBe(`${THIS_SERVER}/mcp`);
    }
  });

  it("in development, serves loopback hosts only", async () => {
    const target = testServer(CARDED);
    for (const path of PATHS) expect((await target.fetch(at(OTHER, path))).status, path).toBe(403);
  });
});

describe("the server card with authorization on", () => {
  let issuer: Awaited<ReturnType<typeof localIssuer>>;
  beforeAll(async () => {
    issuer = await localIssuer();
  });
  const withoutAuthorization = () => cardOf(testServer(CARDED));

  it("is read without a token from a resource server, and is the card it serves without authorization", async () => {
    const target = testServer(CARDED, issuer.vars);
    expect((await target.send("server/discover")).status).toBe(401);
    for (const path of PATHS) expect(await cardOf(target, path)).toEqual(await withoutAuthorization());
  });

  it("is read without a token from the built-in authorization server, on both paths, while /mcp still demands one", async () => {
    const worker = createMcpWorker({ ...CARDED, authorizationServer });
    const bindings = { ...env, ...LOGIN, OAUTH_RATE_LIMITER: undefined } as unknown as Env;
    const target = rpc((request) => worker.fetch(request, bindings, createExecutionContext()));
    for (const path of PATHS) expect(await cardOf(target, path)).toEqual(await withoutAuthorization());
    expect((await target.send("server/discover")).status).toBe(401);
    expect((await target.fetch(at("http://other-service.example", PATHS[0]!))).status).toBe(403);
  });
});

describe("a server the card cannot describe", () => {
  const start = (definition: Partial<ServerDefinition & EngineOptions>) => () => createMcpWorker({ ...CARDED, ...definition });
  const validate = (definition: Partial<ServerDefinition & EngineOptions>) => () =>
    validateServer({ ...CARDED, ...definition } as ServerDefinition);

  it("does not start without a reverse-DNS name of 3 to 200 characters, naming the name it got", () => {
    for (const name of ["engine-fixture", "a/b/c", "io.example/", "/notes", "io example/notes", `io.example/${"n".repeat(190)}`]) {
      expect(start({ name }), name).toThrow(/serverCard needs a reverse-DNS server name/);
      expect(validate({ name }), name).toThrow(/serverCard needs a reverse-DNS server name/);
    }
    expect(start({ name: "engine-fixture" })).toThrow('(got "engine-fixture")');
    expect(start({ name: "a/b" })).not.toThrow();
    expect(start({ name: `io.example/${"n".repeat(189)}` })).not.toThrow();
    // Without the card the name is free-form, as before.
    expect(start({ name: "engine-fixture", serverCard: false })).not.toThrow();
  });

  it("does not start without a description of 1 to 100 characters, counted as the schema counts them (code points)", () => {
    expect(start({ description: undefined })).toThrow(/serverCard needs a description of 1 to 100 characters/);
    expect(start({ description: "" })).toThrow(/description of 1 to 100/);
    expect(start({ description: "d".repeat(101) })).toThrow(/description of 1 to 100/);
    expect(start({ description: "d".repeat(100) })).not.toThrow();
    // 100 characters outside the BMP: 200 UTF-16 units, still 100 characters.
    expect(start({ description: "\u{1F4D3}".repeat(100) })).not.toThrow();
    expect(start({ description: "\u{1F4D3}".repeat(101) })).toThrow(/description of 1 to 100/);
  });

  it("does not start with a title over 100 characters, a version range, or a version over 255 characters", () => {
    expect(start({ title: "t".repeat(101) })).toThrow(/serverCard needs a title of 1 to 100 characters/);
    expect(start({ title: "t".repeat(100) })).not.toThrow();
    for (const version of ["^1.2.3", "~1.2", ">=1.0.0", "1.x", "1.*", "1.0 - 2.0", "1 || 2", "v".repeat(256)]) {
      expect(start({ version }), version).toThrow(/serverCard needs an exact version of at most 255 characters/);
    }
    for (const version of ["1.0.0", "2.1.0-alpha", "2026.12.01", "v".repeat(255)]) expect(start({ version }), version).not.toThrow();
  });

  it("does not start with a repository that is not an http(s) URL with a source, nor with a websiteUrl that is not one", () => {
    expect(start({ serverCard: { repository: { url: "git@github.com:example/notes.git", source: "github" } } })).toThrow(
      /serverCard needs repository\.url to be an http or https URL/,
    );
    expect(start({ serverCard: { repository: { url: "https://github.com/example/notes", source: "" } } })).toThrow(/repository\.source/);
    // websiteUrl goes into serverInfo too, so it is checked with the card off as well.
    for (const websiteUrl of ["example.com", "javascript:alert(1)", "ftp://example.com/"]) {
      expect(start({ websiteUrl, serverCard: false }), websiteUrl).toThrow("createMcpWorker: websiteUrl must be an http or https URL");
    }
  });
});

describe("the card and server/discover never disagree", () => {
  const UI = "io.modelcontextprotocol/ui";
  const RENDERS_VIEWS = { extensions: { [UI]: { mimeTypes: ["text/html;profile=mcp-app"] } } };
  /** A client that takes everything the server may offer, so discover shows every capability and extension. */
  const EVERYTHING = { ...TASK_CLIENT, extensions: { ...TASK_CLIENT.extensions, ...RENDERS_VIEWS.extensions } };
  const view = defineView({ uri: "ui://fixture/card", name: "card", asset: "/views/card.html" });
  const viewTool = defineTool({
    name: "show",
    description: "Shows a view.",
    input: z.strictObject({}),
    view,
    handler: () => ({ content: [text("shown")] }),
  });
  const viewAssets = { fetch: async () => new Response("<!doctype html><p>view</p>") } as unknown as Fetcher;
  const icons = [{ src: "https://example.com/icon.png", mimeType: "image/png", sizes: ["48x48"] }];

  interface Case {
    name: string;
    /** Serves the Worker's requests; `headers` go on every MCP request (a bearer token). */
    serve: () => Promise<{ target: Pick<Target, "fetch" | "send" | "post">; headers?: Record<string, string> }>;
    /** An extension discover must show for this server (so the case is one that offers something the card leaves out). */
    extension?: string;
    legacyClients?: boolean;
  }
  const CASES: Case[] = [
    { name: "tools, resources and prompts, with icons", serve: async () => ({ target: testServer({ ...CARDED, icons }) }) },
    {
      name: "2026-07-28 only (legacyClients off)",
      legacyClients: false,
      serve: async () => ({ target: testServer({ ...CARDED, legacyClients: false }) }),
    },
    {
      name: "tasks",
      extension: "io.modelcontextprotocol/tasks",
      serve: async () => ({ target: testServer({ ...CARDED, tools: taskTools }) }),
    },
    {
      name: "views",
      extension: UI,
      serve: async () => {
        const worker = createMcpWorker({ ...CARDED, tools: [...CARDED.tools, viewTool] });
        const bindings = { ...env, ASSETS: viewAssets } as unknown as Env;
        return { target: rpc((request) => worker.fetch(request, bindings, createExecutionContext())) };
      },
    },
    {
      name: "skills",
      extension: "io.modelcontextprotocol/skills",
      serve: async () => ({ target: await skillServer({ definition: { ...CARDED } as Partial<ServerDefinition> }) }),
    },
    {
      name: "a resource server (AUTH_ISSUER)",
      serve: async () => {
        const issuer = await localIssuer();
        return { target: testServer(CARDED, issuer.vars), headers: { authorization: `Bearer ${await issuer.token()}` } };
      },
    },
    {
      name: "the built-in authorization server (AUTH_LOGIN), as the provider hands it a verified grant",
      serve: async () => {
        const loginEnv = { ...env, ...LOGIN } as unknown as Env;
        const router = createRouter(new McpServer(CARDED), {});
        const loaded = parseConfig(loginEnv as unknown as Record<string, unknown>, resolveOptions());
        const execution = () => Object.assign(createExecutionContext(), { props: { id: "oidc-alice" }, auth: { scope: [] } });
        return { target: rpc((request) => router.fetch(request, loginEnv, execution(), loaded)) };
      },
    },
  ];
  const IDENTITY = ["name", "version", "title", "description", "websiteUrl", "icons"] as const;
  const identityOf = (info: Json) =>
    Object.fromEntries(IDENTITY.filter((field) => info[field] !== undefined).map((field) => [field, info[field]]));
  const CARD_FIELDS = Object.keys(SERVER_CARD_SCHEMA.$defs.ServerCard.properties);
  const REMOTE_FIELDS = Object.keys(SERVER_CARD_SCHEMA.$defs.Remote.properties);

  for (const { name, serve, extension, legacyClients = true } of CASES) {
    it(`agree for ${name}: same identity, same protocol versions, no capability claimed, valid against the schema`, async () => {
      const { target, headers = {} } = await serve();
      const card = await cardOf(target);
      const discovered = await readMessage(await target.send("server/discover", {}, { capabilities: EVERYTHING, headers }));
      expect(discovered.error).toBeUndefined();
      const { supportedVersions, capabilities, _meta } = discovered.result as Json & { capabilities: Json; _meta: Json };
      const serverInfo = _meta["io.modelcontextprotocol/serverInfo"] as Json;
      expect(identityOf(card)).toEqual(identityOf(serverInfo));
      expect(identityOf(card)).toMatchObject({ name: CARDED.name, description: CARDED.description });
      expect(card.remotes).toHaveLength(1);
      expect(card.remotes[0]!.supportedProtocolVersions).toEqual(supportedVersions);
      if (extension) expect(Object.keys(capabilities.extensions as Json), name).toContain(extension);
      // The card describes connecting, never what a connection negotiates: only the schema's own fields.
      for (const field of Object.keys(card)) expect(CARD_FIELDS, field).toContain(field);
      for (const field of Object.keys(card.remotes[0]!)) expect(REMOTE_FIELDS, field).toContain(field);
      expect(schemaErrors(card)).toEqual([]);
      if (!legacyClients) return;
      const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {} } };
      const legacyHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers };
      const initialized = (await readMessage(await target.post(initialize, legacyHeaders))).result as Json & { serverInfo: Json };
      expect(identityOf(card)).toEqual(identityOf(initialized.serverInfo));
      expect(card.remotes[0]!.supportedProtocolVersions).toContain(initialized.protocolVersion);
    });
  }

  it("the schema refuses what the card must never be (so a valid card is a real result)", async () => {
    const card = await cardOf(testServer(CARDED));
    expect(schemaErrors({ ...card, name: "engine-fixture" })).not.toEqual([]);
    expect(schemaErrors({ ...card, description: "d".repeat(101) })).not.toEqual([]);
    const { description: _description, ...undescribed } = card;
    expect(schemaErrors(undescribed)).not.toEqual([]);
    expect(schemaErrors({ ...card, remotes: [{ type: "websocket", url: "wss://example.com/mcp" }] })).not.toEqual([]);
  });
});
