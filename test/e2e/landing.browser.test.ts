/**
 * The landing page in a real browser: Debian's Chromium, driven by playwright-core, against the running Worker.
 * CI installs Chromium (.ci/run); on a machine without it the test is skipped unless CI is set.
 */
import { mkdirSync } from "node:fs";
import type { Browser } from "playwright-core";
import { afterAll, describe, expect, inject, it } from "vitest";
import { chromiumAvailable, launchChromium } from "./chromium";

let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!chromiumAvailable)("landing page in headless Chromium", () => {
  it("renders the server's name, endpoint and tools, and its copy button works", async () => {
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 } });
    const origin = new URL(inject("mcpUrl")).origin;
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    page.on("console", (message) => message.type() === "error" && errors.push(message.text()));

    await page.goto(`${origin}/`);
    expect(await page.title()).toBe("Notes · MCP server");
    expect(await page.locator("h1").textContent()).toBe("Notes");
    expect(await page.locator("#endpoint").textContent()).toBe(`${origin}/mcp`);
    expect(await page.locator("li code").allTextContents()).toEqual(
      expect.arrayContaining(["create_notebook", "search_notes", "delete_note", "review_notes"]),
    );

    const copy = page.locator('button[data-copy="endpoint"]');
    await copy.click();
    await expect.poll(() => copy.textContent()).toBe("Copied");
    expect(await page.evaluate("navigator.clipboard.readText()")).toBe(`${origin}/mcp`);

    mkdirSync("test-results", { recursive: true });
    const shot = await page.screenshot({ path: "test-results/landing.png", fullPage: true });
    // A rendered page is a sizeable PNG; a blank or failed render is a few hundred bytes.
    expect(shot.byteLength).toBeGreaterThan(20_000);
    const box = await page.locator("h1").boundingBox();
    expect(box!.height).toBeGreaterThan(10);
    expect(errors).toEqual([]);
  });
});
