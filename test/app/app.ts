/**
 * The app under test: the Worker in src/index.ts, called in this isolate with the real bindings. Tests talk to it
 * as a client does, through the engine's test client (`connect(fetchApp, ...)`, src/mcp/testing); `app` keeps the
 * raw-wire helpers for the checks no client would make (replayed or tampered requests, a stream dropped mid-call).
 * The engine's own tests use the fixture server instead (test/helpers/fixture.ts).
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../src";
import { rpc } from "../../engine/test/helpers/rpc";

/** Requests into the app's Worker, as the test client sends them. */
export const fetchApp = (request: Request) => worker.fetch(request, env, createExecutionContext());

export const app = rpc(fetchApp);
