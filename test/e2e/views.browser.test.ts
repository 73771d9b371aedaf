/**
 * The notebook view in a real MCP Apps host: headless Chromium (Debian's, driven by playwright-core) renders the
 * view the running Worker serves, in a sandboxed iframe under its CSP, bridged by the ext-apps host side
 * (test/e2e/views/host.ts). The host's MCP client is this test, in Node: it declares the extension, answers the
 * server's confirmation question, and is the "other client" whose change the view must pick up.
 * Screenshots (light and dark) go to test/e2e/screenshots/ (not committed).
 */
import { mkdirSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { build } from "vite";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { appBinds } from "./app-bindings";
import { chromiumAvailable, launchChromium } from "./chromium";

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

/** What the host asked the user (the server's confirmation questions), answered "yes" as the user would. */
const asked: string[] = [];

/** A tool call as the host makes it: a question the server asks (input_required) is answered, then the call retried. */
async function hostCall(params: Json): Promise<Json> {
  let result = await mcp("tools/call", params);
  while (result.resultType === "input_required") {
    const inputResponses: Json = {};
    for (const [key, request] of Object.entries(result.inputRequests as Json)) {
      asked.push(request.params.message);
      inputResponses[key] = { action: "accept", content: { delete: true } };
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

let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
});

// Views need the ASSETS binding: an app that removed it offers none (test/engine/worker/bindings.test.ts covers that).
describe.skipIf(!chromiumAvailable || !appBinds("ASSETS"))("the notebook view in a browser host", () => {
  let page: Page;
  let notebook: string;
  const errors: string[] = [];

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

    const args = { notebook_id: notebook, query: "" };
    const toolResult = await mcp("tools/call", { name: "search_notes", arguments: args });
    await page.evaluate((start) => window.startView(start as never), {
      html: view.text,
      csp: view._meta?.ui?.csp,
      toolInput: args,
      toolResult,
      theme: "light",
    });
    const frame = page.frameLocator("iframe");
    await expect.poll(() => frame.locator("#notes li").allTextContents()).toEqual(["Quarterly reportwork", "Grocerieshome"]);
    expect(await frame.locator("html").getAttribute("data-theme")).toBe("light");
  });

  it("opens a note with the keyboard and saves an edit", async () => {
    const frame = page.frameLocator("iframe");
    await frame.getByRole("button", { name: /Groceries/ }).focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => frame.getByLabel("Title").inputValue()).toBe("Groceries");
    await frame.getByLabel("Title").fill("Groceries for Sunday");
    await frame.getByLabel("Text").fill("Bread, apples.");
    await frame.getByRole("button", { name: "Save" }).click();
    await expect.poll(() => frame.getByRole("status").textContent()).toBe('Saved "Groceries for Sunday".');

    const { notes } = (await mcp("tools/call", { name: "search_notes", arguments: { notebook_id: notebook, query: "sunday" } }))
      .structuredContent;
    const saved = (await mcp("tools/call", { name: "get_note", arguments: { notebook_id: notebook, note_id: notes[0].id } }))
      .structuredContent;
    expect(saved).toMatchObject({ title: "Groceries for Sunday", body: "Bread, apples.", tags: ["home"] });
  });

  it("takes screenshots in light and dark", async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const view = page.locator("iframe");
    // The sandboxed frame paints on its own schedule: shoot until the picture is the rendered view (a blank frame
    // is a PNG of a few hundred bytes to 3 KB; the rendered one is well over 5 KB).
    const shoot = async (path: string) => {
      let shot: Buffer = Buffer.alloc(0);
      await expect
        .poll(async () => {
          shot = await view.screenshot({ path });
          return shot.byteLength;
        })
        .toBeGreaterThan(5_000);
      return shot;
    };
    const light = await shoot(`${SCREENSHOTS}/notebook-light.png`);
    await page.evaluate(() => window.setTheme("dark"));
    await expect.poll(() => page.frameLocator("iframe").locator("html").getAttribute("data-theme")).toBe("dark");
    const dark = await shoot(`${SCREENSHOTS}/notebook-dark.png`);
    expect(Buffer.compare(light, dark)).not.toBe(0);
  });

  it("deletes the open note once the host has asked the user, with the server's single-use confirmation", async () => {
    const frame = page.frameLocator("iframe");
    await frame.getByRole("button", { name: "Delete…" }).click();
    await expect.poll(() => frame.getByRole("status").textContent()).toMatch(/^Deleted note .* \("Groceries for Sunday"\)\.$/);
    expect(asked).toEqual(['Delete the note "Groceries for Sunday"? This cannot be undone.']);
    await expect.poll(() => frame.locator("#notes li").allTextContents()).toEqual(["Quarterly reportwork"]);
    expect(await frame.locator("#editor").isHidden()).toBe(true);
  });

  it("shows a note another client added, without being asked", async () => {
    await mcp("tools/call", { name: "add_note", arguments: { notebook_id: notebook, title: "From another client", body: "Hello." } });
    const frame = page.frameLocator("iframe");
    await expect.poll(() => frame.locator("#notes li").allTextContents(), { timeout: 15_000 }).toContain("From another client");
  });

  it("logged no console error, CSP violation or exception in the host or the view", () => {
    expect(errors).toEqual([]);
  });
});
