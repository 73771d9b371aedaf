/**
 * A Tasks requester as a real host builds one: the official client (@modelcontextprotocol/client 2.4.0, pinned to
 * 2026-07-28) with @modelcontextprotocol/ext-tasks 0.2.2 on top.
 *
 * Why a second request path: the SDK client's result codec throws UNSUPPORTED_RESULT_TYPE on `resultType: "task"`,
 * so ext-tasks sends `tools/call` and `tasks/*` through a "raw dispatch" the host provides (its README: "a
 * 2026-07-28 Tasks server additionally requires rawDispatch and v2RequestFraming"). Here that is the SDK's own
 * Streamable HTTP transport, unconnected to any Client: it derives `MCP-Protocol-Version`, `Mcp-Method` and
 * `Mcp-Name` from the body as it does for the Client, and this module only numbers the requests and matches each
 * answer to its request.
 */
import { Client, type JSONRPCMessage, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  type ApplicationElicitResult,
  createApplicationInputHandler,
  createTaskSessionFromClient,
  type RawClientDispatch,
  type ResolvedInputExchangeContext,
  type TaskEnabledSession,
} from "@modelcontextprotocol/ext-tasks/client";

export const MODERN = "2026-07-28";

type Answer = { kind: "result"; result: any } | { kind: "error"; error: { code: number; message: string; data?: any } };

/** Sends JSON-RPC requests one HTTP POST each and resolves each with its own answer, whatever order they come in. */
export class RawDispatcher {
  private readonly transport: StreamableHTTPClientTransport;
  private readonly pending = new Map<string, (answer: Answer) => void>();
  private next = 0;
  /** Every request sent, as it went on the wire: what the requester's idea of the extension looks like. */
  readonly sent: any[] = [];

  constructor(url: URL) {
    this.transport = new StreamableHTTPClientTransport(url);
    this.transport.onmessage = (message: JSONRPCMessage) => {
      if (!("id" in message) || "method" in message) return;
      const settle = this.pending.get(String(message.id));
      if (!settle) return;
      this.pending.delete(String(message.id));
      settle("error" in message ? { kind: "error", error: message.error } : { kind: "result", result: message.result });
    };
  }

  start(): Promise<void> {
    return this.transport.start();
  }

  readonly dispatch: RawClientDispatch = async (request, options = {}) => {
    const id = `raw-${++this.next}`;
    const message = { ...(request as object), jsonrpc: "2.0", id } as JSONRPCMessage;
    this.sent.push(message);
    const { signal } = options;
    let abort = () => {};
    const answered = new Promise<Answer>((resolve, reject) => {
      this.pending.set(id, resolve);
      abort = () => reject(signal?.reason);
      signal?.addEventListener("abort", abort, { once: true });
    });
    // An abort while the request is on its way rejects `answered` with no one awaiting it yet.
    answered.catch(() => {});
    try {
      await this.transport.send(message, {
        ...(signal && { requestSignal: signal }),
        ...(options.context?.headers && { headers: { ...options.context.headers } }),
      });
      return (await answered) as any;
    } finally {
      // Why: ext-tasks passes one signal for a task's whole life, to every poll.
      signal?.removeEventListener("abort", abort);
      this.pending.delete(id);
    }
  };

  close(): Promise<void> {
    return this.transport.close();
  }
}

/** What a test needs of one requester: the task session, the SDK client under it, and what went on the wire. */
export interface Requester {
  session: TaskEnabledSession<string>;
  client: Client;
  raw: RawDispatcher;
  /** What ext-tasks reported in the background (a task snapshot it could not parse, an input it could not route). */
  errors: Error[];
  close(): Promise<void>;
}

/**
 * Connects a requester that declares forms. `elicit` is the application's elicitation handler: ext-tasks calls it
 * for every question, asked in a multi round-trip round or by a task; `context` says which (its
 * `applicationContext` is what the test passed to `callTool`, `signal` aborts when the task ends or is cancelled).
 */
export async function connectRequester(
  url: string,
  elicit: (params: any, context: ResolvedInputExchangeContext<string>) => Promise<ApplicationElicitResult>,
): Promise<Requester> {
  const clientInfo = { name: "e2e-ext-tasks", version: "1.0.0" };
  const clientCapabilities = { elicitation: { form: {} } };
  const client = new Client(clientInfo, { capabilities: clientCapabilities, versionNegotiation: { mode: { pin: MODERN } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const raw = new RawDispatcher(new URL(url));
  await raw.start();
  const refuse = () => Promise.reject(new Error("this requester answers forms only"));
  const errors: Error[] = [];
  const session = createTaskSessionFromClient<string>(client, {
    endpointId: url,
    rawDispatch: raw.dispatch,
    v2RequestFraming: { protocolVersion: MODERN, clientInfo, clientCapabilities },
    onInputRequest: createApplicationInputHandler<string>({
      elicitation: (request, context) => elicit(request.params, context),
      sampling: refuse,
      roots: refuse,
    }),
    // Why kept, not thrown: ext-tasks reports what it could not parse or route here, in the background.
    onError: (error) => errors.push(error),
  });
  return {
    session,
    client,
    raw,
    errors,
    async close() {
      await session.close();
      await raw.close();
      await client.close();
    },
  };
}
