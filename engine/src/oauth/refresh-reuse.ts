/**
 * @module oauth/refresh-reuse
 * A refresh token works once, and a retry of that once gets the same answer. The provider rotates refresh tokens
 * but keeps the previous one valid until its successor is used, and a use of the previous one rotates again: a
 * stolen, superseded token keeps minting tokens, and the legitimate client's newest one stops working while the
 * grant lives on. So every use of a refresh token is recorded (as its SHA-256, in the grant's Durable Object, for as
 * long as a grant can live: state.ts), and the token endpoint (token-endpoint.ts) never lets the provider see a
 * refresh token twice. What a second use gets:
 *
 * - the same answer as the first (the same access and refresh tokens, `expires_in` counted from the first), when it
 *   comes within `limits.oauth.refreshRetryMs` (60 s by default), is the same request (the same form and
 *   Authorization header, compared by hash: a retry after a lost answer sends the very same one), and the answer's
 *   own refresh token has not been used yet. A client whose answer was lost, and each of several racing requests
 *   of one client, gets the rotation's one answer; nobody is signed out.
 * - otherwise the grant is revoked, as OAuth 2.1 §4.3.1 and RFC 9700 §4.14.2 ask: whoever holds the newest token,
 *   client or thief, must sign in again.
 *
 * Token requests on one grant run one at a time in its object (state.ts), so of any number of uses that race, one
 * rotates and the others wait for its answer. The answer kept for a retry holds live tokens: it is sealed with
 * AES-GCM under a key derived from the used refresh token, which only its holder has (the object keeps its hash), and
 * it is dropped when the window ends or the answer's refresh token is used, whichever is first.
 *
 * What this cannot promise: within the window, someone who holds the just-used refresh token (and, for a
 * confidential client, its credentials) and sends the same request gets the same tokens as the client; their next
 * use of them is then detected as any reuse is. A private_key_jwt client that signs a new assertion for its retry
 * sends a different request, which counts as a reuse.
 */
import { base64url, decodeBase64urlStrict } from "../util/encoding";

const encoder = new TextEncoder();

/** The grant a provider-issued code or token belongs to: its format is `<userId>:<grantId>:<secret>`. */
export function grantOf(token: string): { userId: string; grantId: string } | undefined {
  const [userId, grantId, secret, ...rest] = token.split(":");
  return userId && grantId && secret && rest.length === 0 ? { userId, grantId } : undefined;
}

const sha256 = async (text: string) => base64url(await crypto.subtle.digest("SHA-256", encoder.encode(text)));

/** The id a refresh token's use is recorded under: its SHA-256, never the token. */
export const tokenIdOf = (refreshToken: string) => sha256(`mcp-refresh-token\n${refreshToken}`);

/**
 * What makes a token request the same request: its form (in a fixed order) and its Authorization header, hashed.
 * Why both: a retry that presents other client credentials, another client id or another scope is not the same
 * request, and must not receive the answer another one earned.
 */
export function requestProof(form: URLSearchParams, authorization: string | null): Promise<string> {
  const fields = [...form].sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1));
  return sha256(JSON.stringify([authorization ?? "", fields]));
}

/** The AES-GCM key of one answer: derived from the refresh token it answered, which the object never keeps. */
async function answerKey(refreshToken: string): Promise<CryptoKey> {
  const material = await crypto.subtle.digest("SHA-256", encoder.encode(`mcp-refresh-answer\n${refreshToken}`));
  return crypto.subtle.importKey("raw", material, "AES-GCM", false, ["encrypt", "decrypt"]);
}

/** The token answer, sealed for keeping: `<iv>.<ciphertext>`, base64url. */
export async function sealAnswer(refreshToken: string, answer: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await answerKey(refreshToken), encoder.encode(answer));
  return `${base64url(iv)}.${base64url(sealed)}`;
}

/** The kept answer, opened with the refresh token it answered; throws when it is not that token's. */
export async function openAnswer(refreshToken: string, sealed: string): Promise<string> {
  const [iv, data] = sealed.split(".").map((part) => decodeBase64urlStrict(part));
  if (!iv || !data) throw new Error("a kept token answer is malformed");
  return new TextDecoder().decode(await crypto.subtle.decrypt({ name: "AES-GCM", iv }, await answerKey(refreshToken), data));
}

/** What is recorded of one use of a refresh token (state.ts). */
export interface RefreshRecord {
  proof: string;
  /** The id of the refresh token its answer carried; null while its rotation has not answered. */
  successorId: string | null;
  /** Until when (ms) a retry gets its answer; null before it answered. */
  replayUntil: number | null;
  /** Whether the answer is still kept (dropped at the window's end, or once its refresh token is used). */
  kept: boolean;
}

/**
 * What a use of a refresh token does. `rotate`: the provider exchanges it (a first use, or a rotation that never
 * answered, whose turn ran out). `replay`: the same answer as its first use. `reused`: the grant is revoked.
 */
export function decideRefresh(
  record: RefreshRecord | undefined,
  proof: string,
  now: number,
  successorUsed: boolean,
): "rotate" | "replay" | "reused" {
  if (!record || record.successorId === null) return "rotate";
  const retry = !successorUsed && record.kept && record.replayUntil !== null && now <= record.replayUntil && proof === record.proof;
  return retry ? "replay" : "reused";
}
