/**
 * @module index
 * The package's main entry (`import ... from "mcp-workers-engine"`), the only engine module an app imports (the test
 * client is the other entry, `mcp-workers-engine/testing`): everything a tool, resource or prompt module needs
 * (including the types a handler's context and answers are made of) and the Worker factory, whose result also carries the Durable
 * Object classes the app's entry module exports. Each export is documented, with an example, where it is defined
 * (test/repo/public-api.test.ts checks that, and compiles every example from there). (Biome keeps these exports
 * sorted by path.)
 */

export {
  type AnswerOf,
  type Answers,
  type AskOptions,
  elicitForm,
  elicitUrl,
  type FormAnswer,
  type FormRequest,
  type InputApi,
  type InputKind,
  type InputRequest,
  listRoots,
  type RootsAnswer,
  type RootsRequest,
  type SamplingAnswer,
  type SamplingContent,
  type SamplingParams,
  type SamplingRequest,
  sample,
  samplingText,
  type UrlAnswer,
  type UrlRequest,
} from "./ask/questions";
export { type ObjectSchema, titledEnum } from "./ask/schema";
export type { EngineOptions, LimitOptions } from "./config/options";
export type { ToolBudget } from "./define/budget";
export { audio, embeddedResource, image, resourceLink, text } from "./define/content";
export { type JsonSchemaInput, jsonSchema } from "./define/json-schema";
export { definePrompt, type Prompt, type PromptContext, type PromptDefinition, type PromptResult } from "./define/prompts";
export {
  type Completer,
  type CompletionContext,
  defineResource,
  defineResourceTemplate,
  type ListedResource,
  type Resource,
  type ResourceContext,
  type ResourceDefinition,
  type ResourceListPage,
  type ResourceTemplateDefinition,
} from "./define/resources";
export { defineTool, type Tool, type ToolContext, type ToolDefinition, type ToolInput, type ToolResult, toolError } from "./define/tools";
export { defineView, type View, type ViewCsp, type ViewDefinition, type ViewPermissions } from "./define/views";
export { authorizationServer } from "./oauth/authorization-server";
export type { Audience, ClientView, HandlerContext, Publisher } from "./run/context";
export type { Declarations, ServerDefinition } from "./server/server";
export { defineSkill, type Skill, type SkillDefinition } from "./skills/define";
export { ENGINE_VERSION } from "./version";
export type { Principal } from "./wire/principal";
export type { TaskSupport } from "./wire/tasks";
export type {
  Annotations,
  CacheHint,
  ClientCapabilities,
  ContentBlock,
  Icon,
  Implementation,
  JsonObject,
  LogLevel,
  PromptMessage,
  RequestId,
  ResourceContents,
  ResourceLink,
  ToolAnnotations,
} from "./wire/types";
export type { EngineBindings } from "./worker/bindings";
export { createMcpWorker, validateServer } from "./worker/create";
