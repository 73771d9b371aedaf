/**
 * The example's notebooks, filled through its tools by any client: the long-running tool's end-to-end tests
 * (dev-server-example, ext-tasks) retag them in batches of 25.
 */

/** Calls one of the example's tools with these arguments and gives its result (whichever client the test drives). */
export type CallTool = (name: string, args: Record<string, unknown>) => Promise<any>;

/**
 * A notebook of `count` notes tagged "home", a word no title or body holds: searching it finds the untouched ones.
 * Added ten calls at a time (the order of the notes does not matter to retag_notebook's batches).
 */
export async function notebookOf(call: CallTool, count: number): Promise<string> {
  const notebook = (await call("create_notebook", {})).structuredContent.notebook_id as string;
  for (let first = 0; first < count; first += 10) {
    const adding = Array.from({ length: Math.min(10, count - first) }, async (_, offset) => {
      const added = await call("add_note", {
        notebook_id: notebook,
        title: `Garden plan ${first + offset}`,
        body: "Plant tomatoes and basil; water the tomatoes daily.",
        tags: ["home"],
      });
      // A note that failed to be added would leave a smaller notebook, and the batches a test waits on shorter.
      if (typeof added?.structuredContent?.id !== "string") throw new Error(`add_note failed: ${JSON.stringify(added)}`);
    });
    await Promise.all(adding);
  }
  return notebook;
}

/** How many of the notebook's notes still carry "home" (at most 50: the tests' notebooks are smaller). */
export const untouched = async (call: CallTool, notebook: string): Promise<number> =>
  (await call("search_notes", { notebook_id: notebook, query: "home", limit: 50 })).structuredContent.notes.length;
