/**
 * @module keys
 * The imported `requestState` signing keys, created once per isolate (importing a CryptoKey per request
 * would cost every request a key schedule).
 */
import type { Config } from "../config";
import { memoize } from "../memo";
import { importKeyRing, type KeyRing } from "./state-token";

const ringOf = memoize((state: Config["state"]): Promise<KeyRing> => importKeyRing(state.keys));

export const keyRing = (config: Config): Promise<KeyRing> => ringOf(config.state);
