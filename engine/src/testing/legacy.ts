/**
 * @module testing/legacy
 * Requests as a 2025 client sends them: the `initialize` handshake and `notifications/initialized` first, then
 * every request with `MCP-Protocol-Version` (from 2025-06-18 on) and the `Mcp-Session-Id` the server assigned.
 * The server asks its questions as requests of its own on the call's SSE stream; each is answered by POSTing a
 * JSON-RPC response, while the call waits for its result on the same stream.
 */
import { answerQuestion } from "./answers";
import { type Call, type ClientSetup, deliver } from "./channel";
import { McpClientError, McpHttpError } from "./errors";
import { post, readAnswer } from "./transport";
import { isObject, type Json, type LegacyVersion, POST_HEADERS } from "./wire";

export class LegacySession {
  private constructor(
    private readonly setup: ClientSetup,
    readonly version: LegacyVersion,
    /** The `Mcp-Session-Id` from the InitializeResult's response, when the server assigned one. */
    readonly sessionId: string | undefined,
    readonly initializeResult: Json,
  ) {}

  /** Runs the handshake: `initialize` with the client's capabilities, then `notifications/initialized`. */
  static async open(setup: ClientSetup, version: LegacyVersion): Promise<LegacySession> {
    const id = setup.nextId();
    const params = { protocolVersion: version, capabilities: setup.capabilities, clientInfo: setup.clientInfo };
    // A 2025 client sends no version header on initialize: the version is what it negotiates.
    const response = await post(
      setup.fetcher,
      setup.url,
      { jsonrpc: "2.0", id, method: "initialize", params },
      {
        ...setup.headers,
        ...POST_HEADERS,
      },
    );
    const sessionId = response.headers.get("mcp-session-id") ?? undefined;
    const result = await readAnswer(response, { id, method: "initialize", label: "initialize" }, async () => {});
    if (result.protocolVersion !== version) {
      throw new McpClientError("protocol", `initialize: asked for ${version}, the server answered ${String(result.protocolVersion)}`);
    }
    const session = new LegacySession(setup, version, sessionId, result);
    await session.notify("notifications/initialized");
    return session;
  }

  /** The headers of every request after initialize. */
  headers(): Record<string, string> {
    return {
      // 2025-03-26 has no version header; its clients send none.
      ...(this.version !== "2025-03-26" && { "mcp-protocol-version": this.version }),
      ...(this.sessionId !== undefined && { "mcp-session-id": this.sessionId }),
    };
  }

  /** Sends one request; the server's own requests on its stream are answered as they come. */
  async send(method: string, params: Json, call: Call): Promise<Json> {
    const { setup } = this;
    const id = setup.nextId();
    const { options } = call;
    const progressToken = options.onProgress ? `progress-${id}` : undefined;
    const sentParams =
      progressToken === undefined ? params : { ...params, _meta: { ...(isObject(params._meta) ? params._meta : {}), progressToken } };
    const maxRounds = options.maxRounds ?? setup.maxRounds;
    let asked = 0;
    const response = await post(
      setup.fetcher,
      setup.url,
      { jsonrpc: "2.0", id, method, params: sentParams },
      {
        ...setup.headers,
        ...POST_HEADERS,
        ...this.headers(),
        ...call.headers,
      },
    );
    return readAnswer(response, { id, method, label: call.label }, async (message) => {
      if (!("id" in message)) return deliver(message, options, progressToken);
      const requestId = message.id as string | number;
      if (message.method === "ping") return this.respond(requestId, {});
      asked++;
      try {
        if (asked > maxRounds) {
          throw new McpClientError(
            "rounds",
            `${call.label}: the server asked more than ${maxRounds} questions; pass a higher maxRounds if the tool really asks that often`,
          );
        }
        const question = {
          method: String(message.method),
          params: isObject(message.params) ? message.params : {},
          asker: call.label,
          round: asked,
        };
        await this.respond(requestId, await answerQuestion(question, call.layers));
      } catch (error) {
        // Why cancel: the tool waits for an answer that will not come; cancelling ends it now, not at its timeout.
        await this.notify("notifications/cancelled", { requestId: id, reason: "the test client could not answer" }).catch(() => {});
        throw error;
      }
    });
  }

  /** POSTs the response to one of the server's requests; the server takes it with 202. */
  private async respond(id: string | number, result: unknown): Promise<void> {
    const { setup } = this;
    const headers = { ...setup.headers, ...POST_HEADERS, ...this.headers() };
    const response = await post(setup.fetcher, setup.url, { jsonrpc: "2.0", id, result }, headers);
    const body = await response.text();
    if (response.status !== 202) throw new McpHttpError(`POST the answer to ${String(id)}`, response.status, response.headers, body);
  }

  /** POSTs a notification; the server takes it with 202. */
  async notify(method: string, params?: Json): Promise<void> {
    const { setup } = this;
    const headers = { ...setup.headers, ...POST_HEADERS, ...this.headers() };
    const response = await post(setup.fetcher, setup.url, { jsonrpc: "2.0", method, ...(params && { params }) }, headers);
    const body = await response.text();
    if (response.status !== 202) throw new McpHttpError(`POST ${method}`, response.status, response.headers, body);
  }

  /** Opens the session's GET stream (notifications the session subscribed to, and list changes). */
  async openStream(): Promise<Response> {
    const { setup } = this;
    const headers = new Headers({ ...setup.headers, accept: "text/event-stream", ...this.headers() });
    const response = await setup.fetcher(new Request(setup.url, { method: "GET", headers }));
    if (response.status !== 200 || !response.headers.get("content-type")?.startsWith("text/event-stream")) {
      throw new McpHttpError("GET stream", response.status, response.headers, await response.text());
    }
    return response;
  }

  /** Ends the session with DELETE; a server that cannot end it early (405) lets it expire. */
  async end(): Promise<void> {
    if (this.sessionId === undefined) return;
    const { setup } = this;
    const headers = new Headers({ ...setup.headers, ...this.headers() });
    const response = await setup.fetcher(new Request(setup.url, { method: "DELETE", headers }));
    const body = await response.text();
    if (response.status !== 204 && response.status !== 200 && response.status !== 405) {
      throw new McpHttpError("DELETE session", response.status, response.headers, body);
    }
  }
}
