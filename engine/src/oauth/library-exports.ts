/**
 * @module oauth/library-exports
 * What the engine uses of `@cloudflare/workers-oauth-provider`, and only that: loaded through `library.ts`. Why a
 * list: the bundler keeps every export of a dynamically imported module, so importing the library itself lazily
 * would keep all of it; from this list it keeps only what is named here.
 */
export {
  AuthorizationError,
  authorizationErrorRedirect,
  CimdFetchError,
  getOAuthApi,
  OAuthProvider,
} from "@cloudflare/workers-oauth-provider";
