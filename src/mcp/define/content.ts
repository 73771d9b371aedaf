/**
 * @module content
 * Small constructors for the content blocks a tool or prompt returns, so handlers read as intent.
 */
import type { ContentBlock, ResourceContents } from "../wire/types";

export const text = (value: string): ContentBlock => ({ type: "text", text: value });

/** `data` is base64. */
export const image = (data: string, mimeType: string): ContentBlock => ({ type: "image", data, mimeType });

/** `data` is base64. */
export const audio = (data: string, mimeType: string): ContentBlock => ({ type: "audio", data, mimeType });

export const resourceLink = (link: Omit<Extract<ContentBlock, { type: "resource_link" }>, "type">): ContentBlock => ({
  type: "resource_link",
  ...link,
});

export const embeddedResource = (resource: ResourceContents): ContentBlock => ({ type: "resource", resource });

/** Base64 of UTF-8 text or raw bytes, for `blob` contents and binary content blocks. */
export function toBase64(data: string | Uint8Array): string {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
