/**
 * The notebook view of the example: search_notes names it, and a host that renders views reads the built HTML
 * (the test run builds it first: vitest's global setup) through the ASSETS binding. Without the binding (removed
 * from wrangler.toml) no view is offered, and these tests do not apply.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { connect } from "../../src/mcp/testing";
import { fetchApp } from "./app";

const RENDERS_VIEWS = { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } };

describe.runIf((env as { ASSETS?: unknown }).ASSETS !== undefined)("the notebook view", () => {
  it("is named by search_notes, for hosts that render views only", async () => {
    const named = async (capabilities: Record<string, unknown>) => {
      const { tools } = await (await connect(fetchApp, { capabilities })).listTools();
      return tools.filter((tool: any) => tool._meta?.ui).map((tool: any) => [tool.name, tool._meta.ui.resourceUri]);
    };
    expect(await named(RENDERS_VIEWS)).toEqual([["search_notes", "ui://notes/notebook"]]);
    expect(await named({})).toEqual([]);
  });

  it("reads as one self-contained HTML document: script and style inline, nothing loaded from an origin", async () => {
    const host = await connect(fetchApp, { capabilities: RENDERS_VIEWS });
    const { contents } = await host.readResource("ui://notes/notebook");
    const [view] = contents;
    expect(view!.mimeType).toBe("text/html;profile=mcp-app");
    expect(view!._meta).toEqual({ ui: { prefersBorder: true } });
    expect(view!.text).toMatch(/^<!doctype html>/i);
    expect(view!.text).toContain('<script type="module">');
    expect(view!.text).toContain("<style>");
    // In the host's sandbox (origin null, CSP without origins) a script or stylesheet by URL would not load.
    expect(view!.text).not.toMatch(/<script[^>]*\ssrc=|<link[^>]*stylesheet/i);
  });
});
