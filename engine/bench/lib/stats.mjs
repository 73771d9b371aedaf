/**
 * Medians, the noisy-round rule and per-round ratios, shared by the in-process and the HTTP measurements and by
 * the report.
 *
 * Noisy round, per Worker: one where that Worker's own cost per request (a fixed workload: its gross CPU per
 * request in-process; its time per request over HTTP) is more than
 * NOISY_FACTOR times its median over every round. Another process's burst makes whichever Worker ran at that moment
 * look slower, so the rule looks at every Worker's own figures, not at one reference Worker's. A noisy round of a
 * Worker is flagged and left out of that Worker's medians and of every per-round ratio it takes part in (unless
 * every round of it is flagged, when all of them count and the report says so).
 *
 * Every target is scored by the median of per-round ratios: in each round two Workers ran minutes apart at most, so
 * the machine's drift between rounds cancels in their ratio, where a ratio of two medians would mix rounds.
 */
export const NOISY_FACTOR = 1.5;

export const median = (values) => {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** Indices of the rounds where any of `series` (each a cost per round, higher = slower) is over NOISY_FACTOR x its median. */
export function noisyRounds(...series) {
  const flagged = new Set();
  for (const costs of series) {
    const typical = median(costs);
    costs.forEach((cost, round) => {
      if (Number.isFinite(cost) && cost > NOISY_FACTOR * typical) flagged.add(round);
    });
  }
  return [...flagged].sort((a, b) => a - b);
}

/** The rounds the medians use: every round not flagged, or all of them when every round is flagged. */
export function keptRounds(count, noisy) {
  const kept = [...Array(count).keys()].filter((round) => !noisy.includes(round));
  return kept.length ? kept : [...Array(count).keys()];
}

/** Median of `values[round]` over the kept rounds. */
export const medianOver = (values, kept) => median(kept.map((round) => values[round]));

/**
 * Per-round ratios `ours[r] / theirs[r]` of two cells (each `{ values, kept }`: a figure per round and the rounds
 * kept for it): every round's ratio, the rounds both kept, and the median over those.
 */
export function perRoundRatio(ours, theirs) {
  const ratios = ours.values.map((value, round) => value / theirs.values[round]);
  const both = ours.kept.filter((round) => theirs.kept.includes(round));
  const kept = both.length ? both : ours.kept;
  const keptRatios = kept.map((round) => ratios[round]);
  return { ratios, kept, median: medianOver(ratios, kept), min: Math.min(...keptRatios), max: Math.max(...keptRatios) };
}
