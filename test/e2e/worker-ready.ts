/**
 * Runs before each end-to-end test file (vitest.config.ts `setupFiles`): waits until the Worker the global setup
 * started is ready, since the global setup does not wait for it (./global-setup.ts).
 */
import { beforeAll, inject } from "vitest";
import { workerReady } from "./tail/start";

beforeAll(async () => {
  await workerReady(inject("tailEventsUrl"));
}, 60_000);
