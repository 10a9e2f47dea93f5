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
    const lower = c.toLowerCase();
    const d = isTransposition(w, lower) ? 1 : distance(w, lower);
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/** Whether `a` is `b` with two neighbouring letters swapped (`chekc`, `check`): one typo, not two. */
function isTransposition(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  const diff: number[] = [];
  for (let i = 0; i < a.length && diff.length <= 2; i++) if (a[i] !== b[i]) diff.push(i);
  const [i, j] = diff;
  return (
    diff.length === 2 &&
    j === (i as number) + 1 &&
    a[i as number] === b[j as number] &&
    a[j as number] === b[i as number]
  );
}

/** `"; did you mean 'x'?"`, or the empty string when nothing is close. */
export function suggestion(word: string, candidates: Iterable<string>): string {
  const s = didYouMean(word, candidates);
  return s === undefined ? "" : `; did you mean '${s}'?`;
}
