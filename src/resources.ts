/**
 * Every resource this server offers. A fixed resource has a `uri`; a family of resources has a `uriTemplate`
 * (RFC 6570, `{name}` variables) and a `read` that returns `undefined` when nothing exists at a URI.
 * `complete` offers completion for template variables; `list` lists the caller's concrete resources in
 * `resources/list`, one page at a time.
 */
import { defineResource, defineResourceTemplate } from "mcp-workers-engine";
import { listNotes, listsNotes, NOTE_ID, NOTEBOOK_ID, notebookFor } from "./notes";

const GUIDE = `# Notes server

1. Call \`create_notebook\` once and keep the \`notebook_id\` it returns.
2. Add notes with \`add_note\`, find them with \`search_notes\`, read one with \`get_note\`.
3. Each note is also a resource: \`note://{notebook_id}/{note_id}\`. When the server has authorization on,
   \`resources/list\` lists your notes; otherwise keep the notebook_id, since nothing lists it.
4. \`delete_note\` asks the user to confirm; \`draft_note\` writes a note with the user step by step.
`;

export const resources = [
  defineResource({
    uri: "notes://guide",
    name: "guide",
    title: "How to use this notes server",
    mimeType: "text/markdown",
    cache: { ttlMs: 3_600_000, cacheScope: "public" },
    read: () => [{ uri: "notes://guide", mimeType: "text/markdown", text: GUIDE }],
  }),

  defineResourceTemplate({
    uriTemplate: "note://{notebook_id}/{note_id}",
    name: "note",
    title: "A note",
    description: "One note, as Markdown. The notebook_id comes from create_notebook.",
    mimeType: "text/markdown",
    // The notebook id is the capability: only a subscription that names the notebook hears about its notes.
    handles: ["notebook_id"],
    // Notes change, and belong to the caller: never shared, not cached.
    cache: { ttlMs: 0, cacheScope: "private" },
    async read(uri, { notebook_id, note_id }, ctx) {
      if (!NOTEBOOK_ID.test(notebook_id!) || !NOTE_ID.test(note_id!)) return undefined;
      const note = await notebookFor(ctx.env, ctx.principal, notebook_id!).get(note_id!);
      if (!note) return undefined;
      const tags = note.tags.length ? `\n\nTags: ${note.tags.join(", ")}` : "";
      return [{ uri, mimeType: "text/markdown", text: `# ${note.title}\n\n${note.body}${tags}` }];
    },
    // Only when callers are told apart; with authorization off a note is an unlisted handle (see listsNotes).
    async list(ctx, cursor) {
      if (!listsNotes(ctx.principal)) return { resources: [] };
      const { notes, nextCursor } = await listNotes(ctx.env, ctx.principal, cursor);
      const resources = notes.map((note) => ({ uri: `note://${note.notebookId}/${note.id}`, name: note.title, mimeType: "text/markdown" }));
      return nextCursor === undefined ? { resources } : { resources, nextCursor };
    },
    complete: {
      async note_id(value, { arguments: args, ctx }) {
        const notebook = args.notebook_id;
        if (!notebook || !NOTEBOOK_ID.test(notebook)) return [];
        return notebookFor(ctx.env, ctx.principal, notebook).ids(value, 100);
      },
    },
  }),
];
