/**
 * The entry of the Worker the engine's tests run in (test/wrangler.toml): the Durable Object classes its bindings
 * name, and a `fetch` that serves nothing, since each test builds the server it needs and calls its `fetch` in the
 * test's isolate (test/helpers/rpc.ts). Tests build many servers over one `TASKS` binding, so its class runs the
 * tasks of whichever test server started them (test/helpers/task-servers.ts). `PRODUCTION_TASKS` is bound to the
 * class `createMcpWorker` makes, as an app's is (test/helpers/renamed-server.ts).
 */
import { createTaskRunner } from "../src/tasks/runner";
import { renamedWorker } from "./helpers/renamed-server";
import { taskServerNamed } from "./helpers/task-servers";

export { LegacySession } from "../src/legacy/session";
export { SubscriptionHub } from "../src/listen/hub";
export { ReplayGuard } from "../src/modern/replay-guard";
export { OAuthState } from "../src/oauth/state";
export class TaskRunner extends createTaskRunner(taskServerNamed) {}
export class ProductionTaskRunner extends renamedWorker.TaskRunner {}

export default {
  fetch: () => new Response("The engine's test Worker serves nothing: tests call the servers they build.", { status: 404 }),
} satisfies ExportedHandler;
