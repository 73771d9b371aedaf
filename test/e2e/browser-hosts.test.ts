/**
 * The MCP hosts that run in a browser reach the deployed configuration: `wrangler dev` of the template's
 * wrangler.toml in production mode (a copy, with `.dev.vars` setting MCP_ENV and a STATE_KEYS beside it), default
 * settings otherwise. ChatGPT's and claude.ai's page origins are served with CORS headers, an origin no list names is
 * refused by name.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_BINDINGS } from "../../vitest.config";
import { modernRequest } from "../wire";
import { type DevCopy, startCopyWithSettings } from "./dev-server";

describe("browser-based MCP hosts against the template in production mode", () => {
  let copy: DevCopy;
  let origin: string;
  const discoverFrom = (pageOrigin: string) => {
    const request = modernRequest(`${origin}/mcp`, { id: 1, method: "server/discover" });
    request.headers.set("origin", pageOrigin);
    return fetch(request);
  };

  beforeAll(async () => {
    // Not `npm run dev`'s arguments: those set development mode.
    copy = await startCopyWithSettings(`MCP_ENV=production\nSTATE_KEYS=${TEST_BINDINGS.STATE_KEYS}\n`);
    origin = copy.origin;
  }, 60_000);

  afterAll(async () => {
    await copy?.stop();
  });

  it("serves ChatGPT's and claude.ai's pages, with CORS headers for them", async () => {
    for (const page of ["https://chatgpt.com", "https://claude.ai"]) {
      const response = await discoverFrom(page);
      expect(response.status, page).toBe(200);
      expect(response.headers.get("access-control-allow-origin")).toBe(page);
      expect(await response.json()).toMatchObject({ result: { supportedVersions: expect.any(Array) } });
    }
  });

  it("refuses an origin no list names with 403, naming it", async () => {
    const response = await discoverFrom("https://evil.example");
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({
      error: { message: 'Forbidden: Origin "https://evil.example" is not allowed (ALLOWED_ORIGINS adds an origin)' },
    });
  });

  it("refuses a loopback page: trusted in development only", async () => {
    expect((await discoverFrom("http://localhost:3000")).status).toBe(403);
  });
});
