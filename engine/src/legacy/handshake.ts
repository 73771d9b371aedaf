/**
 * @module legacy/handshake
 * `initialize`, the handshake 2025 clients open with: the version both speak, the capabilities offered (exactly
 * what the client can use), and, with the LEGACY_SESSIONS binding, a session id on the InitializeResult, and only
 * there (2025-11-25), with its state stored at once for a client that can be asked things.
 */
import type { HttpExchange } from "../http/exchange";
import type { Reply } from "../http/reply";
import type { McpServer } from "../server/server";
import { isObject, readClientInfo } from "../wire/envelope";
import { invalidParams } from "../wire/errors";
import { ANONYMOUS } from "../wire/principal";
import { HEADER, isLegacyVersion, type JsonObject, LEGACY_VERSIONS } from "../wire/types";
import { sessionsOf } from "./session";
import { initialState } from "./session-handle";
import { newSession } from "./session-token";

export async function initialize(server: McpServer, exchange: HttpExchange, reply: Reply, params: JsonObject): Promise<JsonObject> {
  if (typeof params.protocolVersion !== "string" || !isObject(params.capabilities)) {
    throw invalidParams("Invalid params: initialize needs protocolVersion and capabilities");
  }
  // Echo a supported version; otherwise answer with the newest one we have and let the client decide.
  const version = isLegacyVersion(params.protocolVersion) ? params.protocolVersion : LEGACY_VERSIONS[0];
  exchange.record.era = version;
  const capabilities = params.capabilities;
  const sessions = sessionsOf(exchange.env);
  if (sessions) {
    // A client that can be asked things has its state stored now and read on every request: the questions go out
    // on its stream, the answers come back as separate POSTs, and its Durable Object is where they meet.
    // A client offered views (MCP Apps) too: which capabilities it declared decides every later tools/list.
    const stored =
      ["elicitation", "sampling", "roots"].some((name) => isObject(capabilities[name])) || server.offersViews(exchange.env, capabilities);
    const principal = (exchange.principal ?? ANONYMOUS).id;
    const { token, claims } = await newSession(exchange.config, principal, version, stored);
    if (stored) {
      const clientInfo = readClientInfo(params.clientInfo);
      await sessions.getByName(claims.id).open(initialState(exchange, claims, { capabilities, ...(clientInfo && { clientInfo }) }));
    }
    // 2025-11-25: the session id is assigned on the InitializeResult, and nowhere else.
    reply.setHeader(HEADER.sessionId, token);
  }
  const { name, version: serverVersion } = server.info;
  return {
    protocolVersion: version,
    // Views only with a session: without one, later requests cannot know this client renders them.
    capabilities: legacyCapabilities(server.capabilities(exchange.env, "legacy", sessions ? capabilities : {}), sessions !== undefined),
    serverInfo: version === "2025-03-26" ? { name, version: serverVersion } : server.info,
    ...(server.instructions && { instructions: server.instructions }),
  };
}

/**
 * What a 2025 client is offered: exactly what it can use. Without sessions there is no log level to set, nothing
 * to subscribe with, and no stream to push change notifications on, so none of them is offered.
 */
function legacyCapabilities(capabilities: JsonObject, sessions: boolean): JsonObject {
  if (sessions) return capabilities;
  const { tools, resources, prompts, logging: _logging, ...rest } = capabilities;
  return { ...rest, ...(tools ? { tools: {} } : {}), ...(resources ? { resources: {} } : {}), ...(prompts ? { prompts: {} } : {}) };
}
