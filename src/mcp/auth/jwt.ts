/**
 * @module jwt
 * The three jose functions authorization needs, in a module of their own so that `auth.ts` can load it on first
 * use (and the bundler keeps only these parts of jose).
 */
export { createLocalJWKSet, createRemoteJWKSet, jwtVerify } from "jose";
