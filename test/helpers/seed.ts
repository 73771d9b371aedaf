/**
 * Seeds for property-based tests: random each run (so CI explores new cases), printed so a failure can be
 * replayed with `FC_SEED=<seed> npm test`.
 */
import { env } from "cloudflare:workers";

export function seedFor(name: string, numRuns: number): { seed: number; numRuns: number } {
  const fixed = Number((env as unknown as Record<string, string>).FC_SEED);
  const seed = Number.isInteger(fixed) && fixed !== 0 ? fixed : Math.floor(Math.random() * 2 ** 31);
  console.log(`fast-check ${name}: ${numRuns} cases, seed ${seed} (replay with FC_SEED=${seed} npm test)`);
  return { seed, numRuns };
}
