/**
 * What `npm run dev` (wrangler's dev server: its dev proxy in front of the local runtime) does with the template's
 * answers, as docs/development.md describes it: where a "Broken pipe" it prints comes from. The template runs under
 * `wrangler dev` with its output observable (./tail/start.ts). The same behaviour shown with the example's tools (a
 * 2025 client's elicitation and sampling, a client hanging up mid-tool) is in dev-server-example.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTracedTemplate, type TracedTemplate } from "./tail/start";

let dev: TracedTemplate;
beforeAll(async () => {
  dev = await startTracedTemplate();
}, 60_000);
afterAll(async () => {
  await dev?.stop();
});

describe("what npm run dev prints that is not an error: Broken pipe", () => {
  it("sends a 202 with no body gzip-encoded in chunks when the client accepts gzip (the local runtime's compression)", async () => {
    const notification = (encoding: string) =>
      fetch(dev.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-06-18",
          "accept-encoding": encoding,
        },
        body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      });
    // The bytes of an empty gzip stream, then the last chunk: a client that cancels the body at once may have closed
    // the connection before that last chunk is written, and the runtime reports the failed write.
    const gzip = await notification("gzip, deflate");
    expect(gzip.status).toBe(202);
    expect(gzip.headers.get("content-encoding")).toBe("gzip");
    expect(gzip.headers.get("transfer-encoding")).toBe("chunked");
    expect(await gzip.text()).toBe("");
    // What the Worker itself answers: nothing at all.
    const identity = await notification("identity");
    expect(identity.status).toBe(202);
    expect(identity.headers.get("content-encoding")).toBeNull();
    expect(identity.headers.get("content-length")).toBe("0");
  });
});
