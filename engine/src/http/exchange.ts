/**
 * @module http/exchange
 * One HTTP request to `/mcp` while it is served: what every step on the request's path (guards, era dispatch,
 * both protocol paths) reads and fills in.
 */

import type { Config } from "../config/config";
import type { RequestRecord } from "../util/log";
import type { Principal } from "../wire/principal";

export interface HttpExchange {
  request: Request;
  /** The Worker's bindings; each feature reads its own (`hubsOf`, `tasksOf`, ...). */
  env: object;
  execution: ExecutionContext;
  config: Config;
  /** The server's id for this request, sent back as `X-Request-Id` and written in every log line. */
  traceId: string;
  /** Set once authorization has run (anonymous when it is off). */
  principal?: Principal;
  /** The request's access log line, filled in while it is served. */
  record: RequestRecord;
}
