/**
 * @module oauth/machine-metadata
 * The authorization server's metadata (RFC 8414), as the provider writes it, with what the engine adds beside it
 * when machine clients are declared: the client credentials grant, the ways they authenticate, and the
 * algorithms an assertion may be signed with. Clients of the extension read these before they ask for a token.
 */
import { ASSERTION_ALGORITHMS } from "./client-assertion";

const MACHINE_METHODS = ["client_secret_basic", "client_secret_post", "private_key_jwt"];

/** The provider's metadata answer, with the machine clients' grant, methods and algorithms added; other answers as they are. */
export async function withMachineClients(response: Response): Promise<Response> {
  if (response.status !== 200) return response;
  const metadata = (await response.json()) as Record<string, unknown>;
  const union = (member: string, added: readonly string[]) => {
    const listed = Array.isArray(metadata[member]) ? (metadata[member] as string[]) : [];
    metadata[member] = [...new Set([...listed, ...added])];
  };
  union("grant_types_supported", ["client_credentials"]);
  union("token_endpoint_auth_methods_supported", MACHINE_METHODS);
  union("token_endpoint_auth_signing_alg_values_supported", ASSERTION_ALGORITHMS);
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return Response.json(metadata, { status: 200, headers });
}
