/**
 * @module oauth/grant-limit
 * How many grants one person holds. Each client a person signs in to is a grant in their object (state.ts), kept
 * until it expires (limits.oauth.refreshTokenMs) or is revoked; the provider replaces only an earlier grant of the
 * same client, and a host that registers a new client at every connect (claude.ai does) leaves a grant behind each
 * time, so the object would grow with every client the person ever used. After each sign-in, the person's grants
 * beyond limits.oauth.grantsPerPerson are revoked, least recently used first, the new one never.
 */
import { grantOf } from "./refresh-reuse";
import { type OAuthStateNamespace, objectNamed, personObjectName } from "./state-store";

/** Revokes the grants of the person `redirectTo` signs in beyond `max`; returns how many it revoked. */
export async function limitGrants(state: OAuthStateNamespace, redirectTo: string, max: number): Promise<number> {
  // The new grant is named by the code the client is sent back with (`<userId>:<grantId>:<secret>`).
  const code = new URL(redirectTo).searchParams.get("code");
  const grant = code ? grantOf(code) : undefined;
  if (!grant) return 0;
  return objectNamed(state, personObjectName(grant.userId)).revokeGrantsBeyond(grant.userId, grant.grantId, max);
}
