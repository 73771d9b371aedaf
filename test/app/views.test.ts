/**
 * The notebook view of the example: search_notes names it, and a host that renders views reads the built HTML
 * (the test run builds it first: vitest's global setup) through the ASSETS binding. Without the binding (removed
 * from wrangler.toml) no view is offered, and these tests do not apply.
 * The view learns of changes from the results a host forwards to it: a result that changed a notebook names it in
 * `_meta["notes/changed"]` (views/notebook/main.ts reads it); that part holds with or without the binding.
 */
import { env } from "cloudflare:workers";
import { accept, connect, decline } from "mcp-workers-engine/testing";
import { describe, expect, it } from "vitest";
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

describe("the results that tell a view its notebook changed", () => {
  const CHANGED = "notes/changed";
  const forms = { elicitation: { form: {} } };

  it("name the notebook, with a new change id each time, in the result of every tool that changed it", async () => {
    const client = await connect(fetchApp, {
      capabilities: forms,
      answers: {
        confirm: accept({ delete: true }),
        details: accept({ audience: "team", length: "short" }),
        written: accept({ body: "Ship on Monday." }),
        save: accept({ save: true }),
        apply: accept({ apply: true, mode: "add" }),
      },
    });
    const notebook_id = (await client.callTool("create_notebook", { title: "Watched" })).structuredContent.notebook_id;
    const added = await client.callTool("add_note", { notebook_id, title: "Garden", body: "Plant tomatoes; water the tomatoes." });
    const note_id = added.structuredContent.id;
    const results = [
      added,
      await client.callTool("update_note", { notebook_id, note_id, body: "Plant basil and tomatoes." }),
      await client.callTool("draft_note", { notebook_id, topic: "Launch plan" }),
      await client.callTool("retag_notebook", { notebook_id }),
      await client.callTool("delete_note", { notebook_id, note_id }),
    ];
    const changes = results.map((result) => result._meta?.[CHANGED] as { change_id: string } | undefined);
    for (const change of changes) expect(change).toEqual({ notebook_id, change_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(new Set(changes.map((change) => change?.change_id)).size).toBe(results.length);
  });

  it("are never reads, refusals or a deletion the user declined", async () => {
    const declining = await connect(fetchApp, { capabilities: forms, answers: { confirm: decline() } });
    const notebook_id = (await declining.callTool("create_notebook", { title: "Quiet" })).structuredContent.notebook_id;
    const note_id = (await declining.callTool("add_note", { notebook_id, title: "Kept", body: "x" })).structuredContent.id;
    const results = [
      await declining.callTool("search_notes", { notebook_id, query: "" }),
      await declining.callTool("get_note", { notebook_id, note_id }),
      await declining.callTool("delete_note", { notebook_id, note_id }),
      await declining.callTool("update_note", { notebook_id, note_id: "n_000000000000", body: "y" }),
      await declining.callTool("add_note", { notebook_id, title: "x".repeat(201), body: "too long a title" }),
    ];
    expect(results.map((result) => result.isError ?? false)).toEqual([false, false, false, true, true]);
    expect(results.map((result) => result._meta?.[CHANGED])).toEqual(Array(results.length).fill(undefined));
  });
});
