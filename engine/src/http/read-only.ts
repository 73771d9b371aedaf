/**
 * @module http/read-only
 * Documents served beside `/mcp` that are only read (the server card, the protected resource metadata): GET answers
 * them, HEAD with the same headers and no body, OPTIONS is a preflight, and any other method is refused with 405.
 */

/** The methods a read-only document takes, as a 405's `Allow` names them. */
const ALLOWED = "GET, HEAD, OPTIONS";

/** The 405 for a method other than GET and HEAD (the route answers OPTIONS before asking), else undefined. */
export function refuseUnlessRead(request: Request): Response | undefined {
  if (request.method === "GET" || request.method === "HEAD") return undefined;
  return new Response(null, { status: 405, headers: { allow: ALLOWED } });
}

/** The document's answer: its body for GET, none for HEAD (same status and headers). */
export function documentAnswer(request: Request, body: string, init: ResponseInit): Response {
  return new Response(request.method === "HEAD" ? null : body, init);
}
