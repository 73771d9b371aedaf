/**
 * The SSE writer: frames written in one turn leave as one chunk (a second chunk right after a failed write would
 * hide a client's hang-up from the Worker), keep-alive comments only fill silence, and nothing pending is lost when
 * the stream closes.
 */
import { describe, expect, it } from "vitest";
import { SseStream } from "../../src/http/sse";

async function chunksOf(stream: SseStream): Promise<string[]> {
  const reader = stream.readable.getReader();
  const decoder = new TextDecoder();
  const chunks: string[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    chunks.push(decoder.decode(value));
  }
}

describe("SSE writer", () => {
  it("sends the frames written in one turn as one chunk", async () => {
    const stream = new SseStream();
    const read = chunksOf(stream);
    stream.comment("one");
    stream.send({ jsonrpc: "2.0", method: "notifications/progress" }, "e1");
    await new Promise((resolve) => setTimeout(resolve, 10));
    stream.comment("two");
    await new Promise((resolve) => setTimeout(resolve, 10));
    stream.close();
    expect(await read).toEqual([
      ': one\n\nevent: message\nid: e1\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n',
      ": two\n\n",
    ]);
  });

  it("sends a keep-alive comment only into silence: none after a write since the last one", async () => {
    const stream = new SseStream();
    const read = chunksOf(stream);
    const tick = () => new Promise((resolve) => setTimeout(resolve, 10));
    stream.keepAlive();
    await tick();
    stream.keepAlive();
    await tick();
    stream.send({ progress: 1 });
    stream.keepAlive();
    await tick();
    stream.keepAlive();
    stream.close();
    expect(await read).toEqual([": keepalive\n\n", ": keepalive\n\n", 'event: message\ndata: {"progress":1}\n\n', ": keepalive\n\n"]);
  });

  it("sends what is pending before it closes, and nothing after", async () => {
    const stream = new SseStream();
    const read = chunksOf(stream);
    stream.send({ last: true });
    stream.close();
    stream.comment("too late");
    expect(await read).toEqual(['event: message\ndata: {"last":true}\n\n']);
  });
});
