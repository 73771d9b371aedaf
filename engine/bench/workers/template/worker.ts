/**
 * Bench Worker (b): this template's protocol engine, unchanged (`createMcpWorker` from src/mcp), serving the
 * same `echo` tool as the peers plus an MRTR tool that asks one form question and completes on the retry.
 *
 * Served with the template's own configuration: bench/lib/template-config.mjs derives its wrangler config from the
 * root wrangler.toml (every binding, var, trigger and setting; only `main` points here, and the app's own Durable
 * Objects are left out), once as shipped and once without `[assets]`/`[build]`. So it exports every Durable Object
 * class of the engine, as the template does.
 *
 * Its RATE_LIMITER: when the bench sets BENCH_IN_ISOLATE_RATE_LIMIT (`{ limit, period }`, see run.mjs), the binding the
 * engine gets is an in-isolate counter with that limit (./in-isolate-rate-limit.ts) instead of Miniflare's, whose
 * every `limit()` is a Durable Object fetch under Miniflare 5.
 */
import * as z from "zod/mini";
import { createMcpWorker, defineTool, elicitForm, text } from "../../../src";
import { InIsolateRateLimit, type SimpleLimit } from "./in-isolate-rate-limit";

// Declared once, as the SDK Worker does (and as the template's src/tools.ts does for its forms).
const input = z.strictObject({ text: z.string().check(z.maxLength(100)) });
const confirmForm = z.object({ ok: z.boolean() });

const bench = createMcpWorker<Env>({
  name: "bench-template",
  version: "1.0.0",
  tools: [
    defineTool({
      name: "echo",
      description: "Echoes the text back.",
      input,
      handler: ({ text: value }) => ({ content: [text(value)] }),
    }),
    defineTool({
      name: "confirm",
      description: "Asks the user to confirm (one form question), then echoes the text.",
      input,
      // Not singleUse: the bench replays the same signed retry many times.
      async handler({ text: value }, ctx) {
        const { confirm } = await ctx.ask({ confirm: elicitForm("Go ahead?", confirmForm) });
        return { content: [text(confirm.action === "accept" && confirm.content.ok ? value : "declined")] };
      },
    }),
  ],
});

/**
 * The runtime's env with RATE_LIMITER counted in the isolate, built once per env object: the runtime hands every
 * request of an isolate the same one (the engine memoizes its configuration on it too), so this is one counter per
 * isolate and no per-request copy of env.
 */
const withLimiter = new WeakMap<object, Env>();
function benchEnv(env: Env): Env {
  const setting = (env as unknown as { BENCH_IN_ISOLATE_RATE_LIMIT?: SimpleLimit }).BENCH_IN_ISOLATE_RATE_LIMIT;
  if (!setting) return env;
  let ours = withLimiter.get(env);
  if (!ours) {
    ours = { ...env, RATE_LIMITER: new InIsolateRateLimit(setting) };
    withLimiter.set(env, ours);
  }
  return ours;
}

export default { ...bench, fetch: (request: Request, env: Env, ctx: ExecutionContext) => bench.fetch(request, benchEnv(env), ctx) };
export class ReplayGuard extends bench.ReplayGuard {}
export class SubscriptionHub extends bench.SubscriptionHub {}
export class LegacySession extends bench.LegacySession {}
export class TaskRunner extends bench.TaskRunner {}
