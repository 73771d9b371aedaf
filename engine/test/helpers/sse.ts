/**
 * Reads a live SSE response one frame at a time, with a timeout per frame, keeping a single pending read
 * across timeouts so no bytes are lost.
 */
/** A message (with its event id when it has one), a comment, or a priming event (an id and empty data). */
export type Frame = { data: Record<string, any>; id?: string } | { comment: string } | { priming: string };

/** How long a read waits for a frame a test expects: a bound on a hang, never a measurement. */
const EXPECTED_WITHIN_MS = 10_000;

export function sseReader(response: Response) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  let ended = false;

  /**
   * The next frame (message or comment), "timeout" if none arrives in time, or "end" when the stream closed. The
   * default bounds a wait for what a test expects, and holds on a busy machine; a test that expects nothing passes
   * its own, short, timeout.
   */
  async function frame(timeoutMs = EXPECTED_WITHIN_MS): Promise<Frame | "timeout" | "end"> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const boundary = buffer.indexOf("\n\n");
      if (boundary !== -1) {
        const raw = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        const lines = raw.split("\n");
        const data = lines
          .filter((line) => line.startsWith("data: "))
          .map((line) => line.slice(6))
          .join("\n");
        const id = lines.find((line) => line.startsWith("id: "))?.slice(4);
        if (data) return id === undefined ? { data: JSON.parse(data) } : { data: JSON.parse(data), id };
        if (id !== undefined) return { priming: id };
        if (raw.startsWith(":")) return { comment: raw.slice(1).trim() };
        continue;
      }
      if (ended) return "end";
      pending ??= reader.read();
      const left = deadline - Date.now();
      if (left <= 0) return "timeout";
      const result = await Promise.race([pending, new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), left))]);
      if (result === "timeout") return "timeout";
      pending = undefined;
      if (result.done) ended = true;
      else buffer += decoder.decode(result.value, { stream: true });
    }
  }

  /** The next JSON-RPC message, skipping comments. */
  async function message(timeoutMs = EXPECTED_WITHIN_MS): Promise<Record<string, any> | "timeout" | "end"> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const next = await frame(Math.max(1, deadline - Date.now()));
      if (next === "timeout" || next === "end" || "data" in next) return next === "timeout" || next === "end" ? next : next.data;
    }
  }

  return { frame, message, cancel: () => reader.cancel().catch(() => {}) };
}
