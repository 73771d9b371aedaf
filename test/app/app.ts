/**
 * The app under test: raw-wire helpers bound to the Worker in src/index.ts, called in this isolate with the real
 * bindings (the engine's own tests use the fixture server instead; see test/helpers/fixture.ts).
 */
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../src";
import { rpc } from "../helpers/rpc";

export const app = rpc((request) => worker.fetch(request, env, createExecutionContext()));
