/**
 * The official TypeScript client (@modelcontextprotocol/client 2.4.0), pinned to 2026-07-28, against the
 * running Worker: discovery, every example tool, a resource, a prompt, completion, and multi round-trip input.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, inject, it } from "vitest";
import { appBinds, EXAMPLE_TOOLS } from "./app-bindings";

type Answers = { elicit?: (params: any) => any; sample?: (params: any) => string; roots?: () => { uri: string; name?: string }[] };

const open: Client[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});

async function connect(capabilities: Record<string, object> = {}, answers: Answers = {}) {
  const client = new Client({ name: "e2e", version: "1.0.0" }, { capabilities, versionNegotiation: { mode: { pin: "2026-07-28" } } });
  const asked: string[] = [];
  if (capabilities.elicitation) {
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(`elicit:${request.params.message}`);
      return answers.elicit!(request.params);
    });
  }
  if (capabilities.sampling) {
    client.setRequestHandler("sampling/createMessage", async (request) => {
      asked.push("sample");
      return { role: "assistant", content: { type: "text", text: answers.sample!(request.params) }, model: "e2e-model" };
    });
  }
  if (capabilities.roots) {
    client.setRequestHandler("roots/list", async () => {
      asked.push("roots");
      return { roots: answers.roots!() };
    });
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(inject("mcpUrl"))));
  open.push(client);
  return { client, asked };
}

const textOf = (result: any) => result.content.map((block: any) => block.text ?? "").join("\n");

async function newNotebook(client: Client) {
  const created: any = await client.callTool({ name: "create_notebook", arguments: { title: "E2E" } });
  return created.structuredContent.notebook_id as string;
}

describe("official client pinned to 2026-07-28", () => {
  it("negotiates the modern era through server/discover", async () => {
    const { client } = await connect();
    expect(client.getProtocolEra()).toBe("modern");
    expect(client.getServerVersion()).toMatchObject({ name: "mcp-notes-server", version: "0.1.0" });
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, prompts: {}, completions: {} });
  });

  it("lists the example tools with their schemas, in the order src/tools.ts declares them", async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    // Checked as present and in order: a tool a fork adds (the README's count_words, say) may sit anywhere among them.
    const names = tools.map((tool) => tool.name);
    expect(names.filter((name) => EXAMPLE_TOOLS.includes(name))).toEqual(EXAMPLE_TOOLS);
    expect(tools.every((tool) => tool.inputSchema.type === "object" && tool.description)).toBe(true);
  });

  it("calls every plain tool, reads the note resource, gets the prompt and completes a note id", async () => {
    const { client } = await connect();
    const notebook = await newNotebook(client);
    const added: any = await client.callTool({
      name: "add_note",
      arguments: { notebook_id: notebook, title: "Invoices", body: "Pay March invoices.", tags: ["work"] },
    });
    const noteId = added.structuredContent.id;
    const found: any = await client.callTool({ name: "search_notes", arguments: { notebook_id: notebook, query: "march" } });
    expect(found.structuredContent.notes).toHaveLength(1);
    const got: any = await client.callTool({ name: "get_note", arguments: { notebook_id: notebook, note_id: noteId } });
    expect(got.structuredContent.title).toBe("Invoices");
    const updated: any = await client.callTool({
      name: "update_note",
      arguments: { notebook_id: notebook, note_id: noteId, title: "Invoices (paid)" },
    });
    expect(updated.structuredContent.title).toBe("Invoices (paid)");
    const summary = await client.callTool({ name: "summarize_notes", arguments: { notebook_id: notebook } });
    expect(textOf(summary)).toContain("extractive summary");

    const resource = await client.readResource({ uri: `note://${notebook}/${noteId}` });
    expect(resource.contents[0]).toMatchObject({ mimeType: "text/markdown", text: expect.stringContaining("Invoices (paid)") });
    const guide = await client.readResource({ uri: "notes://guide" });
    expect(guide.contents[0]).toMatchObject({ text: expect.stringContaining("create_notebook") });
    const prompt = await client.getPrompt({ name: "review_notes", arguments: { notebook_id: notebook } });
    expect(prompt.messages).toHaveLength(2);
    const completion = await client.complete({
      ref: { type: "ref/resource", uri: "note://{notebook_id}/{note_id}" },
      argument: { name: "note_id", value: "n_" },
      context: { arguments: { notebook_id: notebook } },
    });
    expect(completion.completion.values).toEqual([noteId]);
  });

  it("surfaces a protocol error for an unknown tool", async () => {
    const { client } = await connect();
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toThrow(/Unknown tool/);
  });
});

/**
 * A flow that asks a single-use question: it runs as written when the app binds REPLAY_GUARD; without it, the
 * question is refused with an error that names the missing binding.
 */
const singleUse = (flow: () => Promise<void>) => async () => {
  if (appBinds("REPLAY_GUARD")) return flow();
  await expect(flow()).rejects.toThrow(/REPLAY_GUARD/);
};

describe("multi round-trip requests through the client's handlers", () => {
  it(
    "deletes a note after the user confirms in a form (elicitation)",
    singleUse(async () => {
      const { client, asked } = await connect({ elicitation: {} }, { elicit: () => ({ action: "accept", content: { delete: true } }) });
      const notebook = await newNotebook(client);
      const added: any = await client.callTool({ name: "add_note", arguments: { notebook_id: notebook, title: "Old", body: "x" } });
      const result = await client.callTool({
        name: "delete_note",
        arguments: { notebook_id: notebook, note_id: added.structuredContent.id },
      });
      expect(textOf(result)).toContain("Deleted note");
      expect(asked).toEqual(['elicit:Delete the note "Old"? This cannot be undone.']);
    }),
  );

  it(
    "keeps the note when the user declines the elicitation",
    singleUse(async () => {
      const { client } = await connect({ elicitation: {} }, { elicit: () => ({ action: "decline" }) });
      const notebook = await newNotebook(client);
      const added: any = await client.callTool({ name: "add_note", arguments: { notebook_id: notebook, title: "Keep", body: "x" } });
      const result = await client.callTool({
        name: "delete_note",
        arguments: { notebook_id: notebook, note_id: added.structuredContent.id },
      });
      expect(textOf(result)).toContain("did not confirm");
      const still: any = await client.callTool({
        name: "get_note",
        arguments: { notebook_id: notebook, note_id: added.structuredContent.id },
      });
      expect(still.isError).toBeFalsy();
    }),
  );

  it("summarizes with the client's model when it offers sampling", async () => {
    const { client, asked } = await connect({ sampling: {} }, { sample: () => "Two notes about work." });
    const notebook = await newNotebook(client);
    await client.callTool({ name: "add_note", arguments: { notebook_id: notebook, title: "A", body: "x" } });
    const result = await client.callTool({ name: "summarize_notes", arguments: { notebook_id: notebook } });
    expect(textOf(result)).toBe("Summary of 1 note(s), written by e2e-model:\nTwo notes about work.");
    expect(asked).toEqual(["sample"]);
  });

  it(
    "drafts a note in three rounds: form and roots together, then sampling, then a confirmation form",
    singleUse(async () => {
      const { client, asked } = await connect(
        { elicitation: {}, sampling: {}, roots: {} },
        {
          elicit: (params) =>
            params.message.startsWith("Save")
              ? { action: "accept", content: { title: params.requestedSchema.properties.title.default, save: true } }
              : { action: "accept", content: { audience: "the team", length: "short" } },
          sample: (params) => `Draft mentioning ${params.messages[0].content.text.includes("proj") ? "proj" : "nothing"}.`,
          roots: () => [{ uri: "file:///home/user/proj", name: "proj" }],
        },
      );
      const notebook = await newNotebook(client);
      const result: any = await client.callTool({ name: "draft_note", arguments: { notebook_id: notebook, topic: "Release plan" } });
      expect(textOf(result)).toMatch(/^Saved the draft as note n_/);
      expect(asked.map((entry) => entry.split(":")[0])).toEqual(["elicit", "roots", "sample", "elicit"]);
      const saved: any = await client.callTool({ name: "search_notes", arguments: { notebook_id: notebook, query: "" } });
      expect(saved.structuredContent.notes[0]).toMatchObject({ title: "Release plan", tags: ["draft"] });
      const body: any = await client.callTool({
        name: "get_note",
        arguments: { notebook_id: notebook, note_id: saved.structuredContent.notes[0].id },
      });
      expect(body.structuredContent.body).toBe("Draft mentioning proj.");
    }),
  );

  it(
    "falls back to asking the user to write the draft when the client offers no sampling",
    singleUse(async () => {
      const { client, asked } = await connect(
        { elicitation: {} },
        {
          elicit: (params) =>
            params.message.startsWith("Save")
              ? { action: "accept", content: { title: "Mine", save: true } }
              : params.message.startsWith("Your client cannot draft")
                ? { action: "accept", content: { body: "Written by hand." } }
                : { action: "accept", content: { audience: "me", length: "long" } },
        },
      );
      const notebook = await newNotebook(client);
      const result = await client.callTool({ name: "draft_note", arguments: { notebook_id: notebook, topic: "Manual" } });
      expect(textOf(result)).toMatch(/^Saved the draft/);
      expect(asked).toHaveLength(3);
    }),
  );
});
