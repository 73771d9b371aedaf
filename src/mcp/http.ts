/**
 * @module http
 * The Worker's HTTP surface (itty-router): `POST /mcp` for MCP, 405 for other methods on `/mcp`, `GET /health`.
 * Every POST passes the guards (Host, Origin, Content-Type, Accept, body size) before its body is parsed.
 */
import { Router, type IRequest } from "itty-router";
import { loadConfig, type Config } from "./config";
import { readJsonBody } from "./body";
import { idOf, isModernRequest, parseMessage, withId } from "./envelope";
import { ErrorCode, HttpError, RpcError } from "./errors";
import { checkAccept, checkContentType, checkHost, checkOrigin } from "./guards";
import { readMcpHeader } from "./headers";
import { failureMessage } from "./messages";
import { serveModern, type HttpExchange } from "./modern";
import type { McpServer } from "./server";

type Handler = (request: IRequest, env: Env, execution: ExecutionContext) => Promise<Response> | Response;

export function createRouter(server: McpServer) {
  const router = Router<IRequest, [Env, ExecutionContext]>();
  router.get("/health", health);
  router.post("/mcp", withConfig((request, env, execution, config) => postMcp(server, { request, env, execution, config, traceId: traceIdOf(request) })));
  router.all("/mcp", () => methodNotAllowed());
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
    const message = parseMessage(body);
    id = message.kind === "notification" ? undefined : message.id;
    const headerVersion = readMcpHeader(request, "mcp-protocol-version", config.limits.maxHeaderValueLength);
    if (message.kind !== "response" && !isModernRequest(message.params, headerVersion)) {
      throw withId(new RpcError(ErrorCode.InvalidRequest, "Invalid Request: legacy clients are not served yet", undefined, 400), id);
    }
    const served = serveModern(server, exchange, message);
    exchange.execution.waitUntil(served.done);
    return await served.response;
  } catch (error) {
    const { body, status } = failureMessage(error, id ?? idOf(error), exchange);
    const headers: Record<string, string> = { "x-request-id": exchange.traceId };
    if (error instanceof HttpError) Object.assign(headers, error.headers);
    return Response.json(body, { status, headers });
  }
}

function methodNotAllowed(): Response {
  return Response.json(
    { jsonrpc: "2.0", error: { code: ErrorCode.InvalidRequest, message: "Method Not Allowed: send JSON-RPC messages with POST" } },
    { status: 405, headers: { allow: "POST" } },
  );
}

/** A fresh id per HTTP request, sent back in `X-Request-Id` and written on every log line about the request. */
function traceIdOf(_request: Request): string {
  return crypto.randomUUID();
}
