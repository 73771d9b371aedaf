/**
 * The app under test: the Worker in src/index.ts, called in this isolate with the real bindings. Tests talk to it
 * as a client does, through the engine's test client (`connect(fetchApp, ...)`); the few checks no client would make
 * (a replayed or invented stream position, a stream dropped mid-call) write the wire by hand (../wire.ts).
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../src";

/** Requests into the app's Worker, as the test client sends them. */
export const fetchApp = (request: Request) => worker.fetch(request, env, createExecutionContext());

/** The app's Worker served with more settings (for example an issuer's, to sign callers in). */
export const fetchAppWith =
  (vars: Record<string, string>) =>
  (request: Request): Promise<Response> =>
    worker.fetch(request, { ...env, ...vars } as Env, createExecutionContext());
