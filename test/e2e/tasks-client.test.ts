/**
 * The official TypeScript client (@modelcontextprotocol/client 2.4.0) has no Tasks extension support: it does not
 * declare `io.modelcontextprotocol/tasks`, so the example's long-running tool runs synchronously for it, its
 * mid-way question answered through a multi round-trip round.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, inject, it } from "vitest";

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

describe("official client without task support", () => {
  it("completes retag_notebook synchronously, answering its question through elicitation", async () => {
    const client = new Client(
      { name: "e2e", version: "1.0.0" },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    const asked: string[] = [];
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(String(request.params.message));
      return { action: "accept", content: { apply: true, mode: "add" } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(inject("mcpUrl"))));
    open.push(client);
    const notebook = ((await client.callTool({ name: "create_notebook", arguments: {} })) as any).structuredContent.notebook_id;
    for (const index of [1, 2, 3]) {
      await client.callTool({
        name: "add_note",
        arguments: { notebook_id: notebook, title: `Garden ${index}`, body: "Tomatoes and basil." },
      });
    }
    const result: any = await client.callTool({ name: "retag_notebook", arguments: { notebook_id: notebook } });
    expect(result.content[0].text).toBe("Retagged the notebook (add): 3 of 3 notes got new tags.");
    expect(asked).toEqual([expect.stringContaining("3 of 3 notes would get new tags")]);
  });
});
