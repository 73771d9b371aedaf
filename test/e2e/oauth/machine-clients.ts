/**
 * Machine clients end to end (the MCP extension `io.modelcontextprotocol/oauth-client-credentials`), against the
 * Worker test/e2e/oauth-flow.test.ts starts (no second `wrangler dev`): the official TypeScript client's
 * `ClientCredentialsProvider` (a secret) and `PrivateKeyJwtProvider` (an ES256 assertion), and the official Python
 * SDK's `ClientCredentialsOAuthProvider` and `PrivateKeyJWTOAuthProvider` (../python/machine_client_flow.py), each
 * signing in with no person, calling a tool its scope allows as a client principal, and refused one it lacks the
 * scope for. The refusals one by one (wrong secret, expired or replayed assertion, ...) are the engine's tests, inside
 * workerd: engine/test/oauth/client-credentials.test.ts.
 */
import { execFile } from "node:child_process";
import { createHash, generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  Client,
  ClientCredentialsProvider,
  type OAuthClientProvider,
  PrivateKeyJwtProvider,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { pythonClientsInstalled, VENV_PYTHON } from "../python/clients.mjs";

const SECRET = "e2e-machine-client-secret-with-256-bits-of-entropy-0123456789abcdef";
const keys = generateKeyPairSync("ec", { namedCurve: "P-256" });
const PUBLIC_JWK = { ...keys.publicKey.export({ format: "jwk" }), kid: "e2e-ci", alg: "ES256", use: "sig" };
const PRIVATE_JWK = keys.privateKey.export({ format: "jwk" }) as Record<string, unknown>;
const PRIVATE_PEM = keys.privateKey.export({ format: "pem", type: "pkcs8" }) as string;

/** The clients, both given `reports:read` only: `whoami` is theirs, `purge_reports` (`reports:admin`) is not. */
export const MACHINE_CLIENTS = JSON.stringify([
  {
    client_id: "e2e-nightly",
    client_name: "Nightly report",
    scope: "reports:read",
    client_secret_sha256: createHash("sha256").update(SECRET).digest("hex"),
  },
  { client_id: "e2e-ci", client_name: "CI pipeline", scope: "reports:read", jwks: { keys: [PUBLIC_JWK] } },
]);

/** What `whoami` answers for each client: a client principal, its id and name, no user. */
const principalOf = (id: string, name: string) => ({
  id: `client-${id}`,
  scopes: ["reports:read"],
  authenticated: true,
  name,
  client: { id, name },
});

/** The official TypeScript client with `authProvider`: `whoami`'s answer, then what `purge_reports` did. */
async function typescriptRun(mcpUrl: string, authProvider: OAuthClientProvider) {
  const client = new Client({ name: "e2e-machine", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider }));
  try {
    const who: any = await client.callTool({ name: "whoami", arguments: {} });
    const purge = await client.callTool({ name: "purge_reports", arguments: {} }).then(
      (result) => ({ result }),
      (error: Error) => ({ error: error.message }),
    );
    return { principal: JSON.parse(who.content[0].text), purge };
  } finally {
    await client.close();
  }
}

/** The official Python SDK's client, by ../python/machine_client_flow.py: its summary. */
function pythonRun(mcpUrl: string, issuer: string, method: "secret" | "jwt", clientId: string, credential: string): Promise<any> {
  const script = join(import.meta.dirname, "..", "python", "machine_client_flow.py");
  return new Promise((resolve, reject) => {
    execFile(
      VENV_PYTHON,
      [script, mcpUrl, issuer, method, clientId, credential],
      { timeout: 60_000, env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`python ${method}: ${error.message}\n${stderr}`));
        try {
          resolve(JSON.parse(stdout));
        } catch {
          reject(new Error(`python ${method} printed no JSON summary:\n${stdout}\n${stderr}`));
        }
      },
    );
  });
}

/** Registers the tests; `server` gives the running Worker's origin once it is ready. */
export function describeMachineClients(server: () => { origin: string; mcpUrl: string }) {
  describe("machine clients through the official TypeScript client (client credentials, no person)", () => {
    it("ClientCredentialsProvider signs in with its secret, calls the tool its scope allows as the client, and is refused the other", async () => {
      const { origin, mcpUrl } = server();
      const provider = new ClientCredentialsProvider({ clientId: "e2e-nightly", clientSecret: SECRET, expectedIssuer: origin });
      const run = await typescriptRun(mcpUrl, provider);
      expect(run.principal).toEqual(principalOf("e2e-nightly", "Nightly report"));
      // The tool needs reports:admin: 403 insufficient_scope; the step-up the client then tries gets no more than
      // reports:read (the token answer's scope says so), so the second try is 403 again.
      expect(run.purge).toEqual({ error: expect.stringContaining("403 insufficient_scope") });
      expect(provider.tokens()).not.toHaveProperty("refresh_token");
    });

    it("PrivateKeyJwtProvider signs in with an ES256 assertion, calls the tool its scope allows as the client, and is refused the other", async () => {
      const { origin, mcpUrl } = server();
      const provider = new PrivateKeyJwtProvider({
        clientId: "e2e-ci",
        privateKey: PRIVATE_JWK,
        algorithm: "ES256",
        expectedIssuer: origin,
      });
      const run = await typescriptRun(mcpUrl, provider);
      expect(run.principal).toEqual(principalOf("e2e-ci", "CI pipeline"));
      expect(run.purge).toEqual({ error: expect.stringContaining("403 insufficient_scope") });
    });
  });

  // Without the Python clients, test/e2e/python-clients.test.ts warns (and fails in CI): these are skipped with it.
  describe.skipIf(!pythonClientsInstalled())("machine clients through the official Python SDK (client credentials, no person)", () => {
    it("ClientCredentialsOAuthProvider (a secret) and PrivateKeyJWTOAuthProvider (an assertion) each call the tool their scope allows as the client, and are refused the other", async () => {
      const { origin, mcpUrl } = server();
      // The client reads its key from a file; the folder goes with the run (a private key is never left behind).
      const folder = mkdtempSync(join(tmpdir(), "machine-client-"));
      const pem = join(folder, "key.pem");
      writeFileSync(pem, PRIVATE_PEM, { mode: 0o600 });
      const [secret, jwt] = await Promise.all([
        pythonRun(mcpUrl, origin, "secret", "e2e-nightly", SECRET),
        pythonRun(mcpUrl, origin, "jwt", "e2e-ci", pem),
      ]).finally(() => rmSync(folder, { recursive: true, force: true }));
      expect(secret.principal).toEqual(principalOf("e2e-nightly", "Nightly report"));
      expect(jwt.principal).toEqual(principalOf("e2e-ci", "CI pipeline"));
      for (const run of [secret, jwt]) {
        expect(run.purge).toEqual({ error: expect.stringContaining("needs the scopes: reports:admin") });
        expect(run.token).toMatchObject({ token_type: "Bearer", scope: "reports:read", refresh_token: null });
      }
    });
  });
}
