/**
 * The app for test/e2e/dev-server-example.test.ts: src/index.ts's Worker as it is, and beside it, for requests to
 * `/mcp?json`, the same server with limits.request.streamAfterMs at its longest (60 s). There a call's answer stays
 * JSON however long a busy machine takes to run it; at `/mcp` a call still running after a second turns into SSE
 * with keep-alive comments, as in the app. Why both in one Worker: the file's tests need both, and a wrangler dev of
 * its own for each would cost seconds of CPU to start.
 */
import { createMcpWorker } from "mcp-workers-engine";
import app, { definition } from "../../../src/index";

export { LegacySession, Notebook, OAuthState, ReplayGuard, SubscriptionHub, TaskRunner } from "../../../src/index";

const jsonAnswers = createMcpWorker<Env>({ ...definition, limits: { ...definition.limits, request: { streamAfterMs: 60_000 } } });

export default {
  fetch: (request, env, execution) => (new URL(request.url).searchParams.has("json") ? jsonAnswers : app).fetch(request, env, execution),
} satisfies ExportedHandler<Env>;
