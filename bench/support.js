import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** The shared public corpus when it sits beside the checkout, else the repository's own fixtures. */
export function corpusDir() {
  const shared = path.resolve(REPO_ROOT, "../shared/corpus");
  return existsSync(shared) ? shared : path.join(REPO_ROOT, "test/fixtures");
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * Times `fns` (name → function) in interleaved rounds, so that machine noise hits each alike.
 * Returns the median milliseconds of each.
 */
export function interleave(fns, { warmup = 3, rounds = 15 } = {}) {
  const names = Object.keys(fns);
  const times = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < warmup + rounds; r++) {
    for (const n of names) {
      const t = performance.now();
      fns[n]();
      const dt = performance.now() - t;
      if (r >= warmup) times[n].push(dt);
    }
  }
  return Object.fromEntries(names.map((n) => [n, median(times[n])]));
}

export const fmt = (x, digits = 2) => x.toFixed(digits);
