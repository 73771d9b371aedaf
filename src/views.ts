/**
 * Interactive views (MCP Apps): HTML a host renders next to a tool's result. Each one is built from views/<name>/
 * into build/assets/views/<name>.html (views/build.mjs) and named by the tools that show it (`view:`).
 */
import { defineView } from "mcp-workers-engine";

/**
 * The notebook: list, search, add, open, edit and delete notes. It reads the list again when the host forwards it a
 * result that changed the notebook (`_meta["notes/changed"]`, src/tools.ts), and every 30 s as a fallback, only while
 * it is visible.
 */
export const notebookView = defineView({
  uri: "ui://notes/notebook",
  name: "notebook",
  title: "Notebook",
  description: "Browse, search, edit and delete the notes of a notebook.",
  asset: "/views/notebook.html",
  // No csp: the view reaches nothing but the host (it calls tools through it), so the host allows no origin.
  prefersBorder: true,
});
