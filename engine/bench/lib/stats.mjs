/**
 * Medians and the noisy-round rule, shared by the in-process and the HTTP measurements.
 *
 * Noisy round: one whose floor figure (a fixed workload: the floor Worker's cost per request in that round) is more
 * than NOISY_FACTOR times the median of the floor's figures over every round. On a shared machine another process's
 * burst makes every Worker measured in that round look slower; such a round is flagged and left out of the medians
 * (unless every round is flagged, when all of them count and the report says so).
 */
export const NOISY_FACTOR = 1.5;

export const median = (values) => {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** Indices of the noisy rounds, from the floor's cost per request in each round (higher = slower). */
export function noisyRounds(floorCosts) {
  const typical = median(floorCosts);
  return floorCosts.flatMap((cost, round) => (Number.isFinite(cost) && cost > NOISY_FACTOR * typical ? [round] : []));
}

/** The rounds the medians use: every round not flagged, or all of them when every round is flagged. */
export function keptRounds(count, noisy) {
  const kept = [...Array(count).keys()].filter((round) => !noisy.includes(round));
  return kept.length ? kept : [...Array(count).keys()];
}

/** Median of `values[round]` over the kept rounds. */
export const medianOver = (values, kept) => median(kept.map((round) => values[round]));
