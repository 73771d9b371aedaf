/**
 * The notebook view (MCP Apps): the notes of the notebook `search_notes` was called on, searchable, each one
 * editable and deletable in place. It talks to the server only through the host (`App.callServerTool`), so the
 * host's own checks (and its confirmation of the deletion) apply, and the view needs no network access of its own.
 *
 * No framework: one list and one form are a few DOM calls, and the ext-apps runtime is most of the bytes already.
 */
import { App, PostMessageTransport } from "@modelcontextprotocol/ext-apps";

interface Summary {
  id: string;
  title: string;
  tags: string[];
  updatedAt: string;
}
interface Note extends Summary {
  body: string;
}
interface ToolAnswer {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content?: { type: string; text?: string }[];
}

/** How often the list is read again while the view is visible, to show changes other clients made. */
const REFRESH_MS = 5_000;

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const list = element<HTMLUListElement>("notes");
const status = element<HTMLParagraphElement>("status");
const searchButton = element<HTMLButtonElement>("search");
const query = element<HTMLInputElement>("query");
const editor = element<HTMLElement>("editor");
const titleField = element<HTMLInputElement>("title");
const tagsField = element<HTMLInputElement>("tags");
const bodyField = element<HTMLTextAreaElement>("body");
const saveButton = element<HTMLButtonElement>("save");
const deleteButton = element<HTMLButtonElement>("delete");

const app = new App({ name: "notebook-view", version: "1.0.0" });
let notebookId: string | undefined;
let openId: string | undefined;
let notes: Summary[] = [];

const say = (message: string) => {
  status.textContent = message;
};
const textOf = (answer: ToolAnswer) => answer.content?.find((block) => block.type === "text")?.text ?? "";

async function call(name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const answer = (await app.callServerTool({ name, arguments: { notebook_id: notebookId, ...args } })) as ToolAnswer;
  if (answer.isError) throw new Error(textOf(answer) || `${name} failed`);
  return answer;
}

function render(found: Summary[]): void {
  notes = found;
  list.replaceChildren(
    ...found.map((note) => {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.id = note.id;
      button.textContent = note.title;
      if (note.id === openId) button.setAttribute("aria-current", "true");
      if (note.tags.length > 0) {
        const tags = document.createElement("span");
        tags.className = "tags";
        tags.textContent = note.tags.join(", ");
        button.append(tags);
      }
      button.addEventListener("click", () => void open(note.id));
      item.append(button);
      return item;
    }),
  );
  if (found.length === 0) say(query.value ? "No note matches." : "This notebook has no notes yet.");
}

/** Reads the list again; quietly, unless asked: a background refresh must not talk over the user. */
async function refresh(announce = false): Promise<void> {
  if (!notebookId) return;
  const answer = await call("search_notes", { query: query.value, limit: 50 });
  const found = (answer.structuredContent?.notes ?? []) as Summary[];
  if (JSON.stringify(found) !== JSON.stringify(notes)) render(found);
  if (announce && found.length > 0) say(`${found.length} note${found.length === 1 ? "" : "s"}.`);
  if (openId && !found.some((note) => note.id === openId) && !query.value) close("The open note was deleted elsewhere.");
}

async function open(id: string): Promise<void> {
  const note = (await call("get_note", { note_id: id })).structuredContent as unknown as Note;
  openId = note.id;
  titleField.value = note.title;
  tagsField.value = note.tags.join(", ");
  bodyField.value = note.body;
  editor.hidden = false;
  render(notes);
  titleField.focus();
}

function close(message: string): void {
  openId = undefined;
  editor.hidden = true;
  render(notes);
  say(message);
}

/** Runs a user action, telling the user what failed instead of failing silently. */
const guarded = (action: () => Promise<void>) => () =>
  void action().catch((error: unknown) => say(error instanceof Error ? error.message : String(error)));

// Buttons and the Enter key, not form submission: a host's sandbox may not allow forms (no allow-forms).
const search = guarded(() => refresh(true));
searchButton.addEventListener("click", search);
query.addEventListener("keydown", (event) => {
  if (event.key === "Enter") search();
});

saveButton.addEventListener(
  "click",
  guarded(async () => {
    if (!titleField.value.trim()) {
      titleField.focus();
      return say("A note needs a title.");
    }
    const tags = tagsField.value
      .split(",")
      .map((tag) => tag.trim())
      .filter(Boolean);
    const note = (await call("update_note", { note_id: openId, title: titleField.value, body: bodyField.value, tags }))
      .structuredContent as unknown as Note;
    say(`Saved "${note.title}".`);
    await refresh();
  }),
);

// The server asks the user to confirm (through the host) before it deletes; the view only reports the outcome.
deleteButton.addEventListener(
  "click",
  guarded(async () => {
    const answer = await call("delete_note", { note_id: openId });
    const outcome = textOf(answer);
    if (outcome.startsWith("Deleted")) close(outcome);
    else say(outcome);
    await refresh();
  }),
);

function applyTheme(theme: string | undefined): void {
  if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
}

app.ontoolinput = ({ arguments: args }) => {
  if (typeof args?.notebook_id === "string") notebookId = args.notebook_id;
  if (typeof args?.query === "string") query.value = args.query;
};
app.ontoolresult = (result) => {
  const found = (result.structuredContent as { notes?: Summary[] } | undefined)?.notes;
  if (found) render(found);
  else say(textOf(result as ToolAnswer));
};
app.onhostcontextchanged = (context) => applyTheme(context.theme);

app.connect(new PostMessageTransport(window.parent, window.parent)).then(
  () => applyTheme(app.getHostContext()?.theme ?? (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light")),
  (error: unknown) => say(`Could not reach the host: ${error instanceof Error ? error.message : String(error)}`),
);

setInterval(() => {
  if (document.visibilityState === "visible") guarded(() => refresh())();
}, REFRESH_MS);
