/**
 * @module http/guards
 * Checks every POST /mcp passes before its body is read: Host and Origin (DNS-rebinding protection, spec
 * "Security & Endpoint"), Content-Type and Accept. Each refusal is an `HttpError` with the status the spec names.
 */
import type { Config } from "../config/config";
import { textMemo } from "../util/memo";
import { HttpError, truncate } from "../wire/errors";

const LOOPBACK_HOSTNAMES = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

export function isLoopbackHostname(hostname: string): boolean {
  return LOOPBACK_HOSTNAMES.has(hostname.toLowerCase()) || hostname.toLowerCase().endsWith(".localhost");
}

/** Strips the port from a Host header value ("example.com:8787" -> "example.com", "[::1]:8787" -> "[::1]"). */
function hostnameOf(host: string): string {
  const value = host.trim().toLowerCase();
  if (value.startsWith("[")) return value.slice(0, value.indexOf("]") + 1);
  const colon = value.lastIndexOf(":");
  return colon === -1 ? value : value.slice(0, colon);
}

/**
 * Why: a web page on a rebinding domain can make the browser send requests to a server on 127.0.0.1 with its own
 * Host. In development only loopback names (and ALLOWED_HOSTS) are accepted. In production Cloudflare has already
 * matched the Host against the Worker's routes, so the list applies only when the operator sets one; with
 * authorization on, config/settings.ts requires it (or a fixed AUTH_AUDIENCE), because the server names itself, and checks
 * token audiences, by the origin of a request that passed here.
 */
export function checkHost(request: Request, config: Config): void {
  // Production without ALLOWED_HOSTS accepts every Host (the rule below): nothing to read or parse.
  if (config.mode !== "development" && config.allowedHosts.length === 0) return;
  const host = request.headers.get("host") ?? new URL(request.url).host;
  const hostname = hostnameOf(host);
  const listed = config.allowedHosts.includes(hostname) || config.allowedHosts.includes(host.trim().toLowerCase());
  if (listed) return;
  if (config.mode === "development" ? isLoopbackHostname(hostname) : config.allowedHosts.length === 0) return;
  throw new HttpError(403, "Forbidden: Host is not allowed");
}

/**
 * Why: browsers always send Origin on cross-site requests, so a present Origin must be one we trust: the server's
 * own origin, a known MCP host's or ALLOWED_ORIGINS (config/origins.ts), or (in development) a loopback page such as
 * the MCP Inspector. `Origin: null` (sandboxed frames, file:// pages) and unparseable values are refused: a page
 * that hides its origin cannot be told from a rebinding one. Clients that are not browsers send none.
 */
export function isOriginAllowed(origin: string, request: Request, config: Config): boolean {
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  if (origin === "null" || parsed.origin === "null" || parsed.origin !== origin.replace(/\/+$/, "")) return false;
  if (parsed.origin === new URL(request.url).origin) return true;
  if (config.allowedOrigins.includes(parsed.origin)) return true;
  return config.mode === "development" && isLoopbackHostname(parsed.hostname);
}

export function checkOrigin(request: Request, config: Config): void {
  const origin = request.headers.get("origin");
  if (origin !== null && !isOriginAllowed(origin, request, config)) throw new HttpError(403, originRefusal(origin));
}

/**
 * Why the refusal names the origin (in the answer, and so in the access log): the operator of a host that was
 * refused must see which origin to add to ALLOWED_ORIGINS. It is the caller's own header, quoted and cut to a
 * length, so the answer never carries more than the caller sent.
 */
export function originRefusal(origin: string): string {
  return `Forbidden: Origin ${JSON.stringify(truncate(origin, MAX_NAMED_ORIGIN))} is not allowed (ALLOWED_ORIGINS adds an origin)`;
}

const MAX_NAMED_ORIGIN = 100;

/**
 * Why the verdicts on `Content-Type` and `Accept` are remembered: a client sends the same values on every POST, and
 * taking them apart again costs each request more than the check itself. Keyed by the exact header value, so a
 * value is refused on every request that sends it, the first and every repeat alike; at most 64 values of at most
 * 256 characters each are kept per isolate (`textMemo`: a caller cannot grow it), others are judged every time.
 */
const MAX_REMEMBERED_VALUES = 64;
const MAX_REMEMBERED_LENGTH = 256;

/** The body must be JSON (spec: every message is a JSON-RPC object in UTF-8). */
export function checkContentType(request: Request): void {
  const value = request.headers.get("content-type");
  // What nearly every client sends, accepted without a lookup.
  if (value === "application/json") return;
  if (value === null || !contentTypeVerdict(value)) {
    throw new HttpError(415, "Unsupported Media Type: send Content-Type: application/json");
  }
}

/** Whether a Content-Type value declares JSON in UTF-8 (`application/json`, with no charset or `charset=utf-8`). */
export const contentTypeVerdict = textMemo(MAX_REMEMBERED_VALUES, MAX_REMEMBERED_LENGTH, (value) => {
  const [type, ...params] = value.split(";").map((part) => part.trim().toLowerCase());
  const charset = params
    .find((param) => param.startsWith("charset="))
    ?.slice("charset=".length)
    .replace(/"/g, "");
  return type === "application/json" && (charset === undefined || charset === "utf-8");
});

/** Clients must accept both answer forms, because the server picks JSON or SSE per request. */
export function checkAccept(request: Request): void {
  if (!acceptVerdict(request.headers.get("accept") ?? "")) {
    throw new HttpError(406, "Not Acceptable: send Accept: application/json, text/event-stream");
  }
}

/** Whether an Accept value admits both answer forms: both types from one reading of the header. */
export const acceptVerdict = textMemo(MAX_REMEMBERED_VALUES, MAX_REMEMBERED_LENGTH, (value) => {
  const ranges = acceptedRanges(value);
  return admits(ranges, "application/json") && admits(ranges, "text/event-stream");
});

/** Whether the request's Accept header admits `type`: exactly, through its wildcard (`text/*`) or the any-type one; never with q=0. */
export function accepts(request: Request, type: string): boolean {
  return admits(acceptedRanges(request.headers.get("accept") ?? ""), type);
}

/** The media ranges of an Accept value, lowercased, leaving out those with q=0 (RFC 9110 §12.4.2: refused). */
function acceptedRanges(accept: string): string[] {
  const ranges: string[] = [];
  for (const part of accept.split(",")) {
    const [range = "", ...params] = part.split(";");
    if (params.some((param) => REFUSED_QUALITY.test(param))) continue;
    ranges.push(range.trim().toLowerCase());
  }
  return ranges;
}

function admits(ranges: readonly string[], type: string): boolean {
  const wildcard = `${type.split("/")[0]}/*`;
  return ranges.some((range) => range === type || range === wildcard || range === "*/*");
}

const REFUSED_QUALITY = /^\s*q\s*=\s*0(\.0*)?\s*$/i;
