/**
 * @module oauth/library
 * `@cloudflare/workers-oauth-provider`, loaded on first use: only authorization-server mode ever evaluates it.
 *
 * Why the library alone is imported lazily, not this folder: the bundler keeps a dynamically imported module in the
 * same file and wraps it, and every module it imports, in a lazy initializer. Importing `oauth/host.ts` lazily put
 * those wrappers around the engine modules this folder shares with every other mode (about 0.6 KiB gzip of the
 * upload); the library imports nothing of the engine, so only it is wrapped. This folder's own modules hold
 * constants and functions only, so evaluating them at startup costs next to nothing.
 */
export const oauthLibrary = () => import("./library-exports");
