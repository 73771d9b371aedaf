/**
 * @module config/key-ring
 * The imported signing keys (STATE_KEYS: for `requestState`, list cursors, session ids and task ids), created once
 * per isolate (importing a CryptoKey per request would cost every request a key schedule).
 */

import { memoize } from "../util/memo";
import type { Config } from "./config";
import { importKeyRing, type KeyRing } from "./signing";

const ringOf = memoize((keys: Config["keys"]): Promise<KeyRing> => importKeyRing(keys));

export const keyRing = (config: Config): Promise<KeyRing> => ringOf(config.keys);
