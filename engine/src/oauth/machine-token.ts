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
 * in it is secret). What is checked at every use: the MAC (so the purpose, the resource and the client's credential),
 * the expiry, and that the client is still declared: removing a client from AUTH_MACHINE_CLIENTS ends its tokens at
 * once, changing its secret or its keys (`client_secret_sha256`, `jwks`, `jwks_uri`) ends those minted before, and
 * narrowing its scopes narrows them. Nothing is stored per token.
 */
import { scopeHolder } from "../auth/scopes";
import type { Config } from "../config/config";
import { keyRing } from "../config/key-ring";
import type { MachineClient } from "../config/machine-clients";
import { canonicalJson, open, seal, unverifiedBody } from "../config/signing";
import { base64url } from "../util/encoding";
import { memoize } from "../util/memo";

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
  const bind = { resource, credential: await credentialFingerprint(client) };
  return seal(await keyRing(config), { purpose: PURPOSE, bind, ttlMs, body: { c: client.id, s: scopes } });
}

/**
 * The props of a machine client's token presented at `resource`, or null when it is not one, is altered, expired,
 * minted for another resource, or its client is no longer declared or no longer has the credential it had. The
 * provider answers null as any invalid token: 401 `invalid_token`.
 */
export async function resolveMachineToken(config: Config, token: string, resource: string): Promise<MachineProps | null> {
  const clients = config.authServer?.machineClients ?? [];
  if (clients.length === 0 || token.length > MAX_TOKEN_LENGTH) return null;
  // The client is read from the token before its MAC is checked only to know which credential the MAC must cover:
  // `open` then refuses the token unless it was sealed for this very client and credential.
  const named = (unverifiedBody(token) as { c?: unknown } | null | undefined)?.c;
  const client = clients.find((declared) => declared.id === named);
  if (!client) return null;
  const bind = { resource, credential: await credentialFingerprint(client) };
  const opened = await open(await keyRing(config), token, { purpose: PURPOSE, bind, maxLength: MAX_TOKEN_LENGTH });
  if (!opened.ok) return null;
  const body = opened.body as { c?: unknown; s?: unknown };
  if (body.c !== client.id || !Array.isArray(body.s)) return null;
  // The scopes granted that the client may still have (under the scope hierarchy, as they were granted): the
  // configuration of now decides, not that of the mint.
  const holds = scopeHolder(client.scopes, config.scopeHierarchy);
  const scopes = body.s.filter((scope): scope is string => typeof scope === "string" && holds(scope));
  return { client: { id: client.id, name: client.name }, scopes };
}

/**
 * A digest of how the client authenticates now: the SHA-256 of its secret's hash, of its inline key set (canonical
 * JSON), or of its `jwks_uri`. Why in the token's binding: a token is stored nowhere, so this is what ends the tokens
 * of a leaked secret or key once the operator changes it (a token sealed under the old credential no longer opens),
 * and keeps a client removed and declared again under the same id with another credential from inheriting them.
 * Keys rotated behind an unchanged `jwks_uri` leave its tokens live: the URI is all the configuration knows.
 * Once per client object, so per configuration (config/config.ts memoizes it per env).
 */
const credentialFingerprint = memoize(async (client: MachineClient): Promise<string> => {
  const { auth } = client;
  const credential =
    auth.method === "client_secret_basic"
      ? `secret\n${auth.secretSha256.toHex()}`
      : auth.jwks
        ? `jwks\n${canonicalJson(auth.jwks)}`
        : `jwks_uri\n${auth.jwksUri}`;
  return base64url(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(credential)));
});
