/**
 * Runs before each end-to-end test file (vitest.config.ts `setupFiles`): waits until the Worker the global setup
 * started is ready, since the global setup does not wait for it (./global-setup.ts), and gives expect.poll a bound
 * that holds on a busy machine.
 */
import { beforeAll, inject, vi } from "vitest";
import { workerReady } from "./tail/start";

// How long expect.poll waits for what a test expects to happen: a round trip through wrangler dev, a stream or a
// browser. Vitest's default, a second, is crossed on a busy machine (two cores at a load of 10 and more); this is a
// bound on a hang, below the test's own timeout so that a failure shows what was polled, and never a measurement.
vi.setConfig({ expect: { poll: { timeout: 20_000, interval: 50 } } });

beforeAll(async () => {
  await workerReady(inject("tailEventsUrl"));
}, 60_000);
