/**
 * The conformance fixture Worker: `createMcpWorker`, unchanged, serving the fixtures in `fixtures.ts` and the skill in
 * `skills/`.
 */
import { createMcpWorker, defineSkill } from "../src";
import { prompts, resources, tools } from "./fixtures";

const fixture = createMcpWorker<Env>({
  name: "mcp-conformance-fixture",
  version: "1.0.0",
  instructions: "Fixture server for the official MCP conformance suite.",
  tools,
  resources,
  prompts,
  // The Skills extension scenarios (SEP-2640) discover it through skills/list: skills/conformance-skill/.
  skills: [defineSkill({ name: "conformance-skill" })],
});

export default fixture;
export class ReplayGuard extends fixture.ReplayGuard {}
export class SubscriptionHub extends fixture.SubscriptionHub {}
export class LegacySession extends fixture.LegacySession {}
export class TaskRunner extends fixture.TaskRunner {}
