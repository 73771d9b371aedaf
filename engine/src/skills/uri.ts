/**
 * @module skills/uri
 * Which `skill://` URIs a request may name. The server only ever serves URIs its build wrote (every name made of
 * unreserved characters, manifest.mjs), and looks them up exactly, so nothing a client sends is ever turned into a
 * path. This check exists to tell a client clearly why a URI that tries to step outside a skill names nothing.
 */

import { invalidParams, truncate } from "../wire/errors";

export const SKILL_SCHEME = "skill://";
/** Longest skill URI accepted, in UTF-16 code units (as the other URI parameters). */
const MAX_SKILL_URI_LENGTH = 2_048;

/**
 * A URI that steps outside a skill or hides its path: percent-encoding ("%2e%2e" is ".." once decoded), a
 * backslash (a separator on some systems), a control character (NUL ends a path on others), a query or fragment, an
 * empty segment (an absolute path, a doubled or trailing slash), or a "." or ".." segment (path traversal).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters (NUL included) are what it refuses.
const HIDDEN_PATH = /[%\\?#\u0000-\u001f\u007f]|\/\/|\/$|\/\.\.?(\/|$)/;

/** The `uri` parameter of a skills method, checked: -32602 naming the problem otherwise. */
export function skillUriParam(params: Record<string, unknown>): string {
  const uri = params.uri;
  if (typeof uri !== "string") throw invalidParams('Invalid params: "uri" must be a string');
  const bad = (why: string) => invalidParams(`Invalid params: ${why}`, { uri: truncate(uri, 200) });
  if (uri.length > MAX_SKILL_URI_LENGTH) throw bad(`a skill URI is at most ${MAX_SKILL_URI_LENGTH} characters`);
  if (!uri.startsWith(SKILL_SCHEME)) throw bad("this server's skill URIs start with skill://");
  if (HIDDEN_PATH.test(uri.slice(SKILL_SCHEME.length - 1))) {
    throw bad(
      'a skill URI is a plain path: no percent-encoding, backslash, control character, query, fragment, empty, "." or ".." segment',
    );
  }
  return uri;
}
