/**
 * @module mcp
 * The engine's public boundary: the only module that code outside `src/mcp/` imports (the app, its tests, the
 * conformance fixture and the bench Workers). Everything a tool, resource or prompt module needs, the Worker
 * factory, and the Durable Object classes (ReplayGuard, LegacySession, SubscriptionHub, TaskRunner) that the app's
 * entry module re-exports under the names wrangler.toml binds. (Biome keeps these exports sorted by path.)
 */

export type { EngineOptions, LimitOptions, Limits } from "./config/options";
export { audio, embeddedResource, image, resourceLink, text, toBase64 } from "./define/content";
export { type JsonSchemaInput, jsonSchema } from "./define/json-schema";
export { definePrompt, type Prompt, type PromptContext } from "./define/prompts";
export {
  type Completer,
  defineResource,
  defineResourceTemplate,
  type ListedResource,
  type Resource,
  type ResourceContext,
  type ResourceListPage,
} from "./define/resources";
export { defineTool, type Tool, type ToolContext, type ToolResult, toolError } from "./define/tools";
export { defineView, type View, type ViewCsp, type ViewDefinition, type ViewPermissions } from "./define/views";
export type { HandlerContext } from "./handler/context";
export { elicitForm, elicitUrl, type InputApi, listRoots, sample, samplingText } from "./handler/questions";
export { titledEnum } from "./handler/schema";
export { ReplayGuard } from "./input/replay-guard";
export { LegacySession } from "./legacy/session";
export { SubscriptionHub } from "./listen/hub";
export type { ServerDefinition } from "./server/server";
export { TaskRunner } from "./tasks/runner";
export { ENGINE_VERSION } from "./version";
export type { Principal } from "./wire/principal";
export type { TaskSupport } from "./wire/tasks";
export type { EngineBindings } from "./worker/bindings";
export { createMcpWorker, validateServer } from "./worker/create";
