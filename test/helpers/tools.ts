/** Tools that tests of the listen hub share. */
import * as z from "zod/mini";
import { defineTool, text } from "../../src/mcp";

/** Announces a tool list change to every listener. */
export const announceToolsChanged = defineTool({
  name: "trigger",
  description: "Announces a tool list change.",
  input: z.strictObject({}),
  async handler(_args, ctx) {
    await ctx.publish.toolsListChanged();
    return { content: [text("ok")] };
  },
});
