/**
 * Interactive views (MCP Apps): HTML a host renders next to a tool's result. Each one is built from views/<name>/
 * into build/assets/views/<name>.html (views/build.mjs) and named by the tools that show it (`view:`).
 */
import { defineView } from "./mcp";

/** The notebook: list, search, open, edit and delete notes, refreshed while it is on screen. */
export const notebookView = defineView({
  uri: "ui://notes/notebook",
  name: "notebook",
  title: "Notebook",
  description: "Browse, search, edit and delete the notes of a notebook.",
  asset: "/views/notebook.html",
  // No csp: the view reaches nothing but the host (it calls tools through it), so the host allows no origin.
  prefersBorder: true,
});
