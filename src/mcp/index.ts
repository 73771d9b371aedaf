/**
 * @module mcp
 * The engine's public boundary: the only module that code outside `src/mcp/` imports (the app, its tests, the
 * conformance fixture and the bench Workers). Everything a tool, resource or prompt module needs, the Worker
 * factory, and the Durable Object classes that wrangler.toml binds.
 */
export { ENGINE_VERSION } from "./version";
export { createMcpWorker } from "./worker";
export type { EngineBindings } from "./bindings";
export type { ServerDefinition } from "./protocol/server";

export { defineTool, toolError, type Tool, type ToolContext, type ToolResult } from "./define/tools";
export { defineResource, defineResourceTemplate, type Resource, type ResourceContext, type Completer } from "./define/resources";
export { definePrompt, type Prompt, type PromptContext } from "./define/prompts";
export { text, image, audio, resourceLink, embeddedResource, toBase64 } from "./define/content";
export { titledEnum } from "./define/schema";
export type { HandlerContext } from "./define/context";
export type { Principal } from "./auth/principal";
export { elicitForm, elicitUrl, sample, listRoots, samplingText, type InputApi } from "./input/ask";

// Durable Object classes: the app's entry module re-exports them under the names wrangler.toml binds.
export { SubscriptionHub } from "./listen/hub";
export { LegacySession } from "./legacy/session";
export { ReplayGuard } from "./input/replay-guard";
