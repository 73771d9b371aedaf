/**
 * @module worker/router
 * The Worker's HTTP surface (itty-router): `POST /mcp` for MCP messages; `GET`/`DELETE /mcp` for 2025 sessions
 * (405 otherwise); CORS preflights; `GET /` (a landing page); `GET /health`; Protected Resource Metadata when
 * authorization is on.
 *
 * Order of checks on /mcp: configuration (503 if invalid), Host and Origin, Content-Type and Accept,
 * authorization, rate limit, body size and shape, then the era (2026-07-28 or 2025) and the message itself.
 * The metadata and the landing page check the Host too: both name the server by the request's origin. So does the
 * server card, when it is on (`/mcp/server-card` and `/.well-known/mcp/server-card.json`, worker/card.ts).
 */

import { type IRequest, IttyRouter } from "itty-router";
import { advertisedScopes, authenticate, protectedResourceMetadata } from "../auth/authenticate";
import type { Config, ConfigResult } from "../config/config";
import { type BodyLimits, discardUnreadBody, readJsonBody } from "../http/body";
import { preflight, withCors } from "../http/cors";
import type { HttpExchange } from "../http/exchange";
import { checkAccept, checkContentType, checkHost, checkOrigin } from "../http/guards";
import { readMcpHeader } from "../http/headers";
import { checkRateLimit } from "../http/rate-limit";
import { documentAnswer, refuseUnlessRead } from "../http/read-only";
import { jsonResponse } from "../http/reply";
import { serveLegacy } from "../legacy/serve";
import { endSession, methodNotAllowed, openSessionStream } from "../legacy/stream";
import { serveStateless } from "../modern/serve";
import type { McpServer } from "../server/server";
import { logRequest } from "../util/log";
import { memoize } from "../util/memo";
import { idOf, isLegacyMessage, isObject, parseMessage, readableId } from "../wire/envelope";
import { ErrorCode, HttpError } from "../wire/errors";
import { failureMessage } from "../wire/messages";
import { HEADER, type RequestId } from "../wire/types";
import type { EngineBindings } from "./bindings";
import { CARD_PATHS, type CardOptions, serverCardRoute } from "./card";
import { landingPage, unavailablePage } from "./landing";

type Handler = (request: IRequest, env: EngineBindings, execution: ExecutionContext, loaded: ConfigResult) => Promise<Response> | Response;

/**
 * The Worker's routes; `loaded` is the configuration the Worker loaded for this request, passed down, never looked up
 * again. `card`: the server card's options when it is on; off, its paths are unknown paths like any other.
 */
export function createRouter(server: McpServer, card?: CardOptions) {
  // The bare router: no per-request stages; CORS is applied once, below, to whatever a route answered.
  const router = IttyRouter<IRequest, [EngineBindings, ExecutionContext, ConfigResult]>();
  // RFC 9728 metadata, when authorization is on (else the path is unknown, 404 to every method); a read-only document
  // (http/read-only.ts) whose OPTIONS is the generic preflight, whose route comes first.
  const metadata = withConfig(
    onAllowedHost(async ({ request, config }) => {
      const document = protectedResourceMetadata(request, config, scopesOf(server), server.info.title ?? server.info.name);
      if (!document) return new Response("Not found", { status: 404 });
      return (
        refuseUnlessRead(request) ?? documentAnswer(request, JSON.stringify(document), { headers: { "content-type": "application/json" } })
      );
    }),
  );
  // POST /mcp first: routes are tried in order, and nearly every request is one (fetch below skips the router for it).
  const post = withConfig((exchange) => postMcp(server, exchange));
  router.post("/mcp", post);
  if (card) {
    // Every method, before the generic preflight: the card answers its own OPTIONS, and refuses the others with 405.
    const serveCard = withConfig(onAllowedHost(serverCardRoute(server, card)));
    for (const path of CARD_PATHS) router.all(path, serveCard);
  }
  router
    .options(
      "*",
      withConfig(async (exchange) => {
        exchange.record.method = "OPTIONS";
        try {
          return preflight(exchange.request, exchange.config);
        } catch (error) {
          return errorResponse(error, undefined, exchange);
        }
      }),
    )
    .get("/", (request, env, execution, loaded) => {
      if (!loaded.ok) return unavailablePage(loaded.problems);
      return withConfig(onAllowedHost(async ({ request, config }) => landingPage(request, server, config)))(
        request,
        env,
        execution,
        loaded,
      );
    })
    .get("/health", health)
    .all("/.well-known/oauth-protected-resource", metadata)
    .all("/.well-known/oauth-protected-resource/mcp", metadata)
    .get(
      "/mcp",
      withConfig((exchange) => guarded(server, exchange, "GET", () => openSessionStream(server, exchange))),
    )
    .delete(
      "/mcp",
      withConfig((exchange) => guarded(server, exchange, "DELETE", () => endSession(exchange))),
    )
    .all("/mcp", () => errorResponse(methodNotAllowed(), undefined))
    .all("*", () => new Response("Not found", { status: 404 }));
  return {
    async fetch(request: Request, env: EngineBindings, execution: ExecutionContext, loaded: ConfigResult): Promise<Response> {
      // The route of nearly every request, matched as the router matches it (`/mcp`, trailing slashes allowed), without
      // the router's per-request work (its query object, its properties on the request): postMcp reads neither.
      const response: Response =
        request.method === "POST" && MCP_PATH.test(pathnameOf(request.url))
          ? await post(request as IRequest, env, execution, loaded)
          : await router.fetch(request as IRequest, env, execution, loaded);
      // Browser callers from allowed origins get CORS headers, on every answer.
      return loaded.ok ? withCors(response, request, loaded.config) : response;
    },
  };
}

/** The path itty-router's `post("/mcp")` matches: `/mcp` and any trailing slashes. */
const MCP_PATH = /^\/mcp\/*$/;

/**
 * The path of a request's URL, read from its text: `request.url` is the URL as the runtime serialized it (the scheme,
 * `//`, the authority, then the path from its first `/` up to a `?` or `#`), so this is `new URL(url).pathname`
 * without parsing the URL again on every request. test/worker/routes.test.ts holds it to the router's matching.
 */
function pathnameOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  let end = url.length;
  const query = url.indexOf("?", start);
  if (query !== -1) end = query;
  const fragment = url.indexOf("#", start);
  if (fragment !== -1 && fragment < end) end = fragment;
  return url.slice(start, end);
}

/** The scopes a client should ask for, named in the metadata and in 401 challenges; the tools never change. */
const scopesOf = memoize((server: McpServer) => advertisedScopes(server.tools.values()));

/** Liveness and configuration health. Touches no storage and no secret values (presence and shape only). */
const health: Handler = (_request, _env, _execution, loaded) => {
  if (loaded.ok) return Response.json({ status: "ok" });
  return Response.json({ status: "error", config: "invalid" }, { status: 503 });
};

/** Why fail closed: running with a published development key or a half-read setting is worse than not running. */
function withConfig(next: (exchange: HttpExchange) => Promise<Response>): Handler {
  return (request, env, execution, loaded) => {
    if (!loaded.ok) {
      console.error(JSON.stringify({ level: "error", message: "configuration invalid", problems: loaded.problems }));
      return jsonResponse(
        { jsonrpc: "2.0", error: { code: ErrorCode.InternalError, message: "Service unavailable: server configuration is invalid" } },
        503,
      );
    }
    const plain = request as unknown as Request;
    const traceId = crypto.randomUUID();
    return next({
      request: plain,
      env,
      execution,
      config: loaded.config,
      traceId,
      record: { traceId, started: Date.now(), policy: loaded.config.accessLog },
    });
  };
}

/**
 * Why: the metadata and the landing page name this server by the request's origin; a Host the server does not
 * answer to (DNS rebinding, or a Host chosen to make the server name another service) is refused, never echoed.
 */
function onAllowedHost(next: (exchange: HttpExchange) => Promise<Response>): (exchange: HttpExchange) => Promise<Response> {
  return async (exchange) => {
    try {
      checkHost(exchange.request, exchange.config);
    } catch (error) {
      return errorResponse(error, undefined, exchange);
    }
    return next(exchange);
  };
}

async function postMcp(server: McpServer, exchange: HttpExchange): Promise<Response> {
  const { request, config } = exchange;
  let id: RequestId | undefined;
  try {
    checkHost(request, config);
    checkOrigin(request, config);
    checkContentType(request);
    checkAccept(request);
    // Why before the body is read: an unauthenticated or throttled caller should cost as little as possible.
    exchange.principal = await authenticate(request, config, scopesOf(server), exchange.execution);
    exchange.record.client = exchange.principal.client?.id;
    await checkRateLimit(exchange);
    // Once per isolate, after the response: tells listeners when this deployment's skills are new to them.
    server.skills?.announce(exchange);
    const { value: body, surrogateEscapes } = await readJsonBody(request, bodyLimitsOf(config));
    // From here the request's id is known, when it has one that can be echoed: every refusal carries it (the header
    // just below included), so the client can tell which request it answers. Before here, none can.
    id = isObject(body) ? readableId(body.id) : undefined;
    const headerVersion = readMcpHeader(request, HEADER.protocolVersion, config.limits.request.maxHeaderValueLength);
    if (isLegacyMessage(body, headerVersion)) return await serveLegacy(server, exchange, body, headerVersion, surrogateEscapes);
    const message = parseMessage(body, surrogateEscapes);
    id = message.kind === "notification" ? undefined : message.id;
    const served = serveStateless(server, exchange, message, headerVersion);
    const response = await served.response;
    // Only a streamed answer outlives its response (its method runs on); a JSON one is sent once its method ended.
    if (served.streaming()) exchange.execution.waitUntil(served.done);
    return response;
  } catch (error) {
    await discardUnreadBody(request);
    return errorResponse(error, id ?? idOf(error), exchange);
  }
}

/** The limits a body is read within, as this configuration sets them (made once per configuration). */
const bodyLimitsOf = memoize(
  (config: Config): BodyLimits => ({
    maxBytes: config.limits.request.maxBodyBytes,
    maxDepth: config.limits.request.maxJsonDepth,
    maxMembers: config.limits.request.maxJsonMembers,
    maxElements: config.limits.request.maxJsonElements,
    drainRefused: config.mode === "development",
  }),
);

/** GET and DELETE pass the same Host, Origin, authorization and rate checks as POST. */
async function guarded(server: McpServer, exchange: HttpExchange, verb: string, next: () => Promise<Response>): Promise<Response> {
  exchange.record.method = `${verb} /mcp`;
  try {
    checkHost(exchange.request, exchange.config);
    checkOrigin(exchange.request, exchange.config);
    exchange.principal = await authenticate(exchange.request, exchange.config, scopesOf(server), exchange.execution);
    exchange.record.client = exchange.principal.client?.id;
    await checkRateLimit(exchange);
    const response = await next();
    logRequest(exchange.record, response.status);
    return response;
  } catch (error) {
    return errorResponse(error, undefined, exchange);
  }
}

function errorResponse(error: unknown, id: RequestId | undefined, exchange?: HttpExchange): Response {
  const { body, status, headers } = failureMessage(error, id, exchange);
  // An HTTP-level refusal's reason is logged with it (the Origin or Host refused, the limit passed): it is the
  // engine's own text, naming at most what the caller sent, never a secret.
  if (exchange) logRequest(exchange.record, status, body.error.code, error instanceof HttpError ? error.message : undefined);
  return jsonResponse(body, status, { ...headers, ...(exchange && { [HEADER.requestId]: exchange.traceId }) });
}
