/**
 * Measures a view's refresh traffic in the browser test host without waiting for real time. The test installs
 * Playwright's fake clock paused, before the host page loads, so every timer of the host and the view is fake and
 * fires only when the clock is moved on. Here it moves on in steps; after each step the host is asked to settle
 * (every call the view started has been answered), so a timer that fires starts its call before the next step,
 * and no request is ever outlived by its timeout.
 */
import type { Page } from "playwright-core";

/** Steps of at most this long (ms): shorter than a request's timeout in the ext-apps runtime (60 s). */
const STEP_MS = 5_000;

/** The tool calls the view made through the host while `ms` of (fake) time passed, in order. */
export function callsOver(page: Page, ms: number): Promise<string[]> {
  return callsFor(page, async () => {
    for (let elapsed = 0; elapsed < ms; elapsed += STEP_MS) {
      await page.clock.runFor(Math.min(STEP_MS, ms - elapsed));
      await page.evaluate(() => window.settled());
    }
  });
}

/** The tool calls the view made through the host for `action` (with the clock paused, none is a timer's). */
export async function callsFor(page: Page, action: () => Promise<unknown>): Promise<string[]> {
  const before = await page.evaluate(() => window.viewCalls.length);
  await action();
  await page.evaluate(() => window.settled());
  return page.evaluate((from) => window.viewCalls.slice(from), before);
}
