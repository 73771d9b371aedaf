/**
 * @module define/content
 * Small constructors for the content blocks a tool or prompt returns, so handlers read as intent.
 */
import type { ContentBlock, ResourceContents } from "../wire/types";

/**
 * A text content block: what most tool results and prompt messages are made of.
 *
 * @param value - The text, as the model (or the user) reads it.
 * @returns The block `{ type: "text", text: value }`.
 *
 * @example
 * ```ts
 * export const greeting: ToolResult = { content: [text("Hello! Ask me for a forecast.")] };
 * ```
 */
export const text = (value: string): ContentBlock => ({ type: "text", text: value });

/**
 * An image content block, for a tool result or a prompt message.
 *
 * @param data - The image's bytes, base64-encoded (`bytes.toBase64()`).
 * @param mimeType - Its media type, such as `image/png`.
 * @returns The block `{ type: "image", data, mimeType }`.
 *
 * @example
 * ```ts
 * export async function chartResult(chartUrl: string): Promise<ToolResult> {
 *   const png = new Uint8Array(await (await fetch(chartUrl)).arrayBuffer());
 *   return { content: [text("The chart:"), image(png.toBase64(), "image/png")] };
 * }
 * ```
 */
export const image = (data: string, mimeType: string): ContentBlock => ({ type: "image", data, mimeType });

/**
 * An audio content block, for a tool result or a prompt message.
 *
 * @param data - The audio's bytes, base64-encoded (`bytes.toBase64()`).
 * @param mimeType - Its media type, such as `audio/wav`.
 * @returns The block `{ type: "audio", data, mimeType }`.
 *
 * @example
 * ```ts
 * export function chimeResult(wav: Uint8Array): ToolResult {
 *   return { content: [audio(wav.toBase64(), "audio/wav")] };
 * }
 * ```
 */
export const audio = (data: string, mimeType: string): ContentBlock => ({ type: "audio", data, mimeType });

/**
 * A link to a resource, without its contents: the client may read it with `resources/read` when it needs to. Use
 * it to point at what a tool created or found (a note, a file). 2025-03-26 clients, whose revision has no links,
 * get a text block naming it instead (`title: uri`).
 *
 * @param link - The resource's `uri` and `name`, and optionally `title`, `description`, `mimeType`, `size`,
 *   `icons`, `annotations`.
 * @returns The block `{ type: "resource_link", ...link }`.
 *
 * @example
 * ```ts
 * export const noteCreated: ToolResult = {
 *   content: [text("Added the note."), resourceLink({ uri: "note://nb_1/n_2", name: "Shopping list", mimeType: "text/markdown" })],
 * };
 * ```
 */
export const resourceLink = (link: Omit<Extract<ContentBlock, { type: "resource_link" }>, "type">): ContentBlock => ({
  type: "resource_link",
  ...link,
});

/**
 * A resource's contents embedded in a tool result or a prompt message, so the model reads them without another
 * request.
 *
 * @param resource - The contents: `uri`, optional `mimeType`, and `text` or base64 `blob`.
 * @returns The block `{ type: "resource", resource }`.
 *
 * @example
 * ```ts
 * export const reviewMessage: PromptMessage = {
 *   role: "user",
 *   content: embeddedResource({ uri: "note://nb_1/n_2", mimeType: "text/markdown", text: "# Shopping list\n\n- milk" }),
 * };
 * ```
 */
export const embeddedResource = (resource: ResourceContents): ContentBlock => ({ type: "resource", resource });
