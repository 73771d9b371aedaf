/**
 * @module define/budget
 * A tool's own budget: calls per caller per period, counted on a rate-limiting binding of its own, so a costly tool
 * cannot use up the budget of the cheap ones (and they cannot use up its). Over it, the model gets an `isError`
 * result that says when to retry, and the tool does not run; the request itself was within its budget, so it is
 * answered, not refused. Callers are counted as every other limit counts them (`callerKey`: the principal, or the
 * client's network). Charged once per logical call: the server passes the charge as the call's `admit`
 * (run/request.ts `AskingOptions`), which a multi round-trip call runs on its first round only (modern/rounds.ts).
 */
import { isBindingPeriod } from "../config/options";
import { callerKey, charge } from "../http/rate-limit";
import type { RequestScope } from "../run/request";
import { log } from "../util/log";
import { ErrorCode, RpcError } from "../wire/errors";

/**
 * A tool's budget: at most `calls` per caller per `periodMs`, counted on the rate-limiting binding named `binding`
 * (a `[[ratelimits]]` entry of wrangler.toml whose `simple` is `{ limit = calls, period = periodMs / 1000 }`).
 *
 * @example
 * ```ts
 * export const exportBudget: ToolBudget = { binding: "EXPORT_LIMITER", calls: 5, periodMs: 60_000 };
 * ```
 */
export interface ToolBudget {
  /** The rate-limiting binding that counts this tool's calls (A-Z, 0-9 and _). */
  binding: string;
  /** Calls per caller per period: the binding's `simple.limit`, 1 to 1,000,000. */
  calls: number;
  /** The binding's `simple.period`: 10,000 or 60,000 (the platform counts per 10 or 60 s). */
  periodMs: 10_000 | 60_000;
}

const BINDING_NAME = /^[A-Z][A-Z0-9_]{0,63}$/;

/** Startup check of a tool's budget; the error names the tool. */
export function checkBudget(toolName: string, budget: ToolBudget | undefined): void {
  if (budget === undefined) return;
  const refuse = (problem: string) => {
    throw new Error(`Tool "${toolName}": ${problem}`);
  };
  if (typeof budget !== "object" || budget === null) refuse("budget must be an object { binding, calls, periodMs }");
  if (typeof budget.binding !== "string" || !BINDING_NAME.test(budget.binding)) {
    refuse("budget.binding must name a rate-limiting binding (A-Z, 0-9 and _, starting with a letter)");
  }
  if (!Number.isInteger(budget.calls) || budget.calls < 1 || budget.calls > 1_000_000) {
    refuse("budget.calls must be an integer from 1 to 1000000");
  }
  if (!isBindingPeriod(budget.periodMs)) refuse("budget.periodMs must be 10000 or 60000 (the binding's period)");
}

/**
 * Charges one call of `toolName` to the caller; what the model is told when the caller is over the tool's budget,
 * else undefined. Without the binding the budget cannot be kept, so the call is refused with -32603 naming it rather
 * than run unmetered (the binding was removed, or never added).
 */
export async function budgetRefusal(toolName: string, budget: ToolBudget, scope: RequestScope): Promise<string | undefined> {
  const limiter = (scope.env as Record<string, RateLimit | undefined>)[budget.binding];
  if (!limiter) {
    log(scope, "error", "a tool's budget needs its rate-limiting binding", { tool: toolName, binding: budget.binding });
    throw new RpcError(
      ErrorCode.InternalError,
      `Tool ${toolName} has a budget, and this server has no ${budget.binding} binding to keep it`,
      undefined,
      500,
    );
  }
  const retryAfterMs = await charge(limiter, `tool:${toolName}:${callerKey(scope)}`, 1, budget.periodMs);
  if (retryAfterMs === undefined) return undefined;
  const seconds = Math.ceil(retryAfterMs / 1000);
  return `Tool ${toolName} is over its budget for this caller (${budget.calls} calls per ${budget.periodMs / 1000} s): nothing was done. Retry in ${seconds} seconds, or go on without it.`;
}
