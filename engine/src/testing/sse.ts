/**
 * @module testing/sse
 * Reads a Server-Sent Events body as it arrives, one event at a time, with an optional timeout per event. One read
 * stays pending across timeouts, so no bytes are lost when a test waits again.
 */

/**
 * One SSE event: a message (`data`, a JSON-RPC message as text), a priming event (an `id` with empty data), or a
 * comment (the server's keep-alive or an opening comment).
 *
 * @example
 * const event = await stream.next(2_000);
 * if (typeof event !== "string" && event.data) messages.push(JSON.parse(event.data));
 */
export interface SseEvent {
  id?: string;
  data?: string;
  comment?: string;
}

/**
 * A stream being read, one event at a time: what `sseReader` returns.
 *
 * @example
 * expect(await stream.next(2_000)).toEqual({ comment: "listening" });
 * await stream.cancel();
 */
export interface SseReader {
  /** The next event; "timeout" when none arrived within `timeoutMs`, "end" once the stream closed. */
  next(timeoutMs?: number): Promise<SseEvent | "timeout" | "end">;
  /** Stops reading and closes the stream (for a 2026-07-28 request: the client's cancellation). */
  cancel(): Promise<void>;
}

/**
 * Reads a response's Server-Sent Events as they arrive, for the tests that speak the wire by hand (the client's own
 * methods read their streams themselves): a 2025 session's GET stream resumed from an id of the test's choosing, or a
 * call's stream the test drops part way, as a client that goes away does.
 *
 * @example
 * const stream = sseReader((await worker.fetch(request, env, createExecutionContext())).body!);
 * for (let event = await stream.next(2_000); typeof event !== "string"; event = await stream.next(2_000)) {
 *   if (event.data?.includes('"notifications/progress"')) break;
 * }
 * await stream.cancel();
 */
export function sseReader(body: ReadableStream<Uint8Array>): SseReader {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  let ended = false;

  /** Takes one complete event off the buffer, if the buffer holds one. */
  function take(): SseEvent | undefined {
    for (;;) {
      const boundary = buffer.indexOf("\n\n");
      if (boundary === -1) return undefined;
      const block = buffer.slice(0, boundary);
      buffer = buffer.slice(boundary + 2);
      const event = parseBlock(block);
      if (event) return event;
    }
  }

  async function next(timeoutMs?: number): Promise<SseEvent | "timeout" | "end"> {
    const deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
    for (;;) {
      const event = take();
      if (event) return event;
      if (ended) return "end";
      pending ??= reader.read();
      let result: ReadableStreamReadResult<Uint8Array> | "timeout";
      if (deadline === undefined) result = await pending;
      else {
        const left = deadline - Date.now();
        if (left <= 0) return "timeout";
        let timer = 0 as unknown as ReturnType<typeof setTimeout>;
        const timeout = new Promise<"timeout">((resolve) => {
          timer = setTimeout(() => resolve("timeout"), left);
        });
        result = await Promise.race([pending, timeout]);
        clearTimeout(timer);
      }
      if (result === "timeout") return "timeout";
      pending = undefined;
      if (result.done) {
        ended = true;
        // A last event without its blank line still counts.
        buffer += `${decoder.decode()}\n\n`;
      } else {
        buffer += decoder.decode(result.value, { stream: true }).replace(/\r\n?/g, "\n");
      }
    }
  }

  return {
    next,
    cancel: async () => {
      ended = true;
      await reader.cancel().catch(() => {});
    },
  };
}

/** One event's lines: `data:` lines joined with line breaks, the last `id:`, or a comment when there is nothing else. */
function parseBlock(block: string): SseEvent | undefined {
  const data: string[] = [];
  let id: string | undefined;
  let comment: string | undefined;
  for (const line of block.split("\n")) {
    if (line === "") continue;
    if (line.startsWith(":")) {
      comment ??= line.slice(1).trim();
      continue;
    }
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "data") data.push(value);
    else if (field === "id") id = value;
  }
  if (data.length > 0) return { ...(id !== undefined && { id }), data: data.join("\n") };
  if (id !== undefined) return { id };
  if (comment !== undefined) return { comment };
  return undefined;
}
