/**
 * @module http/cors
 * CORS for browser-based MCP clients. Origins come from the same allow-list the Origin check uses, so a page
 * the server would refuse is never given CORS permission either. Preflights are answered before authorization
 * (browsers send them without credentials).
 */

import type { Config } from "../config/config";
import { HttpError } from "../wire/errors";
import { HEADER } from "../wire/types";
import { isOriginAllowed, originRefusal } from "./guards";

/** Request headers a browser client may send: the MCP headers, Authorization, and every `Mcp-Param-*`. */
const ALLOWED_HEADERS = new Set([
  "accept",
  "authorization",
  "content-type",
  HEADER.lastEventId,
  HEADER.method,
  HEADER.name,
  HEADER.protocolVersion,
  HEADER.sessionId,
]);
/** Response headers a browser client may read. */
const EXPOSED_HEADERS = "Mcp-Session-Id, WWW-Authenticate, X-Request-Id, Retry-After, RateLimit-Limit, RateLimit-Remaining";

const allowedHeader = (name: string) => ALLOWED_HEADERS.has(name) || /^mcp-param-[!#$%&'*+.^_`|~0-9a-z-]+$/.test(name);

/** The answer to a CORS preflight from an allowed origin; any other is refused with 403 (an `HttpError`) naming it. */
export function preflight(request: Request, config: Config): Response {
  const origin = request.headers.get("origin");
  if (origin === null) throw new HttpError(403, "Forbidden: a preflight must carry Origin");
  if (!isOriginAllowed(origin, request, config)) throw new HttpError(403, originRefusal(origin));
  const requested = (request.headers.get("access-control-request-headers") ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  return new Response(null, {
    status: 204,
    headers: {
      "access-control-allow-origin": origin,
      "access-control-allow-methods": "POST, GET, DELETE, OPTIONS",
      // Why echo rather than "*": "*" never covers Authorization, and Mcp-Param-* has no wildcard form.
      "access-control-allow-headers": requested.filter(allowedHeader).join(", "),
      "access-control-max-age": "600",
      vary: "Origin",
    },
  });
}

/**
 * Adds CORS headers to a response for an allowed cross-origin caller; other responses pass unchanged, and so does one
 * whose route set its own (the server card, open to every origin).
 */
export function withCors(response: Response, request: Request, config: Config): Response {
  const origin = request.headers.get("origin");
  if (origin === null || !isOriginAllowed(origin, request, config) || response.status === 101) return response;
  if (response.headers.has("access-control-allow-origin")) return response;
  const headers = new Headers(response.headers);
  headers.set("access-control-allow-origin", origin);
  headers.set("access-control-expose-headers", EXPOSED_HEADERS);
  headers.append("vary", "Origin");
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}
