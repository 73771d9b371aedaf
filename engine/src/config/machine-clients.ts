/**
 * @module config/machine-clients
 * The machine clients of the built-in authorization server (AUTH_MACHINE_CLIENTS): services, CI jobs and daemons
 * that call tools with no person at a browser, through the OAuth client credentials grant (the MCP extension
 * `io.modelcontextprotocol/oauth-client-credentials`). They are declared here by the operator, never registered
 * through /register: the extension asks for clients registered out of band.
 *
 * The setting is a JSON array (a string, or the array itself from wrangler.toml's `[vars]`), one object per client:
 *
 *   { "client_id": "nightly-report", "client_name": "Nightly report", "scope": "notes:read",
 *     "client_secret_sha256": "<64 hex digits>" }     client_secret_basic or client_secret_post
 *   { "client_id": "ci", "client_name": "CI", "scope": "notes", "jwks_uri": "https://ci.example/jwks.json" }
 *   { "client_id": "ci", "client_name": "CI", "scope": "notes", "jwks": { "keys": [ ... ] } }   private_key_jwt
 *
 * Why only a hash of a secret: the setting is read by whoever reads the Worker's configuration; the SHA-256 of a
 * high-entropy secret (32 random bytes or more) tells them nothing they can sign in with. Why SHA-256 and not a slow
 * hash: the secret is random, not a password, so there is nothing to guess, and every token request pays for it.
 */
import { isObject } from "../wire/envelope";
import { truncate } from "../wire/errors";

/** How a machine client proves who it is at /token. */
export type MachineClientAuth =
  /** The secret, sent with HTTP Basic or in the form (`client_secret_post`), hashed to `secretSha256`. */
  | { method: "client_secret_basic"; secretSha256: Uint8Array }
  | { method: "private_key_jwt"; jwksUri: string; jwks?: undefined }
  | { method: "private_key_jwt"; jwks: { keys: JsonWebKey[] }; jwksUri?: undefined };

export interface MachineClient {
  /** Its `client_id`: letters, digits and `-._~`, up to 64 characters (never a `:`: HTTP Basic splits on it). */
  id: string;
  /** The name logs, spans and `ctx.principal.name` show. */
  name: string;
  /** The scopes it may be granted, at most. */
  scopes: string[];
  auth: MachineClientAuth;
}

const CLIENT_ID = /^[A-Za-z0-9._~-]{1,64}$/;
/** The members an entry may have: any other (a plaintext `client_secret` beside the hash, a typo) is a mistake to name. */
const MEMBERS = ["client_id", "client_name", "scope", "client_secret_sha256", "jwks_uri", "jwks"];
/** The SHA-256 of the empty string: a client whose secret is empty would sign in with no secret at all. */
const EMPTY_SECRET_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
/** The private members of a JWK (RFC 7518 §6.2.2, §6.3.2, §6.4.1): a declared key set holds public keys only. */
const PRIVATE_JWK_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];
const SHA256_HEX = /^[0-9a-f]{64}$/;
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
/** More clients than a deployment declares by hand: a bound, so a token request's lookup stays a short scan. */
export const MAX_MACHINE_CLIENTS = 100;

/**
 * The machine clients of the setting's value, each problem named by the client's position (never a secret's value).
 * `httpsUrl` checks a `jwks_uri` as every other URL setting is checked (https; loopback http in development).
 */
export function parseMachineClients(value: unknown, problems: string[], httpsUrl: (name: string, url: string) => void): MachineClient[] {
  let entries: unknown = value;
  if (typeof value === "string") {
    try {
      entries = JSON.parse(value);
    } catch {
      problems.push("AUTH_MACHINE_CLIENTS must be a JSON array of clients");
      return [];
    }
  }
  if (!Array.isArray(entries) || entries.length > MAX_MACHINE_CLIENTS) {
    problems.push(`AUTH_MACHINE_CLIENTS must be a JSON array of at most ${MAX_MACHINE_CLIENTS} clients`);
    return [];
  }
  const clients: MachineClient[] = [];
  entries.forEach((entry, index) => {
    const where = `AUTH_MACHINE_CLIENTS entry ${index + 1}`;
    const client = parseClient(entry, where, problems, httpsUrl);
    if (!client) return;
    if (clients.some((other) => other.id === client.id)) problems.push(`${where}: client_id ${client.id} is declared twice`);
    else clients.push(client);
  });
  return clients;
}

function parseClient(
  entry: unknown,
  where: string,
  problems: string[],
  httpsUrl: (name: string, url: string) => void,
): MachineClient | undefined {
  if (!isObject(entry)) return void problems.push(`${where} must be an object`);
  const { client_id: id, client_name: name, scope, client_secret_sha256: hash, jwks_uri: jwksUri, jwks } = entry;
  if (typeof id !== "string" || !CLIENT_ID.test(id)) {
    return void problems.push(`${where}: client_id must be 1 to 64 letters, digits or -._~`);
  }
  // Why refuse an unknown member rather than ignore it: a `client_secret` in clear beside the hash is a leaked secret
  // the operator believes is read, and a misspelled member is a setting that silently does nothing.
  const unknown = Object.keys(entry).find((member) => !MEMBERS.includes(member));
  if (unknown !== undefined) return void problems.push(`${where} (client ${id}): unknown member ${JSON.stringify(truncate(unknown, 64))}`);
  if (name !== undefined && (typeof name !== "string" || name.length === 0 || name.length > 200)) {
    return void problems.push(`${where}: client_name must be a string of 1 to 200 characters`);
  }
  const scopes = typeof scope === "string" ? scope.split(" ").filter(Boolean) : undefined;
  // Why a scope is required: a client with none would get a token that no scoped tool accepts, and one that every
  // unscoped tool does; the operator says what it may do.
  if (!scopes?.length || !scopes.every((token) => SCOPE_TOKEN.test(token))) {
    return void problems.push(`${where}: scope must list the scopes it may be granted, space-separated`);
  }
  // Exactly one way to authenticate: two would leave one of them unused, or the weaker one deciding.
  const ways = [hash, jwksUri, jwks].filter((way) => way !== undefined).length;
  if (ways !== 1) return void problems.push(`${where}: give exactly one of client_secret_sha256, jwks_uri, jwks`);
  let auth: MachineClientAuth;
  if (hash !== undefined) {
    if (typeof hash !== "string" || !SHA256_HEX.test(hash)) {
      return void problems.push(`${where}: client_secret_sha256 must be 64 lowercase hex digits (the SHA-256 of the secret)`);
    }
    // Why: the hash of the empty string is a client with no secret; anyone who knows its id signs in as it.
    if (hash === EMPTY_SECRET_SHA256) {
      return void problems.push(`${where} (client ${id}): client_secret_sha256 is the SHA-256 of an empty secret`);
    }
    auth = { method: "client_secret_basic", secretSha256: Uint8Array.fromHex(hash) };
  } else if (jwksUri !== undefined) {
    if (typeof jwksUri !== "string") return void problems.push(`${where}: jwks_uri must be a URL`);
    httpsUrl(`${where}: jwks_uri`, jwksUri);
    auth = { method: "private_key_jwt", jwksUri };
  } else {
    if (!isObject(jwks) || !Array.isArray(jwks.keys) || !jwks.keys.every(isObject)) {
      return void problems.push(`${where}: jwks must be a JSON Web Key Set ({"keys": [...]})`);
    }
    // Why: a private key in the configuration is a key leaked to whoever reads it (and a symmetric `k` would let
    // them sign as the client); the server needs the public half only.
    for (const [position, key] of (jwks.keys as Record<string, unknown>[]).entries()) {
      const secret = PRIVATE_JWK_MEMBERS.find((member) => member in key);
      if (secret !== undefined) {
        return void problems.push(
          `${where} (client ${id}): jwks key ${position + 1} holds the private member ${secret}: declare public keys only`,
        );
      }
    }
    auth = { method: "private_key_jwt", jwks: jwks as unknown as { keys: JsonWebKey[] } };
  }
  return { id, name: (name as string | undefined) ?? id, scopes: [...new Set(scopes)], auth };
}
