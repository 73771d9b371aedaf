/**
 * @module sse
 * A close-safe Server-Sent Events writer. Writes after close are ignored; when the client goes away the stream
 * is cancelled, `onCancel` runs once, and nothing more is written.
 */

export const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  // Why: nginx-style proxies otherwise buffer the stream and the client sees nothing until it ends.
  "x-accel-buffering": "no",
} as const;

const encoder = new TextEncoder();

export class SseStream {
  readonly readable: ReadableStream<Uint8Array>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private open = true;

  constructor(private readonly onCancel: (reason: string) => void = () => {}) {
    this.readable = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
      },
      // Called when the client disconnects or the consumer cancels the body.
      cancel: () => this.finish("client closed the stream"),
    });
  }

  get isOpen(): boolean {
    return this.open;
  }

  /** Sends one JSON-RPC message as an SSE `message` event. */
  send(message: unknown): void {
    this.enqueue(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  /** Sends an SSE comment; clients ignore it, but it keeps proxies from closing an idle stream. */
  comment(text = "keepalive"): void {
    this.enqueue(`: ${text}\n\n`);
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    try {
      this.controller.close();
    } catch {
      // already errored by the runtime: nothing left to close
    }
  }

  response(extraHeaders: Record<string, string> = {}): Response {
    return new Response(this.readable, { status: 200, headers: { ...SSE_HEADERS, ...extraHeaders } });
  }

  private enqueue(frame: string): void {
    if (!this.open) return;
    try {
      this.controller.enqueue(encoder.encode(frame));
    } catch {
      this.finish("write failed");
    }
  }

  private finish(reason: string): void {
    if (!this.open) return;
    this.open = false;
    this.onCancel(reason);
  }
}
