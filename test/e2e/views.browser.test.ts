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
 * Screenshots (light and dark: the notebook, an error, the empty notebook) go to test/e2e/screenshots/ (not committed);
 * each is checked for its theme's colors, read from its pixels against the view's own stylesheet.
 */
import { mkdirSync } from "node:fs";
import type { Browser, Frame, Page } from "playwright-core";
import { build } from "vite";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { appBinds } from "./app-bindings";
import { chromiumAvailable, colorDistance, inkIn, launchChromium, parseColor, pixelAt, pixelsOf, type Rgb } from "./chromium";
import { callsFor, callsOver } from "./views/traffic";

const UI = "io.modelcontextprotocol/ui";
const RENDERS_VIEWS = { extensions: { [UI]: { mimeTypes: ["text/html;profile=mcp-app"] } }, elicitation: { form: {} } };
const SCREENSHOTS = "test/e2e/screenshots";
const HOST = "http://host.test/";

type Json = Record<string, any>;
type Theme = "light" | "dark";
let nextId = 1;

/**
 * How far (in any one channel, of 255) a pixel may be from the stylesheet's color. Measured in headless Chromium:
 * 0, for the backgrounds and the heading's ink alike; a little room for another build's text rendering, far below the
 * gap between the themes (the screenshot test checks it: with today's stylesheet, 212 or more in each place).
 */
const COLOR_TOLERANCE = 4;

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

/** The view's HTML and its declared CSP, as the host reads them: the resource its tool names. */
interface View {
  html: string;
  csp?: Json;
  resourceUri: string;
}

async function readView(): Promise<View> {
  const { tools } = await mcp("tools/list");
  const resourceUri = tools.find((tool: Json) => tool.name === "search_notes")._meta.ui.resourceUri;
  const [view] = (await mcp("resources/read", { uri: resourceUri })).contents;
  expect(view.mimeType).toBe("text/html;profile=mcp-app");
  return { html: view.text, csp: view._meta?.ui?.csp, resourceUri };
}

/**
 * The view's own colors in a theme, from the stylesheet in its HTML: each `--name: var(--host-variable, #rrggbb)` (or
 * `--name: #rrggbb`) of `:root`, with those of `:root[data-theme="dark"]` over them in dark. The fallbacks are what
 * the view paints here: this host sends no style variables.
 */
function paletteOf(html: string, theme: Theme): Record<string, Rgb> {
  const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? "";
  const block = (selector: string) => {
    const body = new RegExp(`${selector.replace(/[[\]]/g, "\\$&")}\\s*\\{([^}]*)\\}`).exec(style)?.[1];
    if (body === undefined) throw new Error(`the view's stylesheet has no ${selector} block`);
    const colors = body.matchAll(/--([\w-]+):\s*(?:var\(--[\w-]+,\s*)?(#[0-9a-f]{6})\)?;/gi);
    return Object.fromEntries([...colors].map(([, name, hex]) => [name!, parseColor(hex!)]));
  };
  return { ...block(":root"), ...(theme === "dark" && block(':root[data-theme="dark"]')) };
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
/**
 * How long a picture may take to show the theme: seen past 20 s with both cores kept busy by another process (the
 * frame's compositor waits its turn). The poll ends at the first good picture; a test that shoots waits for a few.
 */
const PAINT_TIMEOUT_MS = 60_000;

describe.skipIf(!chromiumAvailable || !appBinds("ASSETS"))("the notebook view in a browser host", { timeout: 4 * PAINT_TIMEOUT_MS }, () => {
  let page: Page;
  let notebook: string;
  let view: View;
  /** What the shared page logged since the last test ended (see `openHost`). */
  let errors: string[];
  const frame = () => page.frameLocator("iframe");
  /** The view's frame, to act as the browser would on it (the page holds one view at a time). */
  const viewFrame = (): Frame => page.frames().find((candidate) => candidate !== page.mainFrame())!;
  const listed = () => frame().locator("#notes li").allTextContents();
  let hostHtml: Promise<string> | undefined;

  /**
   * A page of its own (its own browser context) showing the test host, and a record of what it logs: console errors
   * of the host and of the view's frame (a CSP violation is one), and uncaught exceptions. With `fakeTime`, every
   * frame's clock is Playwright's, paused: the view's timers fire only when a test moves it on (./views/traffic).
   */
  async function openHost({ fakeTime }: { fakeTime: boolean }): Promise<{ page: Page; errors: string[] }> {
    const opened = await (await browser!.newContext({ viewport: { width: 720, height: 520 } })).newPage();
    const logged: string[] = [];
    opened.on("console", (message) => message.type() === "error" && logged.push(message.text()));
    opened.on("pageerror", (error) => logged.push(error.message));
    await opened.exposeFunction("mcpRequest", (method: string, params: Json) =>
      method === "tools/call" ? hostCall(params) : mcp(method, params),
    );
    if (fakeTime) {
      await opened.clock.install();
      await opened.clock.pauseAt(Date.now() + 60_000);
    }
    hostHtml ??= hostPage();
    const html = await hostHtml;
    await opened.route(HOST, (route) => route.fulfill({ contentType: "text/html", body: html }));
    await opened.goto(HOST);
    return { page: opened, errors: logged };
  }

  /**
   * Opens the view on a notebook, as a host does when the model called search_notes on it: by default the view the
   * first test read, in light, on the shared page.
   */
  async function startView(
    notebookId: string,
    { theme = "light", on = page, shown = view }: { theme?: Theme; on?: Page; shown?: View } = {},
  ) {
    const args = { notebook_id: notebookId, query: "" };
    const toolResult = await mcp("tools/call", { name: "search_notes", arguments: args });
    await on.evaluate((start) => window.startView(start as never), {
      html: shown.html,
      csp: shown.csp,
      toolInput: args,
      toolResult,
      theme,
    });
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
   * Where the picture differs from the theme's colors (none: it is the view, painted in that theme). Three known
   * places, each a different color of the view's stylesheet in each theme: the page's background (inside `main`'s
   * padding), a button's fill (the Search button, inside its left padding), and the heading's text.
   */
  async function offTheme(shot: Buffer, theme: Theme): Promise<string[]> {
    const palette = paletteOf(view.html, theme);
    const origin = (await page.locator("iframe").boundingBox())!;
    const boxOf = async (selector: string) => {
      const box = (await frame().locator(selector).boundingBox())!;
      return { ...box, x: box.x - origin.x, y: box.y - origin.y };
    };
    const [main, search, heading] = await Promise.all(["main", "#search", "#heading"].map(boxOf));
    const [mainPixels, searchPixels, headingPixels] = await pixelsOf(browser!, shot, [main!, search!, heading!]);
    const background = pixelAt(mainPixels!, main!.x + 4, main!.y + 4);
    const places: [string, Rgb, Rgb][] = [
      ["the page's background (--bg)", background, palette.bg!],
      ["the Search button's fill (--bg-alt)", pixelAt(searchPixels!, search!.x + 4, search!.y + search!.height / 2), palette["bg-alt"]!],
      // The ink against the background the picture has (whichever it is), so a picture in the other theme shows its own.
      ["the heading's text (--fg)", inkIn(headingPixels!, background), palette.fg!],
    ];
    return places
      .filter(([, seen, wanted]) => colorDistance(seen, wanted) > COLOR_TOLERANCE)
      .map(([place, seen, wanted]) => `${theme}: ${place} is rgb(${seen.join(", ")}), not rgb(${wanted.join(", ")})`);
  }

  /**
   * A screenshot of the view in a theme, saved as `<name>-<theme>.png`, once it shows that theme's colors. A few
   * animation frames first (fake time; no fallback read is due in them), so the frame takes the view's size; then
   * shoot until the picture is the view painted in the theme: the sandboxed frame paints on its own schedule (blank
   * at first), and on a busy machine its first paint, or its repaint in a new theme, can take seconds. Each attempt
   * moves fake time on by one frame (no read is due).
   */
  async function shoot(name: string, theme: Theme): Promise<void> {
    expect(await callsOver(page, 100)).toEqual([]);
    expect(await frame().locator("html").getAttribute("data-theme")).toBe(theme);
    mkdirSync(SCREENSHOTS, { recursive: true });
    await expect
      .poll(
        async () => {
          await page.clock.runFor(16);
          return offTheme(await page.locator("iframe").screenshot({ path: `${SCREENSHOTS}/${name}-${theme}.png` }), theme);
        },
        { timeout: PAINT_TIMEOUT_MS, interval: 250 },
      )
      .toEqual([]);
  }

  async function setTheme(theme: Theme) {
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
    ({ page, errors } = await openHost({ fakeTime: true }));
  }, 60_000);

  // Whatever a test did with the host and the view, neither logged an error meanwhile (a CSP violation is one).
  afterEach(() => {
    expect(errors.splice(0), "console errors and exceptions of the host and the view").toEqual([]);
  });

  it("lists the tool's view for the host, and the view loads under its CSP with the notes created through MCP", async () => {
    view = await readView();
    expect(view.resourceUri).toBe("ui://notes/notebook");
    const calls = await callsFor(page, () => startView(notebook));
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

  it("takes screenshots in light and dark, each painted in its theme's colors (background, button, text)", async () => {
    // Each place the pictures are checked at has colors far apart in the two themes: a picture in the wrong theme fails.
    const [light, dark] = [paletteOf(view.html, "light"), paletteOf(view.html, "dark")];
    for (const name of ["bg", "bg-alt", "fg"]) expect(colorDistance(light[name]!, dark[name]!), name).toBeGreaterThan(20 * COLOR_TOLERANCE);
    await shoot("notebook", "light");
    await setTheme("dark");
    await shoot("notebook", "dark");
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
      await shoot("notebook-error", theme);
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
      await shoot("notebook-empty", theme);
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

  it("loads the host and the view, in a page of its own, with no console error, CSP violation or exception", async () => {
    const fresh = await openHost({ fakeTime: false });
    try {
      await startView(notebook, { theme: "dark", on: fresh.page, shown: await readView() });
      await expect.poll(() => fresh.page.frameLocator("iframe").locator("#notes li").count()).toBeGreaterThan(0);
      await fresh.page.evaluate(() => window.settled());
      expect(fresh.errors).toEqual([]);
    } finally {
      await fresh.page.context().close();
    }
  });

  it("records a console error, a CSP violation and an exception of the view (so the test above can fail)", async () => {
    const fresh = await openHost({ fakeTime: false });
    const shown = await readView();
    // An image from an origin the view did not declare (its CSP allows data: images only), then a logged error and
    // an uncaught exception from its own inline script (which its CSP allows).
    const faulty = shown.html.replace(
      "</body>",
      '<img alt="" src="https://undeclared.example/pixel.png"><script>console.error("logged by the view"); throw new Error("thrown by the view")</script></body>',
    );
    try {
      await startView(notebook, { on: fresh.page, shown: { ...shown, html: faulty } });
      await expect.poll(() => fresh.errors.length).toBeGreaterThanOrEqual(3);
      expect(fresh.errors).toEqual(
        expect.arrayContaining([
          expect.stringMatching(
            /image 'https:\/\/undeclared\.example\/pixel\.png' violates the following Content Security Policy directive/,
          ),
          "logged by the view",
          "thrown by the view",
        ]),
      );
    } finally {
      await fresh.page.context().close();
    }
  });
});
