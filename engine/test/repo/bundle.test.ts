/**
 * What a Worker uploads, from esbuild's metafile (the bundler wrangler runs, with the conditions it uses): the
 * built-in authorization server, src/oauth/ and @cloudflare/workers-oauth-provider (about 37 KB gzip), is in the
 * bundle only when the entry module passes the `authorizationServer` option. Why a build and not the import graph:
 * the engine's public module re-exports that option, so oauth/ is always in the graph; only the bundler's
 * tree-shaking keeps it out, and one module-level call it cannot prove pure would bring part of it back.
 */
import { resolve } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const AUTHORIZATION_SERVER = /(^|\/)src\/oauth\/|@cloudflare\/workers-oauth-provider\//;

/** The inputs that put bytes into the bundle of a minimal Worker, with or without the option. */
async function bundledInputs(withAuthorizationServer: boolean): Promise<string[]> {
  const entry = withAuthorizationServer
    ? 'import { authorizationServer, createMcpWorker } from "./src";\nexport default createMcpWorker({ name: "probe", version: "1.0.0", authorizationServer });'
    : 'import { createMcpWorker } from "./src";\nexport default createMcpWorker({ name: "probe", version: "1.0.0" });';
  const { metafile } = await build({
    stdin: { contents: entry, resolveDir: root, loader: "ts" },
    bundle: true,
    format: "esm",
    minify: true,
    write: false,
    outdir: "bundle",
    metafile: true,
    conditions: ["workerd", "worker", "browser"],
    external: ["cloudflare:*"],
    logLevel: "silent",
  });
  return Object.values(metafile.outputs).flatMap((output) =>
    Object.entries(output.inputs)
      .filter(([, input]) => input.bytesInOutput > 0)
      .map(([path]) => path),
  );
}

describe("the Worker's bundle", () => {
  it("holds none of the authorization server's code nor its library when the Worker does not pass authorizationServer", async () => {
    const inputs = await bundledInputs(false);
    expect(inputs.some((path) => path.includes("src/worker/create.ts"))).toBe(true);
    expect(inputs.filter((path) => AUTHORIZATION_SERVER.test(path))).toEqual([]);
  });

  it("holds the authorization server and the provider library when the Worker passes authorizationServer", async () => {
    const inputs = (await bundledInputs(true)).filter((path) => AUTHORIZATION_SERVER.test(path));
    expect(inputs).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/src\/oauth\/host\.ts$/),
        expect.stringMatching(/src\/oauth\/login\.ts$/),
        expect.stringMatching(/@cloudflare\/workers-oauth-provider\//),
      ]),
    );
  });
});
