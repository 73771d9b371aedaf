/**
 * Engine tests run with every binding the engine understands, whatever the app's wrangler.toml binds:
 * vitest.config.ts supplies them to the workerd test project. So a fork that removes a binding from wrangler.toml
 * (and regenerates its `Env`) still type-checks and runs the engine's tests; the app's own tests and the
 * end-to-end tests run against the app as configured.
 */
declare namespace Cloudflare {
  interface Env {
    SUBSCRIPTIONS: DurableObjectNamespace<import("../../src").SubscriptionHub>;
    LEGACY_SESSIONS: DurableObjectNamespace<import("../../src").LegacySession>;
    REPLAY_GUARD: DurableObjectNamespace<import("../../src").ReplayGuard>;
    TASKS: DurableObjectNamespace<import("../../src").TaskRunner>;
    RATE_LIMITER: RateLimit;
    OAUTH_KV: KVNamespace;
    /** The test signing key (TEST_BINDINGS in vitest.config.ts); a secret, so the app's generated `Env` does not list it. */
    STATE_KEYS: string;
  }
}
