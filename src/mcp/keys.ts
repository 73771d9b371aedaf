/**
 * @module keys
 * The imported `requestState` signing keys, created once per isolate (importing a CryptoKey per request
 * would cost every request a key schedule).
 */
import type { Config } from "./config";
import { importKeyRing, type KeyRing } from "./state";

const rings = new WeakMap<Config["state"], Promise<KeyRing>>();

export function keyRing(config: Config): Promise<KeyRing> {
  let ring = rings.get(config.state);
  if (!ring) {
    ring = importKeyRing(config.state.keys);
    rings.set(config.state, ring);
  }
  return ring;
}
