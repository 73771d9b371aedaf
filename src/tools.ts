/**
 * Every tool this server offers. To add one, append a `defineTool({...})` to the array `tools()` returns below: a
 * name, a description written for the model, a zod schema for the arguments (and for `structuredContent` if the tool
 * returns data), and a handler. Nothing else needs editing; `tools/list` follows this array's order.
 *
 * Handlers get `(args, ctx)`: `args` already validated against `input`; `ctx` carries `env`, the caller
 * (`ctx.principal`), a cancellation `ctx.signal`, `ctx.progress()`/`ctx.log()` and `ctx.ask()` to ask the
 * client for input (see docs/guides/asking-the-user.md). Return `toolError("...")` for failures the model should read.
 */

import type { JsonObject, Tool, ToolContext } from "mcp-workers-engine";
import { defineTool, elicitForm, listRoots, resourceLink, sample, samplingText, text, toolError } from "mcp-workers-engine";
import * as z from "zod/mini";
import { listsNotes, NOTE_ID, NOTE_LIMITS, NOTEBOOK_ID, type Note, newNotebookId, notebookFor, shelfFor } from "./notes";
import { notebookView } from "./views";

const noteUri = (notebook: string, note: string) => `note://${notebook}/${note}`;
const linkTo = (notebook: string, note: Pick<Note, "id" | "title">) =>
  resourceLink({ uri: noteUri(notebook, note.id), name: note.title, mimeType: "text/markdown" });

/** The caller's notebook, or a message the model can act on when the handle is unknown to this caller. */
async function openNotebook(ctx: ToolContext, id: string) {
  const notebook = notebookFor(ctx.env, ctx.principal, id);
  return (await notebook.exists()) ? notebook : undefined;
}
/**
 * Tells the caller's listeners (only) that its list of note resources changed. Only when notes are listed to the
 * caller: with authorization off nothing is listed, so there is no change to announce, and every anonymous
 * listener would hear about every anonymous caller's writes.
 */
async function noteListChanged(ctx: ToolContext) {
  if (listsNotes(ctx.principal)) await ctx.publish.resourcesListChanged();
}
/**
 * The `_meta` of a result that changed a notebook: which notebook, and an id of this one change. MCP Apps hosts may
 * send a view on screen the results of later tool calls (the model's, and the view's own); the notebook view reads
 * its list again when one names its notebook, instead of polling for it. The id lets it skip a change it has
 * already read, such as its own call's result forwarded back to it. views/notebook/main.ts reads this key.
 */
const changed = (notebookId: string): JsonObject => ({
  "notes/changed": { notebook_id: notebookId, change_id: crypto.randomUUID() },
});
const unknownNotebook = (id: string) => toolError(`Unknown notebook_id ${id}. Create one with create_notebook and pass its notebook_id.`);
const unknownNote = (id: string) => toolError(`No note ${id} in this notebook. Use search_notes to find note ids.`);

/**
 * Every tool, in `tools/list` order. A function, not a constant: src/index.ts calls it on the first request rather
 * than at startup, because constructing zod schemas costs CPU that every cold start would pay; so keep schemas
 * inside it (a schema built at module scope is built on every cold start).
 */
export function tools(): Tool[] {
  const notebookId = z.string().check(z.regex(NOTEBOOK_ID), z.describe("Notebook handle returned by create_notebook"));
  const noteId = z.string().check(z.regex(NOTE_ID), z.describe("Note id, as returned by add_note or search_notes"));
  const title = z.string().check(z.minLength(1), z.maxLength(NOTE_LIMITS.title));
  const body = z.string().check(z.maxLength(NOTE_LIMITS.body));
  const tags = z
    .array(z.string().check(z.minLength(1), z.maxLength(NOTE_LIMITS.tag)))
    .check(z.maxLength(NOTE_LIMITS.tags), z.describe("Short labels, for example 'work' or 'ideas'"));

  const noteSchema = z.object({
    id: z.string(),
    title: z.string(),
    body: z.string(),
    tags: z.array(z.string()),
    createdAt: z.string(),
    updatedAt: z.string(),
  });
  const summarySchema = z.object({ id: z.string(), title: z.string(), tags: z.array(z.string()), updatedAt: z.string() });

  // Forms declared once (here, not in a handler) are converted to their elicitation schema once per isolate.
  const confirmDeletion = z.object({ delete: z.boolean() });
  const retagChoice = z.object({ apply: z.boolean(), mode: z.enum(["add", "replace"]) });
  const draftDetails = z.object({ audience: z.string().check(z.maxLength(100)), length: z.enum(["short", "medium", "long"]) });
  const writtenDraft = z.object({ body });

  return [
    defineTool({
      name: "create_notebook",
      title: "Create a notebook",
      description:
        "Create a new, empty notebook and return its notebook_id. Pass that notebook_id to every other notes tool; keep it, since notebooks themselves are not listed anywhere.",
      input: z.strictObject({ title: z.optional(title) }),
      output: z.object({ notebook_id: z.string(), title: z.string(), createdAt: z.string() }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      async handler(args, ctx) {
        const id = newNotebookId();
        // Shelved first: if creating then fails, the shelf names an empty notebook (nothing listed), never the reverse.
        if (listsNotes(ctx.principal)) await shelfFor(ctx.env, ctx.principal).shelve(id);
        const created = await notebookFor(ctx.env, ctx.principal, id).create(args.title ?? "Notes");
        return { structuredContent: { notebook_id: id, ...created } };
      },
    }),

    defineTool({
      name: "add_note",
      title: "Add a note",
      description: "Add a note to a notebook. Returns the new note with its id.",
      input: z.strictObject({ notebook_id: notebookId, title, body, tags: z.optional(tags) }),
      output: noteSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      async handler(args, ctx) {
        const notebook = await openNotebook(ctx, args.notebook_id);
        if (!notebook) return unknownNotebook(args.notebook_id);
        const added = await notebook.add(args.title, args.body, args.tags ?? []);
        if ("error" in added) return toolError(added.error);
        await noteListChanged(ctx);
        return {
          structuredContent: added,
          content: [text(`Added note ${added.id}.`), linkTo(args.notebook_id, added)],
          _meta: changed(args.notebook_id),
        };
      },
    }),

    defineTool({
      name: "search_notes",
      title: "Search notes",
      description:
        "Find notes whose title, body or tags contain every word of the query (case-insensitive), newest first. An empty query lists the newest notes.",
      input: z.strictObject({
        notebook_id: notebookId,
        query: z.string().check(z.maxLength(200), z.describe("Words to look for, e.g. 'invoices march'")),
        limit: z.optional(z.int().check(z.minimum(1), z.maximum(50), z.describe("At most this many notes (default 10)"))),
      }),
      output: z.object({ notes: z.array(summarySchema) }),
      annotations: { readOnlyHint: true, openWorldHint: false },
      // Hosts that render views show the notebook with the results; the others read them as JSON text.
      view: notebookView,
      async handler(args, ctx) {
        const notebook = await openNotebook(ctx, args.notebook_id);
        if (!notebook) return unknownNotebook(args.notebook_id);
        const notes = await notebook.search(args.query, args.limit ?? 10);
        return { structuredContent: { notes } };
      },
    }),

    defineTool({
      name: "get_note",
      title: "Read a note",
      description: "Read one note in full.",
      input: z.strictObject({ notebook_id: notebookId, note_id: noteId }),
      output: noteSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
      async handler(args, ctx) {
        const notebook = await openNotebook(ctx, args.notebook_id);
        if (!notebook) return unknownNotebook(args.notebook_id);
        const note = await notebook.get(args.note_id);
        return note ? { structuredContent: note } : unknownNote(args.note_id);
      },
    }),

    defineTool({
      name: "update_note",
      title: "Edit a note",
      description: "Change a note's title, body or tags; fields left out stay as they are.",
      input: z.strictObject({
        notebook_id: notebookId,
        note_id: noteId,
        title: z.optional(title),
        body: z.optional(body),
        tags: z.optional(tags),
      }),
      output: noteSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      async handler({ notebook_id, note_id, ...changes }, ctx) {
        const notebook = await openNotebook(ctx, notebook_id);
        if (!notebook) return unknownNotebook(notebook_id);
        const note = await notebook.update(note_id, changes);
        if (!note) return unknownNote(note_id);
        // A new title renames the note's entry in resources/list.
        await Promise.all([
          ctx.publish.resourceUpdated(noteUri(notebook_id, note_id)),
          changes.title !== undefined && noteListChanged(ctx),
        ]);
        return { structuredContent: note, _meta: changed(notebook_id) };
      },
    }),

    defineTool({
      name: "delete_note",
      title: "Delete a note",
      description: "Delete a note for good. The user is asked to confirm first.",
      input: z.strictObject({ notebook_id: notebookId, note_id: noteId }),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      async handler(args, ctx) {
        const notebook = await openNotebook(ctx, args.notebook_id);
        if (!notebook) return unknownNotebook(args.notebook_id);
        const note = await notebook.get(args.note_id);
        if (!note) return unknownNote(args.note_id);
        // Single use: the signed confirmation can authorize this deletion once, never a replay of it.
        const { confirm } = await ctx.ask(
          { confirm: elicitForm(`Delete the note "${note.title}"? This cannot be undone.`, confirmDeletion) },
          { singleUse: true },
        );
        if (confirm.action !== "accept" || !confirm.content.delete) {
          return { content: [text(`Kept note ${note.id}: the user did not confirm the deletion.`)] };
        }
        await notebook.delete(note.id);
        await Promise.all([ctx.publish.resourceUpdated(noteUri(args.notebook_id, note.id)), noteListChanged(ctx)]);
        return { content: [text(`Deleted note ${note.id} ("${note.title}").`)], _meta: changed(args.notebook_id) };
      },
    }),

    defineTool({
      name: "summarize_notes",
      title: "Summarize notes",
      description:
        "Summarize the notes matching a query. Uses the client's model when the client offers sampling; otherwise returns an extractive summary and says so.",
      input: z.strictObject({ notebook_id: notebookId, query: z.optional(z.string().check(z.maxLength(200))) }),
      annotations: { readOnlyHint: true, openWorldHint: false },
      async handler(args, ctx) {
        const notebook = await openNotebook(ctx, args.notebook_id);
        if (!notebook) return unknownNotebook(args.notebook_id);
        const found = await notebook.search(args.query ?? "", 20);
        if (found.length === 0) return { content: [text("No notes match, so there is nothing to summarize.")] };
        // Progress and log messages reach the client only when it asked for them (progressToken, logLevel).
        const notes: Note[] = [];
        for (const [index, summary] of found.entries()) {
          if (ctx.signal.aborted) return toolError("Cancelled.");
          const note = await notebook.get(summary.id);
          if (note) notes.push(note);
          ctx.progress(index + 1, found.length, `Read ${index + 1} of ${found.length} notes`);
        }
        ctx.log("debug", { read: notes.length, query: args.query ?? "" }, "summarize_notes");
        const digest = notes.map((note) => `## ${note.title}\n${note.body.slice(0, 2_000)}`).join("\n\n");
        if (!ctx.supports("sampling")) {
          const extract = notes.map((note) => `- ${note.title}: ${firstSentence(note.body)}`).join("\n");
          return {
            content: [
              text(`Your client does not offer sampling, so this is an extractive summary (first sentence of each note):\n${extract}`),
            ],
          };
        }
        const { summary } = await ctx.ask({
          summary: sample({
            messages: [{ role: "user", content: { type: "text", text: `Summarize these notes in a short paragraph:\n\n${digest}` } }],
            maxTokens: 400,
            systemPrompt: "You summarize personal notes faithfully and briefly.",
          }),
        });
        return { content: [text(`Summary of ${notes.length} note(s), written by ${summary.model}:\n${samplingText(summary)}`)] };
      },
    }),

    defineTool({
      name: "draft_note",
      title: "Draft a note with the user",
      description:
        "Draft a new note together with the user: asks what the note should cover, drafts it with the client's model (or asks the user to write it when the client offers no sampling), then asks the user to confirm before saving.",
      input: z.strictObject({ notebook_id: notebookId, topic: z.string().check(z.minLength(1), z.maxLength(200)) }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      async handler(args, ctx) {
        const notebook = await openNotebook(ctx, args.notebook_id);
        if (!notebook) return unknownNotebook(args.notebook_id);
        // Round 1: what the note is for, and (when the client shares them) the workspace roots, asked together.
        const round1 = await ctx.ask({
          details: elicitForm(`Drafting a note about "${args.topic}". Who is it for, and how long should it be?`, draftDetails),
          ...(ctx.supports("roots") ? { workspace: listRoots() } : {}),
        });
        if (round1.details.action !== "accept") return { content: [text("Drafting cancelled by the user.")] };
        const { audience, length } = round1.details.content;
        const roots = "workspace" in round1 ? (round1.workspace as { roots: { uri: string; name?: string }[] }).roots : [];

        // Round 2: the draft, from the client's model, or from the user when there is no sampling.
        let draft: string;
        if (ctx.supports("sampling")) {
          const context = roots.length ? ` The user works in: ${roots.map((root) => root.name ?? root.uri).join(", ")}.` : "";
          const { draft: sampled } = await ctx.ask({
            draft: sample({
              messages: [
                {
                  role: "user",
                  content: { type: "text", text: `Write a ${length} note about "${args.topic}" for ${audience || "myself"}.${context}` },
                },
              ],
              maxTokens: length === "long" ? 1_200 : length === "medium" ? 600 : 250,
            }),
          });
          draft = samplingText(sampled).slice(0, NOTE_LIMITS.body);
        } else {
          const { written } = await ctx.ask({
            written: elicitForm(`Your client cannot draft with a model. Write the note about "${args.topic}":`, writtenDraft),
          });
          if (written.action !== "accept") return { content: [text("Drafting cancelled by the user.")] };
          draft = written.content.body;
        }
        // Kept in the signed state so the suggested title stays the same in the next round.
        ctx.state.suggestedTitle ??= args.topic.slice(0, NOTE_LIMITS.title);

        // Round 3: confirm (and optionally retitle) before anything is written. Single use: the signed confirmation
        // saves one note, never a second one when the same retry is replayed.
        const { save } = await ctx.ask(
          {
            save: elicitForm(
              `Save this draft?\n\n${draft.slice(0, 1_000)}`,
              z.object({ title: z._default(title, String(ctx.state.suggestedTitle)), save: z.boolean() }),
            ),
          },
          { singleUse: true },
        );
        if (save.action !== "accept" || !save.content.save) return { content: [text("The draft was not saved.")] };
        const added = await notebook.add(save.content.title, draft, ["draft"]);
        if ("error" in added) return toolError(added.error);
        await noteListChanged(ctx);
        return {
          content: [text(`Saved the draft as note ${added.id}.`), linkTo(args.notebook_id, added)],
          _meta: changed(args.notebook_id),
        };
      },
    }),

    defineTool({
      name: "retag_notebook",
      title: "Retag a whole notebook",
      description:
        "Suggest tags for every note of a notebook from its most frequent words, then (after the user confirms) add them or replace the old tags. Visits every note in batches, so on a large notebook it runs in the background as a task when the client supports tasks; reports progress and can be cancelled.",
      input: z.strictObject({
        notebook_id: notebookId,
        batch_delay_ms: z.optional(
          z
            .int()
            .check(z.minimum(0), z.maximum(5_000), z.describe("Pause between batches of 25 notes, to keep a busy notebook responsive")),
        ),
      }),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      // Visits every note: at most 10 calls per caller per minute (each round of its confirmation counts), on a
      // binding of its own (wrangler.toml RETAG_LIMITER), so it never uses up the budget of the cheap tools.
      budget: { binding: "RETAG_LIMITER", calls: 10, periodMs: 60_000 },
      // Runs as a task for clients that declared the Tasks extension, synchronously for the others.
      taskSupport: "optional",
      async handler(args, ctx) {
        const notebook = await openNotebook(ctx, args.notebook_id);
        if (!notebook) return unknownNotebook(args.notebook_id);
        // The first progress report is where a task takes over (questions asked before it are asked up front).
        ctx.progress(0, undefined, "Scanning notes");
        const total = await notebook.count();
        // Every run starts the handler from the top: ctx.state (saved at each checkpoint) says where to resume.
        const state = ctx.state as { scanned?: number; changing?: number; after?: string; applied?: number; applyAfter?: string };
        while (state.scanned === undefined || state.after !== "") {
          const page = await notebook.notesAfter(state.after, RETAG_BATCH);
          state.scanned = (state.scanned ?? 0) + page.length;
          state.changing = (state.changing ?? 0) + page.filter((note) => retagged(note, "add").join() !== note.tags.join()).length;
          // "" marks the scan as done, so a later run goes straight to the question.
          state.after = page.length < RETAG_BATCH ? "" : page[page.length - 1]!.id;
          ctx.progress(state.scanned, total * 2, `Scanned ${state.scanned} of ${total} notes`);
          if (ctx.signal.aborted) return toolError("Cancelled; no tags were changed.");
          // A pause between batches, never after the last one: nothing is left to keep responsive.
          if (state.after !== "") await pause(args.batch_delay_ms ?? 0, ctx.signal);
          await ctx.checkpoint();
        }
        if (state.changing === 0) return { content: [text(`All ${total} notes already carry their suggested tags.`)] };

        // One question mid-way, once the scan knows what would change. Without forms: only add tags (non-destructive).
        let mode: "add" | "replace" = "add";
        if (ctx.supports("form")) {
          const { apply } = await ctx.ask({
            apply: elicitForm(
              `${state.changing} of ${total} notes would get new tags. Apply them? "add" keeps existing tags; "replace" removes them.`,
              retagChoice,
            ),
          });
          if (apply.action !== "accept" || !apply.content.apply) return { content: [text("No tags were changed.")] };
          mode = apply.content.mode;
        }
        state.applied ??= 0;
        while (state.applyAfter !== "") {
          const page = await notebook.notesAfter(state.applyAfter, RETAG_BATCH);
          for (const note of page) {
            // Check before each write, never only after one (a cancellation during the pause between batches must stop
            // the next batch): a cancelled call stops here, and says how far it got.
            if (ctx.signal.aborted) return toolError(`Cancelled after retagging ${state.applied} of ${total} notes.`);
            const tags = retagged(note, mode);
            if (tags.join() !== note.tags.join()) await notebook.update(note.id, { tags });
            state.applied++;
          }
          state.applyAfter = page.length < RETAG_BATCH ? "" : page[page.length - 1]!.id;
          ctx.progress(total + state.applied, total * 2, `Retagged ${state.applied} of ${total} notes`);
          if (state.applyAfter !== "") await pause(args.batch_delay_ms ?? 0, ctx.signal);
          // In a task: saves ctx.state, and ends the run when its slice is used (the next run resumes from it).
          await ctx.checkpoint();
        }
        await noteListChanged(ctx);
        return {
          content: [text(`Retagged the notebook (${mode}): ${state.changing} of ${total} notes got new tags.`)],
          _meta: changed(args.notebook_id),
        };
      },
    }),
  ];
}

const RETAG_BATCH = 25;
/** Waits `ms`, or less when the call is cancelled. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    const stop = () => {
      clearTimeout(timer);
      resolve();
    };
    signal.addEventListener("abort", stop, { once: true });
  });
}
const STOPWORDS = new Set(
  "about after again also because been before being between both could does doing down during each from further have having here into just more most other over same should some such than that their them then there these they this those through under until very what when where which while will with would your".split(
    " ",
  ),
);

/** A note's tags after retagging: its three most frequent words of 4+ letters (title counted twice), added or replacing. */
function retagged(note: Note, mode: "add" | "replace"): string[] {
  const counts = new Map<string, number>();
  for (const word of `${note.title} ${note.title} ${note.body}`.toLowerCase().match(/\p{L}{4,}/gu) ?? []) {
    if (!STOPWORDS.has(word)) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  const suggested = [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, 3)
    .map(([word]) => word.slice(0, NOTE_LIMITS.tag));
  const base = mode === "replace" ? [] : note.tags;
  return [...new Set([...base, ...suggested])].slice(0, NOTE_LIMITS.tags);
}

function firstSentence(body: string): string {
  const sentence = /^[\s\S]*?[.!?](\s|$)/.exec(body)?.[0] ?? body;
  return sentence.trim().slice(0, 200);
}
