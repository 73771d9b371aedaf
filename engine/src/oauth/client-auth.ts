/**
 * @module oauth/client-auth
 * How the client of a client ID metadata document authenticates at /token (SEP-3149, a sponsored draft): the
 * document lists the methods it can use (`token_endpoint_auth_methods_supported`), this server intersects them with
 * its own, and when they share an authenticated method the client must use it: `none` is then refused, so whoever
 * holds a stolen code or refresh token cannot redeem it as that client without its key.
 *
 * This server's methods for such a client: `private_key_jwt` (with the key set the document names) and `none`. Why
 * no `client_secret_*`: a document is public, so it cannot carry a secret, and the provider refuses one that tries.
 *
 * A document without the member is read as `["none"]` while the draft is phased in, unless its single
 * `token_endpoint_auth_method` names `private_key_jwt`: reading a document as asking for less authentication than
 * it names would make this server the weaker side.
 */
import { isObject } from "../wire/envelope";
import { fetchJson } from "./oauth-client";

/** This server's methods for a metadata document's client, in its order of preference. */
export const DOCUMENT_CLIENT_METHODS = ["private_key_jwt", "none"] as const;

/** How a document's client authenticates here, or why it cannot (its `problem`, for the error page or `invalid_client`). */
export type DocumentAuth = { ok: true; methods: string[]; mustAuthenticate: boolean } | { ok: false; problem: string };

/** The methods a metadata document's client may use at /token here, from the document as published. */
export function documentAuth(document: Record<string, unknown>): DocumentAuth {
  const listed = document.token_endpoint_auth_methods_supported;
  const single = document.token_endpoint_auth_method;
  let offered: unknown[];
  if (listed === undefined) {
    offered = [single === "private_key_jwt" ? "private_key_jwt" : "none"];
  } else if (Array.isArray(listed) && listed.length > 0 && listed.length <= 10 && listed.every((method) => typeof method === "string")) {
    offered = listed;
  } else {
    return { ok: false, problem: "token_endpoint_auth_methods_supported must be an array of 1 to 10 method names (strings)" };
  }
  // A key set is what private_key_jwt is checked against: a document that offers it without one cannot use it.
  const hasKeys = typeof document.jwks_uri === "string" || isObject(document.jwks);
  const methods = DOCUMENT_CLIENT_METHODS.filter((method) => offered.includes(method) && (method !== "private_key_jwt" || hasKeys));
  if (methods.length === 0) {
    return {
      ok: false,
      problem: `no token endpoint authentication method in common: this server takes ${DOCUMENT_CLIENT_METHODS.join(" or ")} (with a jwks_uri or jwks for private_key_jwt) from a metadata document's client`,
    };
  }
  return { ok: true, methods, mustAuthenticate: methods.includes("private_key_jwt") };
}

/**
 * The document at `clientId` (already checked to be on a public domain), read for its authentication methods. The
 * provider fetches and validates it too; this reads only what the provider does not tell: the list as published.
 */
export async function fetchDocumentAuth(clientId: string): Promise<DocumentAuth> {
  let fetched: Awaited<ReturnType<typeof fetchJson>>;
  try {
    fetched = await fetchJson(clientId, { headers: { accept: "application/json" } });
  } catch (error) {
    return { ok: false, problem: `the metadata document could not be read: ${(error as Error).message}` };
  }
  if (fetched.status !== 200 || !fetched.json) return { ok: false, problem: "the metadata document could not be read as a JSON object" };
  return documentAuth(fetched.json);
}
