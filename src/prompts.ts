/**
 * Every prompt this server offers: a name, its string arguments as a zod object, optional completion for
 * arguments, and `get`, which returns the messages. A function, like `tools()`: built on the first request, so
 * its zod schemas cost nothing at startup.
 */

import { definePrompt, embeddedResource, type Prompt, text } from "mcp-workers-engine";
import * as z from "zod/mini";
import { NOTEBOOK_ID, notebookFor } from "./notes";

export function prompts(): Prompt[] {
  return [
    definePrompt({
      name: "review_notes",
      title: "Review notes on a topic",
      description: "Ask the model to review the notes on a topic: what is known, what is missing, what to do next.",
      arguments: z.strictObject({
        notebook_id: z.string().check(z.regex(NOTEBOOK_ID), z.describe("Notebook handle returned by create_notebook")),
        topic: z.optional(z.string().check(z.maxLength(200), z.describe("Words to select notes by; empty means the newest notes"))),
      }),
      complete: {
        // Suggest topics from the tags already used in the notebook.
        async topic(value, { arguments: args, ctx }) {
          if (!args.notebook_id || !NOTEBOOK_ID.test(args.notebook_id)) return [];
          const notes = await notebookFor(ctx.env, ctx.principal, args.notebook_id).search("", 50);
          const tags = [...new Set(notes.flatMap((note) => note.tags))].sort();
          return tags.filter((tag) => tag.toLowerCase().startsWith(value.toLowerCase()));
        },
      },
      async get({ notebook_id, topic }, ctx) {
        const notebook = notebookFor(ctx.env, ctx.principal, notebook_id);
        const found = await notebook.search(topic ?? "", 10);
        const notes = (await Promise.all(found.map((summary) => notebook.get(summary.id)))).filter((note) => note !== null);
        return {
          description: `Review of ${notes.length} note(s)${topic ? ` about "${topic}"` : ""}`,
          messages: [
            ...notes.map((note) => ({
              role: "user" as const,
              content: embeddedResource({
                uri: `note://${notebook_id}/${note.id}`,
                mimeType: "text/markdown",
                text: `# ${note.title}\n\n${note.body}`,
              }),
            })),
            {
              role: "user",
              content: text(
                notes.length
                  ? `Review the notes above${topic ? ` about "${topic}"` : ""}: summarize what they establish, point out gaps or contradictions, and suggest next steps.`
                  : `There are no notes${topic ? ` about "${topic}"` : ""} yet. Suggest what notes would be worth writing.`,
              ),
            },
          ],
        };
      },
    }),
  ];
}
