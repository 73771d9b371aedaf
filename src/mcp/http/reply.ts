/**
 * @module reply
 * Answers one JSON-RPC request over HTTP. The answer is plain `application/json` unless the handler sends a
 * notification (progress, log) before it finishes; then the response turns into an SSE stream that carries the
 * notifications and ends with the final response. Closing that stream cancels the request.
 */
import { SseStream } from "./sse";

export interface ReplyOptions {
  /** Headers of the HTTP response, whichever form it takes. */
  headers?: Record<string, string>;
  /** False for requests inside a batch: their answers are collected, so nothing can stream. Default: true. */
  canStream?: boolean;
  /** Told the HTTP status and JSON-RPC error code (if any) once the final response is sent. */
  onFinish?: (status: number, code: number | undefined) => void;
}

export class Reply {
  /** Resolves with the HTTP response as soon as its form is known. */
  readonly response: Promise<Response>;
  /** Aborted when the client goes away (connection closed or stream cancelled). */
  readonly signal: AbortSignal;
  private resolve!: (response: Response) => void;
  private readonly abort = new AbortController();
  private stream: SseStream | undefined;
  private done = false;

  private readonly headers: Record<string, string>;
  private readonly canStream: boolean;
  private readonly onFinish?: ReplyOptions["onFinish"];

  constructor(requestSignal: AbortSignal | undefined, options: ReplyOptions = {}) {
    this.headers = { ...options.headers };
    this.canStream = options.canStream ?? true;
    this.onFinish = options.onFinish;
    this.response = new Promise((resolve) => (this.resolve = resolve));
    this.signal = this.abort.signal;
    if (requestSignal?.aborted) this.cancel();
    requestSignal?.addEventListener("abort", () => this.cancel(), { once: true });
  }

  /** Sends a notification related to this request, switching the response to SSE if it is not already. */
  notify(message: unknown): void {
    if (this.done || this.signal.aborted || !this.canStream) return;
    if (!this.stream) {
      this.stream = new SseStream(() => this.cancel());
      this.resolve(this.stream.response(this.headers));
    }
    this.stream.send(message);
  }

  /** Sends the final response; anything sent afterwards is dropped (notifications MUST stop on completion). */
  finish(message: unknown, httpStatus: number, headers: Record<string, string> = {}): void {
    if (this.done) return;
    this.done = true;
    const code = (message as { error?: { code?: number } }).error?.code;
    this.onFinish?.(this.stream ? 200 : httpStatus, code);
    if (this.stream) {
      this.stream.send(message);
      this.stream.close();
    } else {
      this.resolve(Response.json(message, { status: httpStatus, headers: { ...this.headers, ...headers } }));
    }
  }

  /** Adds a response header; only effective before the response has started. */
  setHeader(name: string, value: string): void {
    this.headers[name] = value;
  }

  get finished(): boolean {
    return this.done;
  }

  private cancel(): void {
    if (this.signal.aborted) return;
    this.abort.abort(new DOMException("The client cancelled the request", "AbortError"));
    this.stream?.close();
  }
}
