/**
 * @module config/keys
 * The `STATE_KEYS` secret: the keys that sign `requestState`, session ids, list cursors and task ids, current first.
 */

const MIN_KEY_BYTES = 32;
const KID = /^[A-Za-z0-9_-]{1,16}$/;

/**
 * Parses `STATE_KEYS` ("kid:base64key,kid:base64key", current key first) and returns the problems found, by key
 * position and id only, never by value. Keys shorter than 32 bytes are refused: HMAC-SHA256 keys should carry
 * at least as many bits as its output.
 */
export function parseKeySpec(spec: string): { keys: { kid: string; bytes: Uint8Array }[]; problems: string[] } {
  const keys: { kid: string; bytes: Uint8Array }[] = [];
  const problems: string[] = [];
  spec.split(",").forEach((entry, index) => {
    const separator = entry.indexOf(":");
    const kid = entry.slice(0, separator).trim();
    const material = entry.slice(separator + 1).trim();
    if (separator === -1 || !KID.test(kid)) {
      problems.push(`STATE_KEYS entry ${index + 1} must look like "<kid>:<base64 key>" (kid: 1-16 of A-Za-z0-9_-)`);
      return;
    }
    let bytes: Uint8Array;
    try {
      bytes = Uint8Array.fromBase64(material.replace(/-/g, "+").replace(/_/g, "/"));
    } catch {
      problems.push(`STATE_KEYS key "${kid}" is not valid base64`);
      return;
    }
    if (bytes.length < MIN_KEY_BYTES) problems.push(`STATE_KEYS key "${kid}" is shorter than ${MIN_KEY_BYTES} bytes`);
    else if (keys.some((key) => key.kid === kid)) problems.push(`STATE_KEYS key id "${kid}" appears twice`);
    else keys.push({ kid, bytes });
  });
  if (keys.length === 0 && problems.length === 0) problems.push("STATE_KEYS holds no key");
  return { keys, problems };
}
