/**
 * The conformance fixture Worker: `createMcpWorker`, unchanged, serving the fixtures in `fixtures.ts` and the skill in
 * `skills/`.
 */
import { createMcpWorker, defineSkill } from "../src";
import { prompts, resources, tools } from "./fixtures";

export default createMcpWorker<Env>({
  name: "mcp-conformance-fixture",
  version: "1.0.0",
  instructions: "Fixture server for the official MCP conformance suite.",
  tools,
  resources,
  prompts,
  // The Skills extension scenarios (SEP-2640) discover it through skills/list: skills/conformance-skill/.
  skills: [defineSkill({ name: "conformance-skill" })],
});
export { LegacySession, ReplayGuard, SubscriptionHub, TaskRunner } from "../src";
