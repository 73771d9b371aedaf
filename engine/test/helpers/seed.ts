/**
 * Seeds and case counts for property-based tests. Seeds are random each run (so every run explores new cases), and
 * printed with the count so a failure can be replayed with `FC_SEED=<seed> FC_RUNS=<count> npm test`.
 *
 * Each property names its full count of cases. CI runs the full counts (vitest.config.ts turns CI=true, which
 * .ci/run sets, into FC_RUNS=full); a local run takes a tenth of each, at least LOCAL_MINIMUM (or the full count if
 * smaller), so that `npm test` stays quick while every property still runs. `FC_RUNS` overrides both: `full`, or a
 * number of cases for every property.
 */
import { env } from "cloudflare:workers";

/** Cases a property runs locally at least: enough for the shares of outcomes some properties check. */
export const LOCAL_MINIMUM = 200;

/** How many of `full` cases to run under the FC_RUNS setting (`""` when unset); a setting it cannot read is an error. */
export function casesFor(full: number, setting: string): { cases: number; why: string } {
  if (setting === "") return { cases: Math.min(full, Math.max(LOCAL_MINIMUM, Math.ceil(full / 10))), why: "local default" };
  if (setting === "full") return { cases: full, why: "FC_RUNS=full" };
  const cases = Number(setting);
  if (!Number.isSafeInteger(cases) || cases < 1) {
    throw new Error(`FC_RUNS must be "full" or a whole number of cases from 1, not ${JSON.stringify(setting)}`);
  }
  return { cases, why: `FC_RUNS=${cases}` };
}

export function seedFor(name: string, fullRuns: number): { seed: number; numRuns: number } {
  const settings = env as unknown as Record<string, string>;
  const fixed = Number(settings.FC_SEED);
  const seed = Number.isInteger(fixed) && fixed !== 0 ? fixed : Math.floor(Math.random() * 2 ** 31);
  const { cases, why } = casesFor(fullRuns, settings.FC_RUNS ?? "");
  console.log(
    `fast-check ${name}: ${cases} of ${fullRuns} cases (${why}), seed ${seed} (replay with FC_SEED=${seed} FC_RUNS=${cases} npm test)`,
  );
  return { seed, numRuns: cases };
}
