/**
 * Starts the Worker once for all end-to-end tests, the way `npm run dev` does (wrangler's dev server, bound to
 * 127.0.0.1 on a free port), and hands its URL to the tests.
 */
import type { TestProject } from "vitest/node";
import { unstable_startWorker } from "wrangler";
import { TEST_BINDINGS } from "../../vitest.config";

declare module "vitest" {
  export interface ProvidedContext {
    mcpUrl: string;
  }
}

export default async function setup(project: TestProject) {
  process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
  const worker = await unstable_startWorker({
    config: "wrangler.toml",
    // Why: not a developer's .dev.vars (wrangler's default), whose AUTH_ISSUER would turn authorization on here.
    envFiles: ["test/no-local-settings.env"],
    bindings: Object.fromEntries(Object.entries(TEST_BINDINGS).map(([name, value]) => [name, { type: "plain_text", value }])),
    dev: { server: { hostname: "127.0.0.1", port: 0 }, inspector: false, watch: false, logLevel: "warn" },
  });
  await worker.ready;
  project.provide("mcpUrl", new URL("/mcp", await worker.url).href);
  return async () => {
    await worker.dispose();
  };
}
