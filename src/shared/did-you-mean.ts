import { distance } from "fastest-levenshtein";

/**
 * The candidate closest to `word` by edit distance (case-insensitive), if it is close enough to be
 * a plausible typo: at most 2 edits, and at most a third of the word's length.
 */
export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  const w = word.toLowerCase();
  const limit = Math.min(2, Math.max(1, Math.floor(w.length / 3)));
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    const d = distance(w, c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/** `"; did you mean 'x'?"`, or the empty string when nothing is close. */
export function suggestion(word: string, candidates: Iterable<string>): string {
  const s = didYouMean(word, candidates);
  return s === undefined ? "" : `; did you mean '${s}'?`;
}
