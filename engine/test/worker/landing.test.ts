import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { defineTool } from "../../src";
import { FIXTURE } from "../helpers/fixture";
import { fixture, testServer } from "../helpers/rpc";

const page = (server = fixture) => server.fetch("http://localhost:8787/");

describe("landing page", () => {
  it("names the server and lists its tools, resources and prompts with the endpoint and connection snippets", async () => {
    const response = await page();
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await response.text();
    for (const text of [
      `<title>${FIXTURE.title} · MCP server</title>`,
      ...FIXTURE.tools.map((tool) => tool.name),
      "fixture://readme",
      "fixture://values/{key}",
      ...FIXTURE.prompts.map((prompt) => prompt.name),
      "http://localhost:8787/mcp",
      "mcp-remote",
      ".vscode/mcp.json",
    ]) {
      expect(html).toContain(text);
    }
  });

  it("runs only its own script and refuses to be framed", async () => {
    const response = await page();
    const csp = response.headers.get("content-security-policy")!;
    const nonce = /'nonce-([^']+)'/.exec(csp)![1];
    expect(await response.text()).toContain(`<script nonce="${nonce}">`);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
  });

  it("escapes whatever a tool declares", async () => {
    const sneaky = defineTool({
      name: "sneaky",
      description: '<img src=x onerror="alert(1)">',
      input: z.strictObject({}),
      handler: () => ({ content: [] }),
    });
    const html = await (await page(testServer({ tools: [sneaky] }))).text();
    expect(html).toContain("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;");
    expect(html).not.toContain("<img");
  });

  it("lists nothing when authorization is on, and reveals no configuration", async () => {
    const server = testServer(
      { tools: [defineTool({ name: "hidden_tool", description: "x", input: z.strictObject({}), handler: () => ({ content: [] }) })] },
      {
        AUTH_ISSUER: "https://issuer.example",
        AUTH_JWKS: '{"keys":[]}',
      },
    );
    const html = await (await page(server)).text();
    expect(html).toContain("requires authorization");
    expect(html).not.toContain("hidden_tool");
    expect(html).not.toContain("issuer.example");
  });
});

describe("landing page while the configuration is invalid", () => {
  it("answers 503 naming the settings to fix, never their values, and how to fix them", async () => {
    const unconfigured = testServer({}, { MCP_ENV: "production", STATE_KEYS: "", ALLOWED_ORIGINS: "not an origin, secret-value-123" });
    const response = await page(unconfigured);
    expect(response.status).toBe(503);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const html = await response.text();
    expect(html).toContain("STATE_KEYS is not set");
    expect(html).toContain("npm run dev");
    expect(html).not.toContain("secret-value-123");
  });

  it("tells mcp-remote to allow plain http for a local endpoint, and pins the Inspector", async () => {
    const html = await (await page()).text();
    expect(html).toContain("--allow-http");
    expect(html).toContain("@modelcontextprotocol/inspector@2.12.0");
  });
});
