/**
 * Runs before each file of the app's tests (vitest.config.ts `setupFiles`). The files share one Worker and one module
 * graph (`isolate: false`, so the runtime starts once); this gives each file what a runtime of its own would: no
 * Durable Object (no hub, session, task or object of the app, nothing stored, no socket open), as if it ran alone.
 */
import { reset } from "cloudflare:test";
import { beforeAll } from "vitest";

beforeAll(async () => {
  await reset();
});
