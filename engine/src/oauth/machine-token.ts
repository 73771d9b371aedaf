/**
 * @module oauth/machine-token
 * The access tokens of machine clients (the client credentials grant, client-credentials.ts): the engine's own
 * signed tokens, not the provider's. Why: `@cloudflare/workers-oauth-provider` 1.2 has no client credentials grant,
 * its public interface mints tokens only at the end of an authorization code flow (a person, a redirect, PKCE), and
 * its storage format is its own to change. So the engine signs the token itself (config/signing.ts: HMAC-SHA256 under
 * STATE_KEYS, a key id so keys rotate, an expiry) for a purpose of its own and bound to this server's resource, and
 * the provider accepts it at /mcp through its public `resolveExternalToken` hook, which hands the engine the props.
 *
 * What a token says: the client id and the scopes granted, readable by its holder (signed, not encrypted: nothing
 * in it is secret). What is checked at every use: the MAC (so the purpose and the resource), the expiry, and that
 * the client is still declared: removing a client from AUTH_MACHINE_CLIENTS ends its tokens at once, and narrowing
 * its scopes narrows them. Nothing is stored per token.
 */
import type { Config } from "../config/config";
import { keyRing } from "../config/key-ring";
import type { MachineClient } from "../config/machine-clients";
import { open, seal } from "../config/signing";

/** Keeps these tokens apart from everything else STATE_KEYS signs (requestState, cursors, session and task ids). */
const PURPOSE = "mcp-machine-access-token";
/** Longer than any token minted here (a client id of 64 characters and a hundred scopes fit well within it). */
const MAX_TOKEN_LENGTH = 8_192;

/** What a machine client's token carries, and `ctx.props` then holds for the engine (auth/authenticate.ts). */
export interface MachineProps {
  client: { id: string; name: string };
  scopes: string[];
}

/** A signed access token for `client` with `scopes`, for `resource` (this server's `<origin>/mcp`), living `ttlMs`. */
export async function mintMachineToken(config: Config, client: MachineClient, scopes: string[], resource: string, ttlMs: number) {
  return seal(await keyRing(config), { purpose: PURPOSE, bind: { resource }, ttlMs, body: { c: client.id, s: scopes } });
}

/**
 * The props of a machine client's token presented at `resource`, or null when it is not one, is altered, expired,
 * minted for another resource, or its client is no longer declared. The provider answers null as any invalid token:
 * 401 `invalid_token`.
 */
export async function resolveMachineToken(config: Config, token: string, resource: string): Promise<MachineProps | null> {
  const clients = config.authServer?.machineClients ?? [];
  if (clients.length === 0) return null;
  const opened = await open(await keyRing(config), token, { purpose: PURPOSE, bind: { resource }, maxLength: MAX_TOKEN_LENGTH });
  if (!opened.ok) return null;
  const body = opened.body as { c?: unknown; s?: unknown };
  const client = clients.find((declared) => declared.id === body.c);
  if (!client || !Array.isArray(body.s)) return null;
  // The scopes granted that the client may still have: the configuration of now decides, not that of the mint.
  const scopes = body.s.filter((scope): scope is string => typeof scope === "string" && client.scopes.includes(scope));
  return { client: { id: client.id, name: client.name }, scopes };
}
