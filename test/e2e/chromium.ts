/**
 * Headless Chromium for the browser tests (Debian's `chromium`, which .ci/run installs; CHROMIUM_PATH overrides).
 * Without it the browser tests are skipped locally, and fail in CI, where it must be present.
 */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export const chromiumAvailable = existsSync(CHROMIUM);
if (!chromiumAvailable && process.env.CI)
  throw new Error(`Chromium is missing at ${CHROMIUM}; .ci/run installs it (apt-get install chromium)`);

/** A headless Chromium that reaches nothing but the test's own servers. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
