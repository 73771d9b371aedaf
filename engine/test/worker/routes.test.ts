/**
 * POST /mcp is matched without the router (worker/router.ts), exactly as the router matched it: the path `/mcp`
 * with any trailing slashes, whatever the query; every other path goes through the router as before.
 */
import { describe, expect, it } from "vitest";
import { fixture, meta, standardHeaders } from "../helpers/rpc";

const list = (url: string, method = "POST") =>
  fixture.fetch(url, {
    method,
    headers: standardHeaders("tools/list"),
    body: method === "POST" ? JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta() } }) : undefined,
  });

describe("the MCP endpoint's route", () => {
  it("serves POST on /mcp with trailing slashes or a query as /mcp, as the router always matched it", async () => {
    for (const path of ["/mcp", "/mcp/", "/mcp//", "/mcp?x=1", "/mcp/?access=none"]) {
      const response = await list(`http://localhost:8787${path}`);
      expect(response.status, path).toBe(200);
      expect(await response.json(), path).toMatchObject({ jsonrpc: "2.0", id: 1, result: { tools: expect.any(Array) } });
    }
  });

  it("leaves every other path and method to the router: 404 for a path that only starts like /mcp, 405 for PUT /mcp/", async () => {
    for (const path of ["/mcpx", "/mcp/other", "/MCP", "/api/mcp"]) {
      expect((await list(`http://localhost:8787${path}`)).status, path).toBe(404);
    }
    expect((await list("http://localhost:8787/mcp/", "PUT")).status).toBe(405);
  });
});
