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
 * @param data - The image's bytes, base64-encoded (see `toBase64`).
 * @param mimeType - Its media type, such as `image/png`.
 * @returns The block `{ type: "image", data, mimeType }`.
 *
 * @example
 * ```ts
 * export async function chartResult(chartUrl: string): Promise<ToolResult> {
 *   const png = new Uint8Array(await (await fetch(chartUrl)).arrayBuffer());
 *   return { content: [text("The chart:"), image(toBase64(png), "image/png")] };
 * }
 * ```
 */
export const image = (data: string, mimeType: string): ContentBlock => ({ type: "image", data, mimeType });

/**
 * An audio content block, for a tool result or a prompt message.
 *
 * @param data - The audio's bytes, base64-encoded (see `toBase64`).
 * @param mimeType - Its media type, such as `audio/wav`.
 * @returns The block `{ type: "audio", data, mimeType }`.
 *
 * @example
 * ```ts
 * export function chimeResult(wav: Uint8Array): ToolResult {
 *   return { content: [audio(toBase64(wav), "audio/wav")] };
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

/**
 * Base64 of UTF-8 text or raw bytes, for `blob` contents and for `image` and `audio` blocks.
 *
 * @param data - Text (encoded as UTF-8 first) or bytes.
 * @returns Standard base64 (with `+`, `/` and padding), as the protocol's `data` and `blob` fields take it.
 *
 * @example
 * ```ts
 * export const helloFile: ResourceContents = { uri: "files://hello.txt", mimeType: "text/plain", blob: toBase64("Hello") };
 * ```
 */
export function toBase64(data: string | Uint8Array): string {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
