/**
 * The conformance fixture Worker: `createMcpWorker`, unchanged, serving the fixtures in `fixtures.ts`.
 */
import { createMcpWorker } from "../../src/mcp";
import { prompts, resources, tools } from "./fixtures";

export default createMcpWorker<Env>({
  name: "mcp-conformance-fixture",
  version: "1.0.0",
  instructions: "Fixture server for the official MCP conformance suite.",
  tools,
  resources,
  prompts,
});
export { LegacySession, ReplayGuard, SubscriptionHub, TaskRunner } from "../../src/mcp";
