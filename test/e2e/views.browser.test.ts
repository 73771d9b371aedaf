/**
 * The notebook view in a real MCP Apps host: headless Chromium (Debian's, driven by playwright-core) renders the
 * view the running Worker serves, in a sandboxed iframe under its CSP, bridged by the ext-apps host side
 * (test/e2e/views/host.ts). The host's MCP client is this test, in Node: it declares the extension, answers the
 * server's confirmation question, plays the model whose calls the host forwards to the view, and is the "other
 * client" whose change the view must pick up.
 *
 * The view's refresh traffic is counted in the host, over windows of fake time (Playwright's clock, installed paused
 * before the host page loads: test/e2e/views/traffic.ts), so the counts are exact and no test waits for a poll.
 * (The frame takes the view's size only when the clock moves: the view reports its size on animation frames.)
 * Screenshots (light and dark: the notebook, an error, the empty notebook) go to test/e2e/screenshots/ (not committed).
 */
import { mkdirSync } from "node:fs";
import type { Browser, Frame, Page } from "playwright-core";
import { build } from "vite";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { appBinds } from "./app-bindings";
import { chromiumAvailable, launchChromium } from "./chromium";
import { callsFor, callsOver } from "./views/traffic";

const UI = "io.modelcontextprotocol/ui";
const RENDERS_VIEWS = { extensions: { [UI]: { mimeTypes: ["text/html;profile=mcp-app"] } }, elicitation: { form: {} } };
const SCREENSHOTS = "test/e2e/screenshots";
const HOST = "http://host.test/";

type Json = Record<string, any>;
let nextId = 1;

/** One 2026-07-28 request from the host's client (it declares that it renders views). */
async function mcp(method: string, params: Json = {}): Promise<Json> {
  const name = method === "tools/call" ? params.name : method === "resources/read" ? params.uri : undefined;
  const response = await fetch(inject("mcpUrl"), {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(name && { "mcp-name": name }),
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": RENDERS_VIEWS },
      },
    }),
  });
  const message = (await response.json()) as Json;
  if (message.error) throw new Error(`${method}: ${JSON.stringify(message.error)}`);
  return message.result;
}

/** What the host asked the user (the server's confirmation questions). */
const asked: string[] = [];
/** Whether the user says yes to the next question (a test may have them decline). */
let userConfirms = true;

/** A tool call as the host makes it: a question the server asks (input_required) is answered, then the call retried. */
async function hostCall(params: Json): Promise<Json> {
  let result = await mcp("tools/call", params);
  while (result.resultType === "input_required") {
    const inputResponses: Json = {};
    for (const [key, request] of Object.entries(result.inputRequests as Json)) {
      asked.push(request.params.message);
      inputResponses[key] = userConfirms ? { action: "accept", content: { delete: true } } : { action: "decline" };
    }
    result = await mcp("tools/call", { ...params, inputResponses, requestState: result.requestState });
  }
  return result;
}

/** The host page: AppBridge and the host script, bundled into one inline script. */
async function hostPage(): Promise<string> {
  const result = await build({
    configFile: false,
    logLevel: "warn",
    build: { write: false, minify: false, lib: { entry: "test/e2e/views/host.ts", formats: ["es"], fileName: "host" } },
  });
  const [chunk] = ((Array.isArray(result) ? result[0] : result) as { output: { code: string }[] }).output;
  return `<!doctype html><html><head><title>Test host</title><style>body{margin:0}iframe{border:0;width:100%}</style></head><body><script type="module">${chunk!.code}</script></body></html>`;
}

/** WCAG contrast ratio of two computed `rgb(...)` colors. */
function contrast(one: string, other: string): number {
  const luminance = (color: string) => {
    const [r, g, b] = (color.match(/[\d.]+/g) ?? []).slice(0, 3).map((value) => {
      const channel = Number(value) / 255;
      return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  };
  const [light, dark] = [luminance(one), luminance(other)].sort((a, b) => b - a);
  return (light! + 0.05) / (dark! + 0.05);
}

let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
});

// Views need the ASSETS binding: an app that removed it offers none (test/engine/worker/bindings.test.ts covers that).
describe.skipIf(!chromiumAvailable || !appBinds("ASSETS"))("the notebook view in a browser host", () => {
  let page: Page;
  let notebook: string;
  let viewHtml: string;
  const errors: string[] = [];
  const frame = () => page.frameLocator("iframe");
  /** The view's frame, to act as the browser would on it (the page holds one view at a time). */
  const viewFrame = (): Frame => page.frames().find((candidate) => candidate !== page.mainFrame())!;
  const listed = () => frame().locator("#notes li").allTextContents();

  /** Opens the view on a notebook, as a host does when the model called search_notes on it. */
  async function startView(notebookId: string, theme: "light" | "dark" = "light") {
    const args = { notebook_id: notebookId, query: "" };
    const toolResult = await mcp("tools/call", { name: "search_notes", arguments: args });
    await page.evaluate((start) => window.startView(start as never), { html: viewHtml, toolInput: args, toolResult, theme });
  }

  /**
   * The page hidden or shown, as the view sees it. Headless Chromium keeps every page visible (another tab brought
   * to the front does not hide it), so the frame's document reports the state and fires the event a browser would.
   */
  async function setPageVisibility(state: "visible" | "hidden") {
    await viewFrame().evaluate((next) => {
      Object.defineProperty(document, "visibilityState", { configurable: true, get: () => next });
      Object.defineProperty(document, "hidden", { configurable: true, get: () => next === "hidden" });
      document.dispatchEvent(new Event("visibilitychange"));
    }, state);
  }

  /**
   * Moves the view out of the host page's viewport (as a conversation scrolled past it) or back, and waits until the
   * view has been told: an observer made after the view's own is called after it, for the same change.
   */
  async function moveView(where: "off screen" | "on screen") {
    await page.evaluate((off) => {
      document.querySelector("iframe")!.style.marginTop = off ? "300vh" : "0";
    }, where === "off screen");
    await viewFrame().evaluate(
      (wanted) =>
        new Promise<void>((resolve) => {
          const observer = new IntersectionObserver(([entry]) => {
            if (entry?.isIntersecting === wanted) {
              observer.disconnect();
              resolve();
            }
          });
          observer.observe(document.documentElement);
        }),
      where === "on screen",
    );
  }

  /**
   * A screenshot of the view. A few animation frames first (fake time; no fallback read is due in them), so the frame
   * takes the view's size; then shoot until the picture is the rendered view: the sandboxed frame paints on its own
   * schedule (a blank frame is a PNG of a few hundred bytes to 3 KB; the rendered one is well over 5 KB), and on a
   * busy machine its first paint can take seconds. Each attempt moves fake time on by one frame (no read is due).
   */
  async function shoot(name: string): Promise<Buffer> {
    expect(await callsOver(page, 100)).toEqual([]);
    mkdirSync(SCREENSHOTS, { recursive: true });
    let shot: Buffer = Buffer.alloc(0);
    await expect
      .poll(
        async () => {
          await page.clock.runFor(16);
          shot = await page.locator("iframe").screenshot({ path: `${SCREENSHOTS}/${name}.png` });
          return shot.byteLength;
        },
        { timeout: 20_000, interval: 250 },
      )
      .toBeGreaterThan(5_000);
    return shot;
  }

  async function setTheme(theme: "light" | "dark") {
    await page.evaluate((next) => window.setTheme(next), theme);
    await expect.poll(() => frame().locator("html").getAttribute("data-theme")).toBe(theme);
  }

  async function addNote(notebookId: string, title: string) {
    return hostCall({ name: "add_note", arguments: { notebook_id: notebookId, title, body: `About ${title}.` } });
  }

  beforeAll(async () => {
    notebook = (await mcp("tools/call", { name: "create_notebook", arguments: { title: "Browser test" } })).structuredContent.notebook_id;
    for (const [title, tags] of [
      ["Groceries", ["home"]],
      ["Quarterly report", ["work"]],
    ] as const) {
      await mcp("tools/call", { name: "add_note", arguments: { notebook_id: notebook, title, body: `About ${title}.`, tags } });
    }
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 720, height: 520 } })).newPage();
    // Console errors of the host and of the view's frame (a CSP violation is one), and uncaught exceptions.
    page.on("console", (message) => message.type() === "error" && errors.push(message.text()));
    page.on("pageerror", (error) => errors.push(error.message));
    await page.exposeFunction("mcpRequest", (method: string, params: Json) =>
      method === "tools/call" ? hostCall(params) : mcp(method, params),
    );
    // Fake time for every frame, paused: the view's timers fire only when a test moves the clock on (./views/traffic).
    await page.clock.install();
    await page.clock.pauseAt(Date.now() + 60_000);
    const html = await hostPage();
    await page.route(HOST, (route) => route.fulfill({ contentType: "text/html", body: html }));
    await page.goto(HOST);
  }, 60_000);

  it("lists the tool's view for the host, and the view loads under its CSP with the notes created through MCP", async () => {
    const { tools } = await mcp("tools/list");
    const search = tools.find((tool: Json) => tool.name === "search_notes");
    expect(search._meta.ui.resourceUri).toBe("ui://notes/notebook");
    const [view] = (await mcp("resources/read", { uri: search._meta.ui.resourceUri })).contents;
    expect(view.mimeType).toBe("text/html;profile=mcp-app");
    viewHtml = view.text;

    const args = { notebook_id: notebook, query: "" };
    const toolResult = await mcp("tools/call", { name: "search_notes", arguments: args });
    const calls = await callsFor(page, () =>
      page.evaluate((start) => window.startView(start as never), {
        html: view.text,
        csp: view._meta?.ui?.csp,
        toolInput: args,
        toolResult,
        theme: "light",
      }),
    );
    await expect.poll(listed).toEqual(["Quarterly reportwork", "Grocerieshome"]);
    expect(await frame().locator("html").getAttribute("data-theme")).toBe("light");
    // The host's tool result is the first list: showing it costs no call.
    expect(calls).toEqual([]);
  });

  it("opens a note with the keyboard and saves an edit", async () => {
    await frame()
      .getByRole("button", { name: /Groceries/ })
      .focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => frame().getByLabel("Title").inputValue()).toBe("Groceries");
    await frame().getByLabel("Title").fill("Groceries for Sunday");
    await frame().getByLabel("Text").fill("Bread, apples.");
    await frame().getByRole("button", { name: "Save" }).click();
    await expect.poll(() => frame().getByRole("status").textContent()).toBe('Saved "Groceries for Sunday".');

    const { notes } = (await mcp("tools/call", { name: "search_notes", arguments: { notebook_id: notebook, query: "sunday" } }))
      .structuredContent;
    const saved = (await mcp("tools/call", { name: "get_note", arguments: { notebook_id: notebook, note_id: notes[0].id } }))
      .structuredContent;
    expect(saved).toMatchObject({ title: "Groceries for Sunday", body: "Bread, apples.", tags: ["home"] });
    await expect.poll(listed).toEqual(["Groceries for Sundayhome", "Quarterly reportwork"]);
  });

  it("takes screenshots in light and dark", async () => {
    const light = await shoot("notebook-light");
    await setTheme("dark");
    const dark = await shoot("notebook-dark");
    expect(Buffer.compare(light, dark)).not.toBe(0);
    await setTheme("light");
  });

  it("deletes the open note once the host has asked the user, and says so by its title", async () => {
    await frame().getByRole("button", { name: "Delete…" }).click();
    await expect.poll(() => frame().getByRole("status").textContent()).toBe('Deleted "Groceries for Sunday".');
    expect(asked).toEqual(['Delete the note "Groceries for Sunday"? This cannot be undone.']);
    await expect.poll(listed).toEqual(["Quarterly reportwork"]);
    expect(await frame().locator("#editor").isHidden()).toBe(true);
  });

  it("names notes by their titles in status lines, never by their ids", async () => {
    await page.evaluate((result) => window.forwardToolResult(result), await addNote(notebook, "Keep me"));
    await expect.poll(listed).toContain("Keep me");
    await frame().getByRole("button", { name: "Keep me" }).click();
    await expect.poll(() => frame().getByLabel("Title").inputValue()).toBe("Keep me");
    // Declined, the server keeps the note (its message for the model names it by id); then confirmed, it goes.
    userConfirms = false;
    try {
      await frame().getByRole("button", { name: "Delete…" }).click();
      await expect.poll(() => frame().getByRole("status").textContent()).toBe('Kept "Keep me": the deletion was not confirmed.');
    } finally {
      userConfirms = true;
    }
    await frame().getByRole("button", { name: "Delete…" }).click();
    await expect.poll(() => frame().getByRole("status").textContent()).toBe('Deleted "Keep me".');
    await expect.poll(listed).not.toContain("Keep me");
  });

  it("shows a change another tool call made as soon as the host forwards its result: one read, no poll", async () => {
    const calls = await callsFor(page, async () => {
      // The model adds a note in the same conversation; the host sends its result to the view on screen.
      const added = await addNote(notebook, "From the model");
      await page.evaluate((result) => window.forwardToolResult(result), added);
    });
    expect(calls).toEqual(["search_notes"]);
    expect(await listed()).toContain("From the model");
  });

  it("ignores forwarded results that change nothing, or change another notebook", async () => {
    const other = (await mcp("tools/call", { name: "create_notebook", arguments: { title: "Other" } })).structuredContent.notebook_id;
    const calls = await callsFor(page, async () => {
      for (const result of [
        await addNote(other, "Elsewhere"),
        await mcp("tools/call", { name: "search_notes", arguments: { notebook_id: other, query: "" } }),
        await mcp("tools/call", { name: "get_note", arguments: { notebook_id: notebook, note_id: "n_000000000000" } }),
      ]) {
        await page.evaluate((forwarded) => window.forwardToolResult(forwarded), result);
      }
    });
    expect(calls).toEqual([]);
    expect(await listed()).not.toContain("Elsewhere");
  });

  it("reads its list once for its own change, whether the host forwards that result back before or after answering", async () => {
    await frame().getByRole("button", { name: "From the model" }).click();
    await expect.poll(() => frame().getByLabel("Title").inputValue()).toBe("From the model");
    for (const order of ["before answering", "after answering"] as const) {
      const calls = await callsFor(page, async () => {
        await page.evaluate((before) => {
          window.forwardBeforeAnswer = before;
        }, order === "before answering");
        await frame().getByLabel("Text").fill(`Edited, forwarded ${order}.`);
        await frame().getByRole("button", { name: "Save" }).click();
        await expect.poll(() => frame().getByRole("status").textContent()).toBe('Saved "From the model".');
        await page.evaluate(() => window.settled());
        if (order === "after answering") await page.evaluate(() => window.forwardToolResult(window.lastViewResult!));
      });
      expect(calls, order).toEqual(["update_note", "search_notes"]);
    }
    await page.evaluate(() => {
      window.forwardBeforeAnswer = false;
    });
  });

  it("makes no tool call while the page is hidden, and reads once when it is shown again after a change", async () => {
    await setPageVisibility("hidden");
    expect(await callsOver(page, 5 * 60_000)).toEqual([]);
    // A change announced while hidden waits for the view to be shown.
    const whileHidden = await callsFor(page, async () => {
      await page.evaluate((result) => window.forwardToolResult(result), await addNote(notebook, "While hidden"));
    });
    expect(whileHidden).toEqual([]);
    expect(await callsFor(page, () => setPageVisibility("visible"))).toEqual(["search_notes"]);
    expect(await listed()).toContain("While hidden");
  });

  it("makes no tool call while scrolled out of sight; back in sight it reads only a stale list", async () => {
    expect(await callsFor(page, () => moveView("off screen"))).toEqual([]);
    expect(await callsOver(page, 5 * 60_000)).toEqual([]);
    // Five minutes away: stale, read once on the way back.
    expect(await callsFor(page, () => moveView("on screen"))).toEqual(["search_notes"]);
    // Away and back at once: the list is fresh, so no read; the fallback timer simply goes on.
    expect(
      await callsFor(page, async () => {
        await moveView("off screen");
        await moveView("on screen");
      }),
    ).toEqual([]);
    expect(await callsOver(page, 30_000)).toEqual(["search_notes"]);
  });

  it("falls back to reading the list every 30 s while visible and idle: 10 calls in 5 minutes", async () => {
    expect(await callsOver(page, 5 * 60_000)).toEqual(Array(10).fill("search_notes"));
  });

  it("shows a note another client added, within one fallback read", async () => {
    await mcp("tools/call", { name: "add_note", arguments: { notebook_id: notebook, title: "From another client", body: "Hello." } });
    expect(await callsOver(page, 30_000)).toEqual(["search_notes"]);
    expect(await listed()).toContain("From another client");
  });

  it("shows a failure as an error: an alert, set apart from status lines, readable in light and dark", async () => {
    const alert = frame().getByRole("alert");
    // A failure in the view: a note without a title.
    await frame().getByRole("button", { name: "From another client" }).click();
    await expect.poll(() => frame().getByLabel("Title").inputValue()).toBe("From another client");
    await frame().getByLabel("Title").fill("");
    await frame().getByRole("button", { name: "Save" }).click();
    await expect.poll(() => alert.textContent()).toBe("A note needs a title.");

    // A failure the server reports: a note another client deleted meanwhile, named by its title, never its id.
    const { notes } = (await mcp("tools/call", { name: "search_notes", arguments: { notebook_id: notebook, query: "report" } }))
      .structuredContent;
    await hostCall({ name: "delete_note", arguments: { notebook_id: notebook, note_id: notes[0].id } });
    await frame()
      .getByRole("button", { name: /Quarterly report/ })
      .click();
    await expect.poll(() => alert.textContent()).toBe('Could not open "Quarterly report": it is no longer in this notebook.');
    // ... and the list is read again, without the deleted note.
    await expect.poll(listed).not.toContain("Quarterly reportwork");

    for (const theme of ["light", "dark"] as const) {
      await setTheme(theme);
      const [error, status] = await Promise.all(
        ["#error", "#status"].map((selector) =>
          frame()
            .locator(selector)
            .evaluate((node) => {
              const style = getComputedStyle(node);
              return { color: style.color, background: style.backgroundColor, bar: style.borderLeftWidth, weight: style.fontWeight };
            }),
        ),
      );
      expect(contrast(error!.color, error!.background), theme).toBeGreaterThanOrEqual(4.5);
      expect(error!.bar, theme).toBe("4px");
      expect(Number(error!.weight), theme).toBeGreaterThanOrEqual(600);
      expect(status!.bar, theme).toBe("0px");
      expect(error!.color, theme).not.toBe(status!.color);
      await shoot(`notebook-error-${theme}`);
    }
    await setTheme("light");

    // The next action that succeeds clears it.
    await frame().getByRole("button", { name: "Search" }).click();
    await expect.poll(() => alert.count()).toBe(0);
  });

  it("offers to add a note in an empty notebook, and adds it through the host", async () => {
    const fresh = (await mcp("tools/call", { name: "create_notebook", arguments: { title: "Empty" } })).structuredContent.notebook_id;
    await startView(fresh);
    await expect.poll(() => frame().locator("#empty").textContent()).toContain("This notebook has no notes yet.");
    for (const theme of ["light", "dark"] as const) {
      await setTheme(theme);
      await shoot(`notebook-empty-${theme}`);
    }
    await setTheme("light");

    const calls = await callsFor(page, async () => {
      await frame().getByRole("button", { name: "Add a note" }).click();
      await expect.poll(() => frame().locator("#editor-heading").textContent()).toBe("New note");
      await frame().getByLabel("Title").fill("First note");
      await frame().getByLabel("Tags").fill("start");
      await frame().getByLabel("Text").fill("Written in the view.");
      await frame().getByRole("button", { name: "Save" }).click();
      await expect.poll(() => frame().getByRole("status").textContent()).toBe('Added "First note".');
    });
    expect(calls).toEqual(["add_note", "search_notes"]);
    await expect.poll(listed).toEqual(["First notestart"]);
    expect(await frame().locator("#empty").isHidden()).toBe(true);
    expect(await frame().locator("#editor-heading").textContent()).toBe("Edit note");
    const { notes } = (await mcp("tools/call", { name: "search_notes", arguments: { notebook_id: fresh, query: "" } })).structuredContent;
    expect(notes).toMatchObject([{ title: "First note", tags: ["start"] }]);
  });

  it("logged no console error, CSP violation or exception in the host or the view", () => {
    expect(errors).toEqual([]);
  });
});
