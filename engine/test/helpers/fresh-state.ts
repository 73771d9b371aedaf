/**
 * Runs before each test file of the workerd project (vitest.config.ts `setupFiles`). The files share one Worker and
 * one module graph (`isolate: false`): starting the runtime and importing the Worker for each file cost about 2.5 s a
 * file. What isolation gave them, this gives back: every file starts with no Durable Object (no hub, session, task or
 * notebook, nothing stored, no socket open) and with the fixture's records empty, as if it ran alone.
 * Not reset: KV (OAUTH_KV, which only the purge tests use) and the rate limiters' windows.
 */
import { reset } from "cloudflare:test";
import { beforeAll } from "vitest";
import { resetFixture } from "./fixture";

beforeAll(async () => {
  // Deletes every Durable Object of the Worker, ending the objects still in memory and their sockets.
  await reset();
  resetFixture();
});
