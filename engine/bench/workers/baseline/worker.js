/**
 * Bench Worker (a): the runtime floor. Reads the request body (every real server must) but parses nothing, and
 * answers every request with the same precomputed JSON-RPC result, so its throughput is what workerd and the
 * HTTP path alone allow on this machine.
 */
const BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  result: { resultType: "complete", content: [{ type: "text", text: "hello bench" }] },
});
const HEADERS = { "content-type": "application/json" };

export default {
  async fetch(request) {
    // Why read it: an unread request body breaks keep-alive connections under load (the answer races the upload).
    await request.arrayBuffer();
    return new Response(BODY, { headers: HEADERS });
  },
};
