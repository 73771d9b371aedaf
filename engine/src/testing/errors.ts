/**
 * @module testing/errors
 * What the test client throws. Three kinds, so a test can tell them apart: the server answered with a JSON-RPC
 * error (`McpError`), the server answered without one where one belongs (`McpHttpError`: a 401 from the
 * authorization check, a 405, a 413), and the client itself could not go on (`McpClientError`: a question it has
 * no answer for, too many rounds, a task that did not finish, a server that broke the protocol). A tool that
 * fails (`isError: true`) is a result, never any of these.
 */

/**
 * A JSON-RPC error answer: `message` is the server's own text, unchanged, so a test can assert on it exactly.
 *
 * @example
 * await expect(client.callTool("no_such_tool")).rejects.toMatchObject({ code: -32602, httpStatus: 200 });
 * // A refusal before the request was read (Origin, Host, authorization) is one too, without an id:
 * const refused = await connect(app, { headers: { origin: "https://elsewhere.example" } });
 * await expect(refused.callTool("echo")).rejects.toMatchObject({ code: -32600, httpStatus: 403 });
 */
export class McpError extends Error {
  override readonly name = "McpError";

  constructor(
    /** The request's method, e.g. `tools/call`. */
    readonly method: string,
    /** The JSON-RPC error code, e.g. -32602. */
    readonly code: number,
    message: string,
    /** The error's `data`, when it had one. */
    readonly data: unknown,
    /** The HTTP status the error came with (400 for header and version problems, 200 for most others). */
    readonly httpStatus: number,
    /** The response's headers (e.g. `WWW-Authenticate` on a 401); empty for an error that was not a whole response. */
    readonly headers: Headers = new Headers(),
  ) {
    super(message);
  }
}

/**
 * An HTTP answer that is not the one the request needed: a GET stream the server would not open (405, 406), an
 * answer to one of the server's requests that it did not take, a body that holds no JSON-RPC message.
 *
 * @example
 * // A 2025 session of a Worker without the SUBSCRIPTIONS binding has no GET stream:
 * const refused = await legacyClient.listen().catch((error: unknown) => error);
 * expect(refused).toBeInstanceOf(McpHttpError);
 * expect((refused as McpHttpError).status).toBe(405);
 */
export class McpHttpError extends Error {
  override readonly name = "McpHttpError";

  constructor(
    /** What was sent, e.g. `POST tools/call` or `GET stream`. */
    readonly request: string,
    readonly status: number,
    readonly headers: Headers,
    /** The body as text (empty when there was none). */
    readonly body: string,
  ) {
    super(`HTTP ${status} for ${request}${body ? `: ${body.slice(0, 300)}` : ""}`);
  }
}

/**
 * Why the client stopped (`McpClientError.kind`).
 *
 * @example
 * await expect(client.callTool("steps", { count: 20 })).rejects.toMatchObject({ kind: "rounds" satisfies ClientFailure });
 */
export type ClientFailure =
  /** A question arrived that no handler or scripted answer answers. */
  | "unanswered"
  /** The server kept asking past `maxRounds`. */
  | "rounds"
  /** A task did not get where it was awaited within `maxPolls`, or ended otherwise (failed, cancelled). */
  | "task"
  /** A listen stream had no notification in time, or ended. */
  | "listen"
  /** The server broke the protocol (a missing `resultType`, a request on a 2026-07-28 stream, a wrong id). */
  | "protocol"
  /** The client was used in a way its era or options do not allow. */
  | "usage";

/**
 * The question an "unanswered" failure names (`McpClientError.question`), as it arrived.
 *
 * @example
 * const failure = (await client.callTool("delete_note", args).catch((error: unknown) => error)) as McpClientError;
 * expect(failure.question).toMatchObject({ key: "confirm", method: "elicitation/create" });
 */
export interface AskedQuestion {
  key?: string;
  method: string;
  params: Record<string, unknown>;
}

/**
 * The client could not go on; `kind` says why and the message says what to change.
 *
 * @example
 * // A question with no handler and no scripted answer fails the test, naming the question:
 * await expect(client.callTool("delete_note", args)).rejects.toMatchObject({ kind: "unanswered", question: { key: "confirm" } });
 */
export class McpClientError extends Error {
  override readonly name = "McpClientError";

  constructor(
    readonly kind: ClientFailure,
    message: string,
    /** The question that had no answer (kind "unanswered"). */
    readonly question?: AskedQuestion,
  ) {
    super(message);
  }
}
