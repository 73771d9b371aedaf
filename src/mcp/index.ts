/**
 * @module mcp
 * The public face of the protocol engine: everything `src/tools.ts`, `src/resources.ts` and `src/prompts.ts`
 * need, and `createMcpWorker`, which turns their declarations into a Worker `fetch` handler.
 */
import { createRouter } from "./http";
import { McpServer, type ServerDefinition } from "./server";

export { defineTool, toolError, type Tool, type ToolContext, type ToolResult } from "./tools";
export { defineResource, defineResourceTemplate, type Resource, type ResourceContext, type Completer } from "./resources";
export { definePrompt, type Prompt, type PromptContext } from "./prompts";
export { text, image, audio, resourceLink, embeddedResource, toBase64 } from "./content";
export { elicitForm, elicitUrl, sample, listRoots, samplingText, type InputApi } from "./input";
export { titledEnum } from "./schema";
export type { HandlerContext, Principal } from "./context";
export type { ServerDefinition } from "./server";

/** Builds the Worker's `fetch` handler from the server's declarations. Invalid declarations throw at startup. */
export function createMcpWorker(definition: ServerDefinition) {
  const router = createRouter(new McpServer(definition));
  return {
    fetch: (request: Request, env: Env, execution: ExecutionContext) => router.fetch(request, env, execution),
  } satisfies ExportedHandler<Env>;
}
