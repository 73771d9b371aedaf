/**
 * @module principal
 * Who is calling. With authorization off every caller is the same anonymous principal, so nothing may be listed
 * or kept "per caller" unless callers are told apart.
 */

/** The caller. Anonymous unless authorization is turned on. */
export interface Principal {
  readonly id: string;
  readonly scopes: readonly string[];
  readonly authenticated: boolean;
}

export const ANONYMOUS: Principal = Object.freeze({ id: "anonymous", scopes: Object.freeze([]), authenticated: false });
