/**
 * @module legacy/held-logs
 * Log messages of one request in a 2025 session whose state was not stored at initialize. The client may have
 * set a level since (`logging/setLevel` stores it on first use), but reading it up front would cost every request
 * a Durable Object call, and most requests write no log at all. So the level is read once, when a handler first
 * logs; the request's log messages wait for it, and the request's answer waits for them.
 *
 * Why held rather than dropped: the id cannot say whether a level was set (it is fixed at initialize), and a
 * client that set one must get its messages. Order among log messages is kept; a progress notification sent
 * while the level is being read may arrive before an earlier log message.
 */

import type { Reply } from "../http/reply";
import { reachesLevel } from "../run/request";
import { describeError, type LogScope, log } from "../util/log";
import type { JsonObject, LogLevel } from "../wire/types";

export interface HeldLogs {
  /** Takes one log message; it is sent once the session's level is known, if it reaches that level. */
  log(level: LogLevel, message: JsonObject): void;
  /** Resolves when every message taken so far has been sent or dropped. */
  settled(): Promise<void>;
}

export function heldLogs(reply: Reply, readLevel: () => Promise<LogLevel | undefined>, scope: LogScope): HeldLogs {
  let level: Promise<LogLevel | undefined> | undefined;
  let queue: Promise<void> = Promise.resolve();
  return {
    log(messageLevel, message) {
      level ??= readLevel().catch((error: unknown) => {
        // Without the level nothing may be sent; the request itself still succeeds.
        log(scope, "warn", "session log level unreadable", describeError(error));
        return undefined;
      });
      const pending = level;
      queue = queue.then(async () => {
        const minimum = await pending;
        if (minimum !== undefined && reachesLevel(messageLevel, minimum)) reply.notify(message);
      });
    },
    settled: () => queue,
  };
}
