/**
 * @module oauth/refresh-reuse
 * A refresh token works once. The provider rotates refresh tokens but keeps the previous one valid until its
 * successor is used (so a client whose answer was lost can retry), and a use of the previous one rotates again: a
 * stolen, superseded token keeps minting tokens, and the legitimate client's newest one stops working while the
 * grant lives on. So this server remembers every refresh token it has redeemed (as its SHA-256, for as long as a
 * grant can live), and a second use of one revokes the whole grant, as OAuth 2.1 §4.3.1 and RFC 9700 §4.14.2 ask:
 * whoever holds the newest token, client or thief, must sign in again.
 *
 * What this cannot promise: KV is eventually consistent, so a reuse from another Cloudflare location within about a
 * minute may go unnoticed, and two uses that race each other both succeed (the provider's own grant record has the
 * same limits). A retry after a lost answer counts as a reuse: the person signs in again.
 */
import { base64url } from "../util/encoding";

const PREFIX = "mcp-refresh-redeemed:";

async function keyOf(refreshToken: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(refreshToken));
  return PREFIX + base64url(digest);
}

/** Whether this refresh token was already exchanged for new tokens. */
export async function wasRedeemed(kv: KVNamespace, refreshToken: string): Promise<boolean> {
  return (await kv.get(await keyOf(refreshToken))) !== null;
}

/** Remembers that this refresh token was exchanged, for `ttlSeconds` (the longest a grant, and so the token, lives). */
export async function markRedeemed(kv: KVNamespace, refreshToken: string, ttlSeconds: number): Promise<void> {
  await kv.put(await keyOf(refreshToken), "1", { expirationTtl: ttlSeconds });
}

/** The grant a provider-issued token belongs to: its format is `<userId>:<grantId>:<secret>`. */
export function grantOf(token: string): { userId: string; grantId: string } | undefined {
  const [userId, grantId, secret, ...rest] = token.split(":");
  return userId && grantId && secret && rest.length === 0 ? { userId, grantId } : undefined;
}
