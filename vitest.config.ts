import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: { bindings: { MCP_ENV: "development", STATE_KEYS: "test:dGVzdC1rZXktdGhhdC1pcy1hdC1sZWFzdC0zMi1ieXRlcy1sb25n" } },
    }),
  ],
});
