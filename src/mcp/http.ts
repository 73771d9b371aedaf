/**
 * @module http
 * The Worker's HTTP surface (itty-router): `POST /mcp` for MCP, 405 for other methods on `/mcp`, `GET /health`.
 * Every POST passes the guards (Host, Origin, Content-Type, Accept, body size) before its body is parsed.
 */
import { Router, type IRequest } from "itty-router";
import { loadConfig, type Config } from "./config";
import { readJsonBody } from "./body";
import { idOf, isModernRequest, isObject, parseMessage, readableId } from "./envelope";
import { ErrorCode, HttpError } from "./errors";
import { checkAccept, checkContentType, checkHost, checkOrigin } from "./guards";
import { readMcpHeader } from "./headers";
import { failureMessage } from "./messages";
import { serveLegacy } from "./legacy";
import { endSession, methodNotAllowed, openSessionStream } from "./legacy-stream";
import type { LogScope } from "./log";
import { serveModern, type HttpExchange } from "./modern";
import type { RequestId } from "./protocol";
import type { McpServer } from "./server";

type Handler = (request: IRequest, env: Env, execution: ExecutionContext) => Promise<Response> | Response;

export function createRouter(server: McpServer) {
  const router = Router<IRequest, [Env, ExecutionContext]>();
  router.get("/health", health);
  const exchange = (request: Request, env: Env, execution: ExecutionContext, config: Config): HttpExchange => ({
    request,
    env,
    execution,
    config,
    traceId: traceIdOf(request),
  });
  router.post("/mcp", withConfig((...args) => postMcp(server, exchange(...args))));
  // GET and DELETE exist only for 2025 sessions; otherwise (and always on the 2026-07-28 path) they are 405.
  router.get("/mcp", withConfig((...args) => guarded(exchange(...args), (ex) => openSessionStream(server, ex))));
  router.delete("/mcp", withConfig((...args) => guarded(exchange(...args), endSession)));
  router.all("/mcp", () => errorResponse(methodNotAllowed(), undefined));
  router.all("*", () => new Response("Not found", { status: 404 }));
  return router;
}

/** Liveness and configuration health. Touches no storage and no secret values (presence and shape only). */
const health: Handler = (_request, env) => {
  const loaded = loadConfig(env);
  if (loaded.ok) return Response.json({ status: "ok" });
  return Response.json({ status: "error", config: "invalid" }, { status: 503 });
};

/** Why fail closed: running with a published development key or a half-read setting is worse than not running. */
function withConfig(next: (request: Request, env: Env, execution: ExecutionContext, config: Config) => Promise<Response>): Handler {
  return (request, env, execution) => {
    const loaded = loadConfig(env);
    if (!loaded.ok) {
      console.error(JSON.stringify({ level: "error", message: "configuration invalid", problems: loaded.problems }));
      return Response.json(
        { jsonrpc: "2.0", error: { code: ErrorCode.InternalError, message: "Service unavailable: server configuration is invalid" } },
        { status: 503 },
      );
    }
    return next(request as unknown as Request, env, execution, loaded.config);
  };
}

async function postMcp(server: McpServer, exchange: HttpExchange): Promise<Response> {
  const { request, config } = exchange;
  let id;
  try {
    checkHost(request, config);
    checkOrigin(request, config);
    checkContentType(request);
    checkAccept(request);
    const body = await readJsonBody(request, {
      maxBytes: config.limits.maxBodyBytes,
      maxDepth: config.limits.maxJsonDepth,
      maxMembers: config.limits.maxJsonMembers,
    });
    const headerVersion = readMcpHeader(request, "mcp-protocol-version", config.limits.maxHeaderValueLength);
    if (isLegacy(body, headerVersion)) {
      id = isObject(body) ? readableId(body.id) : undefined;
      return await serveLegacy(server, exchange, body, headerVersion);
    }
    const message = parseMessage(body);
    id = message.kind === "notification" ? undefined : message.id;
    const served = serveModern(server, exchange, message);
    exchange.execution.waitUntil(served.done);
    return await served.response;
  } catch (error) {
    return errorResponse(error, id ?? idOf(error), exchange);
  }
}

/** GET and DELETE pass the same Host and Origin checks as POST. */
async function guarded(exchange: HttpExchange, next: (exchange: HttpExchange) => Promise<Response>): Promise<Response> {
  try {
    checkHost(exchange.request, exchange.config);
    checkOrigin(exchange.request, exchange.config);
    return await next(exchange);
  } catch (error) {
    return errorResponse(error, undefined, exchange);
  }
}

/**
 * Era detection (spec 2026-07-28, "Backward Compatibility"): a message with a modern claim is served statelessly
 * as 2026-07-28; `initialize`, a 2025 version header without a claim, or no header and no claim at all (2025-03-26
 * clients send none) is a 2025-era message. Batches exist only in 2025-03-26.
 */
function isLegacy(body: unknown, headerVersion: string | undefined): boolean {
  if (Array.isArray(body)) return headerVersion === undefined || headerVersion === "2025-03-26";
  return isObject(body) && !isModernRequest(isObject(body.params) ? body.params : {}, headerVersion);
}

function errorResponse(error: unknown, id: RequestId | undefined, scope?: LogScope): Response {
  const { body, status } = failureMessage(error, id, scope);
  const headers: Record<string, string> = scope ? { "x-request-id": scope.traceId } : {};
  if (error instanceof HttpError) Object.assign(headers, error.headers);
  return Response.json(body, { status, headers });
}

/** A fresh id per HTTP request, sent back in `X-Request-Id` and written on every log line about the request. */
function traceIdOf(_request: Request): string {
  return crypto.randomUUID();
}
