/**
 * The landing page in a real browser: Debian's Chromium, driven by playwright-core, against the running Worker.
 * CI installs Chromium (.ci/run); on a machine without it the test is skipped unless CI is set. What the page should
 * show is asked of the server itself (its name, tools and prompts), so the test holds whatever src/ declares.
 */
import { mkdirSync } from "node:fs";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Browser } from "playwright-core";
import { afterAll, describe, expect, inject, it } from "vitest";
import { chromiumAvailable, colorDistance, inkIn, launchChromium, parseColor, pixelAt, pixelsOf } from "./chromium";

let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
});

/** The server's title (or name) and the names of its tools and prompts, as an MCP client lists them. */
async function whatTheServerOffers(url: string) {
  const client = new Client({ name: "e2e", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    const info = client.getServerVersion()!;
    const tools = (await client.listTools()).tools.map((tool) => tool.name);
    const prompts = client.getServerCapabilities()?.prompts ? (await client.listPrompts()).prompts.map((prompt) => prompt.name) : [];
    return { title: info.title ?? info.name, names: [...tools, ...prompts] };
  } finally {
    await client.close();
  }
}

describe.skipIf(!chromiumAvailable)("landing page in headless Chromium", () => {
  it("renders the server's name, endpoint and tools, and its copy button works", async () => {
    const offered = await whatTheServerOffers(inject("mcpUrl"));
    expect(offered.names.length).toBeGreaterThan(0);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
    const origin = new URL(inject("mcpUrl")).origin;
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("console", (message) => message.type() === "error" && errors.push(message.text()));

    await page.goto(`${origin}/`);
    expect(await page.title()).toBe(`${offered.title} · MCP server`);
    expect(await page.locator("h1").textContent()).toBe(offered.title);
    expect(await page.locator("#endpoint").textContent()).toBe(`${origin}/mcp`);
    expect(await page.locator("li code").allTextContents()).toEqual(expect.arrayContaining(offered.names));

    const copy = page.locator('button[data-copy="endpoint"]');
    await copy.click();
    await expect.poll(() => copy.textContent()).toBe("Copied");
    expect(await page.evaluate("navigator.clipboard.readText()")).toBe(`${origin}/mcp`);

    mkdirSync("test-results", { recursive: true });
    const shot = await page.screenshot({ path: "test-results/landing.png", fullPage: true });
    // The picture is the page as rendered: the endpoint's box in its background, the heading's text in its color,
    // each as the page's stylesheet gives it (computed in the page; the picture's pixels, read back).
    const scrolled = await page.evaluate(() => window.scrollY);
    const [endpoint, heading] = await Promise.all(
      ["#endpoint", "h1"].map(async (selector) => {
        const box = (await page.locator(selector).boundingBox())!;
        expect(box.height, selector).toBeGreaterThan(10);
        const style = await page.locator(selector).evaluate((node) => {
          const computed = getComputedStyle(node);
          return { color: computed.color, background: computed.backgroundColor };
        });
        return { box: { ...box, y: box.y + scrolled }, color: parseColor(style.color), background: parseColor(style.background) };
      }),
    );
    const [endpointPixels, headingPixels] = await pixelsOf(browser, shot, [endpoint!.box, heading!.box]);
    const endpointFill = pixelAt(endpointPixels!, endpoint!.box.x + 2, endpoint!.box.y + endpoint!.box.height / 2);
    expect(colorDistance(endpointFill, endpoint!.background), `the endpoint's background: ${endpointFill}`).toBeLessThanOrEqual(4);
    const pageBackground = pixelAt(headingPixels!, heading!.box.x, heading!.box.y);
    const ink = inkIn(headingPixels!, pageBackground);
    expect(colorDistance(ink, heading!.color), `the heading's text: ${ink}`).toBeLessThanOrEqual(4);
    expect(errors).toEqual([]);
  });
});
