/**
 * The app's server for the authorization-server end-to-end tests, with three changes: it includes the built-in
 * authorization server (the `authorizationServer` option, as a fork that sets AUTH_LOGIN adds it); the client ID
 * metadata document of a test client (at an https URL that does not exist) is answered here instead of fetched, so
 * the CIMD flow runs offline; and two tools need scopes (the example's need none), so a machine client's scopes
 * (./machine-clients.ts) allow one and refuse the other. Every other fetch (the fake upstream provider on
 * 127.0.0.1) goes out as usual.
 */

import { authorizationServer, createMcpWorker, defineTool, text } from "mcp-workers-engine";
import * as z from "zod/mini";
import { definition } from "../../../src/index";
import { CIMD_CLIENT_ID, CIMD_REDIRECT_URI } from "./cimd";

const realFetch = globalThis.fetch;
globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
  const url = input instanceof Request ? input.url : String(input);
  if (url !== CIMD_CLIENT_ID) return realFetch(input, init);
  return Response.json(
    {
      client_id: CIMD_CLIENT_ID,
      client_name: "CIMD Test Client",
      redirect_uris: [CIMD_REDIRECT_URI],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    },
    { headers: { "cache-control": "no-store" } },
  );
}) as typeof fetch;

/** Who is calling, as a tool sees it: needs `reports:read`. */
const whoami = defineTool({
  name: "whoami",
  description: "Says who is calling.",
  input: z.strictObject({}),
  scopes: ["reports:read"],
  handler: (_args, ctx) => ({ content: [text(JSON.stringify(ctx.principal))] }),
});

/** Needs `reports:admin`, which no machine client of the tests is given. */
const purgeReports = defineTool({
  name: "purge_reports",
  description: "Deletes every report (it deletes nothing: a test of scopes).",
  input: z.strictObject({}),
  scopes: ["reports:admin"],
  handler: () => ({ content: [text("purged")] }),
});

const declarations = () => {
  const app = definition.declarations();
  return { ...app, tools: [...app.tools, whoami, purgeReports] };
};

const mcp = createMcpWorker<Env>({ ...definition, declarations, authorizationServer });

export default mcp;
export class ReplayGuard extends mcp.ReplayGuard {}
export class SubscriptionHub extends mcp.SubscriptionHub {}
export class LegacySession extends mcp.LegacySession {}
export class TaskRunner extends mcp.TaskRunner {}
export class OAuthState extends mcp.OAuthState {}
export { Notebook } from "../../../src/notes";
