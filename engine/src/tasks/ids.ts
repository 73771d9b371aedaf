/**
 * @module tasks/ids
 * Task ids. They are bearer-like handles (SEP-2663: unguessable), and each names its own Durable Object.
 *
 * Format: `<kid>.<nonce>.<tag>`: a state key id, 128 random bits, and the first 128 bits of an HMAC-SHA256 of
 * both under that key (STATE_KEYS), all base64url: at most 62 characters. Why signed: the Worker can tell an id it
 * minted from any other string of the same shape without asking a Durable Object, so a made-up id wakes no object
 * and creates no storage (on `wrangler dev` even waking one creates its file). An id signed with a key that is no
 * longer listed names no task, as a `requestState` signed with it would no longer verify.
 */

import type { KeyRing } from "../config/signing";
import { base64url, decodeBase64urlStrict, randomToken } from "../util/encoding";

/** Why the shape first: junk costs a regex, not an HMAC. */
const TASK_ID = /^([A-Za-z0-9_-]{1,16})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{22})$/;
const encoder = new TextEncoder();

export async function newTaskId(ring: KeyRing): Promise<string> {
  const { kid, key } = ring.current;
  const nonce = randomToken(16);
  return `${kid}.${nonce}.${base64url(await tagOf(key, kid, nonce))}`;
}

/** Whether this server minted `value` as a task id, under a key it still lists. Nothing else is looked up. */
export async function isMintedTaskId(ring: KeyRing, value: string): Promise<boolean> {
  const match = TASK_ID.exec(value);
  if (!match) return false;
  const [, kid, nonce, tag] = match as unknown as [string, string, string, string];
  // An unknown key id fails closed, as for signed state: never "try every key".
  const key = ring.byId.get(kid);
  const given = decodeBase64urlStrict(tag);
  if (!key || !given) return false;
  return crypto.subtle.timingSafeEqual(given, await tagOf(key, kid, nonce));
}

/** Domain-separated from every other MAC made with the state keys (a state token's starts with its version). */
async function tagOf(key: CryptoKey, kid: string, nonce: string): Promise<Uint8Array> {
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(`mcp.task-id.v1\n${kid}.${nonce}`));
  return new Uint8Array(mac).subarray(0, 16);
}
