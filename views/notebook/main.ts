/**
 * The notebook view (MCP Apps): the notes of the notebook `search_notes` was called on, searchable, each one
 * editable and deletable in place, and new ones added. It talks to the server only through the host
 * (`App.callServerTool`), so the host's own checks (and its confirmation of the deletion) apply, and the view needs
 * no network access of its own.
 *
 * How it stays current: a tool result that changed a notebook names it in `_meta["notes/changed"]` (src/tools.ts).
 * When the host sends the view such a result (hosts may forward the results of later calls, the model's and the
 * view's own, to a view on screen), the view reads its list again at once. Changes nobody tells it about (another
 * client's) it finds by reading the list every 30 s, only while it is visible: never while the page is hidden or
 * the view is scrolled out of sight, and once on its return when the list is stale by then.
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
  _meta?: Record<string, unknown>;
}
/** What src/tools.ts puts in `_meta["notes/changed"]`. */
interface Change {
  notebook_id: string;
  change_id: string;
}

/**
 * The fallback: how old the list may get on screen before the view reads it again. It only has to catch changes
 * nobody told the view about (another client's, or any when the host forwards no tool results), so it can be slow:
 * 30 s is 2 calls a minute, where the former 5 s poll cost 12, and a change made elsewhere still shows within half a
 * minute.
 */
const FALLBACK_REFRESH_MS = 30_000;
/** Notes listed (search_notes' maximum). */
const LIST_LIMIT = 50;
/** Changes remembered as read (count), so a forwarded copy of one is not read twice; far more than arrive at once. */
const REMEMBERED_CHANGES = 100;

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const list = element<HTMLUListElement>("notes");
const empty = element<HTMLDivElement>("empty");
const status = element<HTMLParagraphElement>("status");
const problem = element<HTMLParagraphElement>("error");
const query = element<HTMLInputElement>("query");
const editor = element<HTMLElement>("editor");
const editorHeading = element<HTMLHeadingElement>("editor-heading");
const titleField = element<HTMLInputElement>("title");
const tagsField = element<HTMLInputElement>("tags");
const bodyField = element<HTMLTextAreaElement>("body");
const deleteButton = element<HTMLButtonElement>("delete");

const app = new App({ name: "notebook-view", version: "1.0.0" });
let notebookId: string | undefined;
/** The query the list shows (the one last searched for, not what is being typed). */
let listedQuery = "";
/** The note in the editor; undefined while the editor is closed or holds a new note. */
let openNote: Note | undefined;
let notes: Summary[] = [];
let sawFirstResult = false;

// --- Messages -------------------------------------------------------------------------------------------------------

/** A status line in the user's terms: note ids (in server messages) become the notes' titles. */
function withTitles(message: string): string {
  return message.replace(/\bn_[0-9a-f]{12}\b/g, (id) => {
    const title = openNote?.id === id ? openNote.title : notes.find((note) => note.id === id)?.title;
    return title === undefined ? "a note" : `"${title}"`;
  });
}
const say = (message: string) => {
  status.textContent = withTitles(message);
};
/** An error: in the alert region (announced at once, styled as an error) instead of the status, until the next action. */
const fail = (message: string) => {
  status.textContent = "";
  problem.textContent = withTitles(message);
};
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
const textOf = (answer: ToolAnswer) => answer.content?.find((block) => block.type === "text")?.text ?? "";

/** The tool ran and refused (its result is an error), as opposed to the call not reaching the server. */
class ToolRefused extends Error {}

async function call(name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const answer = (await app.callServerTool({ name, arguments: { notebook_id: notebookId, ...args } })) as ToolAnswer;
  if (answer.isError) throw new ToolRefused(textOf(answer) || `${name} failed`);
  return answer;
}

// --- The list -------------------------------------------------------------------------------------------------------

function render(found: Summary[]): void {
  notes = found;
  list.replaceChildren(
    ...found.map((note) => {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.id = note.id;
      button.textContent = note.title;
      if (note.id === openNote?.id) button.setAttribute("aria-current", "true");
      if (note.tags.length > 0) {
        const tags = document.createElement("span");
        tags.className = "tags";
        tags.textContent = note.tags.join(", ");
        button.append(tags);
      }
      button.addEventListener(
        "click",
        guarded(() => open(note)),
      );
      item.append(button);
      return item;
    }),
  );
  // An empty notebook offers its first note; an empty search result says so.
  empty.hidden = found.length > 0 || listedQuery !== "";
  if (found.length === 0 && listedQuery !== "") say("No note matches.");
}

// --- Reading the list: on a change, as a fallback while visible, never while hidden --------------------------------

/** Visible: the page is shown and the view is on screen (not scrolled out of the host's conversation). */
let onScreen = true;
const visible = () => document.visibilityState === "visible" && onScreen;

let reading = false;
let readAgain = false;
let announceCount = false;
let lastReadAt = 0;
/** A read was asked for (a change announced) while the view was hidden: it is done as soon as the view is visible. */
let readWanted = false;
let fallbackTimer: ReturnType<typeof setTimeout> | undefined;
const readChanges = new Set<string>();

/** Reads the list now, or after the read in progress (changes heard meanwhile need one more read, not one each). */
function readSoon(): void {
  if (!notebookId) return;
  if (!visible()) {
    readWanted = true;
    return;
  }
  if (reading) {
    readAgain = true;
    return;
  }
  reading = true;
  readWanted = false;
  void readList()
    .catch((error: unknown) => fail(`Could not read the notes: ${messageOf(error)}`))
    .finally(() => {
      reading = false;
      lastReadAt = Date.now();
      if (readAgain) {
        readAgain = false;
        readSoon();
      } else scheduleFallback();
    });
}

async function readList(): Promise<void> {
  const answer = await call("search_notes", { query: listedQuery, limit: LIST_LIMIT });
  const found = (answer.structuredContent?.notes ?? []) as Summary[];
  if (JSON.stringify(found) !== JSON.stringify(notes) || announceCount) render(found);
  if (announceCount && found.length > 0) say(`${found.length} note${found.length === 1 ? "" : "s"}.`);
  announceCount = false;
  // Gone from the whole list (not merely beyond its first LIST_LIMIT notes): deleted elsewhere.
  if (openNote && !listedQuery && found.length < LIST_LIMIT && !found.some((note) => note.id === openNote?.id)) {
    closeEditor(`"${openNote.title}" was deleted elsewhere.`);
  }
}

/** The next fallback read, due FALLBACK_REFRESH_MS after the last read; none while hidden. */
function scheduleFallback(): void {
  clearTimeout(fallbackTimer);
  fallbackTimer = undefined;
  if (!visible() || !notebookId) return;
  fallbackTimer = setTimeout(
    () => {
      fallbackTimer = undefined;
      readSoon();
    },
    Math.max(0, lastReadAt + FALLBACK_REFRESH_MS - Date.now()),
  );
}

/**
 * Hidden: no timer at all. Shown again: read at once if a change was announced meanwhile or the list is stale by
 * now, else resume the timer (a view scrolled out of sight and back, or a quick tab switch, costs no read).
 */
function visibilityChanged(): void {
  if (!visible()) {
    clearTimeout(fallbackTimer);
    fallbackTimer = undefined;
    return;
  }
  // Nothing to refresh before the host sent the tool's result; already live when a read or its timer is pending.
  if (!sawFirstResult || fallbackTimer !== undefined || reading) return;
  if (readWanted || Date.now() - lastReadAt >= FALLBACK_REFRESH_MS) readSoon();
  else scheduleFallback();
}

/** The change a tool result reports, when it is one to this view's notebook. */
function changeIn(answer: ToolAnswer): Change | undefined {
  const change = answer._meta?.["notes/changed"] as Partial<Change> | undefined;
  if (typeof change?.notebook_id !== "string" || typeof change.change_id !== "string") return undefined;
  return change.notebook_id === notebookId ? (change as Change) : undefined;
}

/** Reads the list once per change, whichever copy of its result comes first (the answer, or the host's forward). */
function noticeChange(answer: ToolAnswer): void {
  const change = changeIn(answer);
  if (!change || readChanges.has(change.change_id)) return;
  readChanges.add(change.change_id);
  if (readChanges.size > REMEMBERED_CHANGES) readChanges.delete(readChanges.values().next().value!);
  readSoon();
}

// --- The editor -----------------------------------------------------------------------------------------------------

/** Shows `note` in the editor, or an empty editor for a new note. */
function fillEditor(note: Note | undefined): void {
  openNote = note;
  editorHeading.textContent = note ? "Edit note" : "New note";
  titleField.value = note?.title ?? "";
  tagsField.value = note?.tags.join(", ") ?? "";
  bodyField.value = note?.body ?? "";
  deleteButton.hidden = !note;
  editor.hidden = false;
  render(notes);
}

async function open(summary: Summary): Promise<void> {
  let answer: ToolAnswer;
  try {
    answer = await call("get_note", { note_id: summary.id });
  } catch (error) {
    // get_note refuses only a note (or notebook) that is gone: deleted since the list was read. Read the list again,
    // and say so in the user's terms (the server's message is written for the model: it names tools to call).
    readSoon();
    const reason = error instanceof ToolRefused ? "it is no longer in this notebook" : messageOf(error);
    throw new Error(`Could not open "${summary.title}": ${reason}.`);
  }
  fillEditor(answer.structuredContent as unknown as Note);
  titleField.focus();
}

function closeEditor(message: string): void {
  openNote = undefined;
  editor.hidden = true;
  render(notes);
  say(message);
}

/** Runs a user action: clears the last error, and shows what failed as an error instead of failing silently. */
const guarded = (action: () => Promise<void>) => () => {
  problem.textContent = "";
  void action().catch((error: unknown) => fail(messageOf(error)));
};

// Buttons and the Enter key, not form submission: a host's sandbox may not allow forms (no allow-forms).
const search = guarded(async () => {
  listedQuery = query.value;
  announceCount = true;
  readSoon();
});
element("search").addEventListener("click", search);
query.addEventListener("keydown", (event) => {
  if (event.key === "Enter") search();
});

const newNote = guarded(async () => {
  fillEditor(undefined);
  titleField.focus();
});
element("new").addEventListener("click", newNote);
element("add-first").addEventListener("click", newNote);

element("save").addEventListener(
  "click",
  guarded(async () => {
    if (!titleField.value.trim()) {
      titleField.focus();
      throw new Error("A note needs a title.");
    }
    const tags = tagsField.value
      .split(",")
      .map((tag) => tag.trim())
      .filter(Boolean);
    const fields = { title: titleField.value, body: bodyField.value, tags };
    const answer = openNote ? await call("update_note", { note_id: openNote.id, ...fields }) : await call("add_note", fields);
    const saved = answer.structuredContent as unknown as Note;
    const added = !openNote;
    fillEditor(saved);
    say(added ? `Added "${saved.title}".` : `Saved "${saved.title}".`);
    noticeChange(answer);
  }),
);

// The server asks the user to confirm (through the host) before it deletes; the view only reports the outcome.
deleteButton.addEventListener(
  "click",
  guarded(async () => {
    const note = openNote;
    if (!note) return;
    const answer = await call("delete_note", { note_id: note.id });
    // Only a deletion reports a change; otherwise the user kept the note.
    if (changeIn(answer)) closeEditor(`Deleted "${note.title}".`);
    else say(`Kept "${note.title}": the deletion was not confirmed.`);
    noticeChange(answer);
  }),
);

// --- The host -------------------------------------------------------------------------------------------------------

function applyTheme(theme: string | undefined): void {
  if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
}

app.ontoolinput = ({ arguments: args }) => {
  if (typeof args?.notebook_id === "string") notebookId = args.notebook_id;
  if (typeof args?.query === "string") query.value = listedQuery = args.query;
};
app.ontoolresult = (result) => {
  const answer = result as ToolAnswer;
  // Every later result is another call's, forwarded by the host: only a change to this notebook matters then.
  if (sawFirstResult) return noticeChange(answer);
  sawFirstResult = true;
  if (answer.isError) fail(textOf(answer) || "The notebook could not be read.");
  else render(((answer.structuredContent as { notes?: Summary[] } | undefined)?.notes ?? []) as Summary[]);
  lastReadAt = Date.now();
  scheduleFallback();
};
app.onhostcontextchanged = (context) => applyTheme(context.theme);

document.addEventListener("visibilitychange", visibilityChanged);
// With no root, the observer measures against the top-level page: a view scrolled out of the conversation is hidden.
new IntersectionObserver(([entry]) => {
  onScreen = entry?.isIntersecting ?? true;
  visibilityChanged();
}).observe(document.documentElement);

app.connect(new PostMessageTransport(window.parent, window.parent)).then(
  () => applyTheme(app.getHostContext()?.theme ?? (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light")),
  (error: unknown) => fail(`Could not reach the host: ${messageOf(error)}`),
);
