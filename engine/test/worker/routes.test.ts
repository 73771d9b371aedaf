/**
 * POST /mcp is matched without the router (worker/router.ts), exactly as the router matched it: the path `/mcp`
 * with any trailing slashes, whatever the query (a `/` in it included), read from the URL's text without parsing it;
 * every other path goes through the router as before. What tells the two apart: itty-router marks every request it
 * routes (`request.query`, then `request.params` and `request.route`), which the fast path never does; and what the
 * router would match is asked of itty-router itself, a bare router with `post("/mcp")` alone, so the fast path is
 * held to the router's matching, whatever it becomes.
 */
import { IttyRouter } from "itty-router";
import { describe, expect, it } from "vitest";
import { fixture, meta, standardHeaders } from "../helpers/rpc";

const ORIGIN = "http://localhost:8787";

const listRequest = (path: string, method = "POST") =>
  new Request(`${ORIGIN}${path}`, {
    method,
    headers: standardHeaders("tools/list"),
    body: method === "POST" ? JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta() } }) : undefined,
  });

const list = (path: string, method = "POST") => fixture.fetch(listRequest(path, method));

/** Whether itty-router's `post("/mcp")` matches a POST to `path`: asked of a bare router with that route alone. */
async function routerMatches(path: string): Promise<boolean> {
  const reference = IttyRouter()
    .post("/mcp", () => new Response("the route"))
    .all("*", () => new Response("no route"));
  return (await (await reference.fetch(new Request(`${ORIGIN}${path}`, { method: "POST" }))).text()) === "the route";
}

/** Whether serving `request` went through the router: itty-router sets `query` on every request it routes. */
const routed = (request: Request) => (request as unknown as { query?: unknown }).query !== undefined;

/** Paths a client could send, spelled as the router's matching may or may not take them. */
const PATHS = [
  "/mcp",
  "/mcp/",
  "/mcp//",
  "/mcp?x=1",
  "/mcp/?access=none",
  "/mcp?next=/api/x#y",
  "/mcp#fragment",
  "/x/../mcp",
  "/mcp/./",
  "/MCP",
  "/Mcp/",
  "//mcp",
  "/%6Dcp",
  "/mcp%2F",
  "/mcp;x",
  "/mcp/x",
  "/mcpx",
  "/api/mcp",
];

describe("the MCP endpoint's route", () => {
  it("serves POST on /mcp with trailing slashes or a query as /mcp, as the router always matched it", async () => {
    for (const path of ["/mcp", "/mcp/", "/mcp//", "/mcp?x=1", "/mcp/?access=none"]) {
      const response = await list(path);
      expect(response.status, path).toBe(200);
      expect(await response.json(), path).toMatchObject({ jsonrpc: "2.0", id: 1, result: { tools: expect.any(Array) } });
    }
  });

  it("never consults the router for POST /mcp, and consults it for every path its post('/mcp') does not match: the two agree on every path of a table", async () => {
    const matched: string[] = [];
    for (const path of PATHS) {
      const matches = await routerMatches(path);
      if (matches) matched.push(path);
      const request = listRequest(path);
      const response = await fixture.fetch(request);
      expect({ path, routed: routed(request) }).toEqual({ path, routed: !matches });
      expect(response.status, path).toBe(matches ? 200 : 404);
    }
    // The table holds paths of both kinds: those the router takes as /mcp, and those it does not.
    expect(matched).toEqual([
      "/mcp",
      "/mcp/",
      "/mcp//",
      "/mcp?x=1",
      "/mcp/?access=none",
      "/mcp?next=/api/x#y",
      "/mcp#fragment",
      "/x/../mcp",
      "/mcp/./",
    ]);
  });

  it("leaves every other path and method to the router: 404 for a path that only starts like /mcp, 405 for PUT /mcp/", async () => {
    for (const path of ["/mcpx", "/mcp/other", "/MCP", "/api/mcp"]) {
      expect((await list(path)).status, path).toBe(404);
    }
    const put = listRequest("/mcp/", "PUT");
    expect((await fixture.fetch(put)).status).toBe(405);
    expect(routed(put)).toBe(true);
  });
});
