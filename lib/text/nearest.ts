// "Did you mean": the name a typo most likely meant. Pure, so the board's query box
// (components/board/query.ts) and the engine's unknown-queue refusal share one rule.

/**
 * The closest name within two edits (a typo; at most half the word's length, so "ab" does
 * not "mean" "cd"), else the first name the word begins (a prefix, three characters or
 * more: "tri" → "triage"); undefined when none is close.
 */
export function nearest(word: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.min(2, Math.floor(word.length / 2)) + 1;
  for (const name of names) {
    if (name === word) continue;
    const d = distance(word, name);
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  if (best !== undefined || word.length < 3) return best;
  return names.find((name) => name !== word && name.startsWith(word));
}

/** Levenshtein distance (two rows). */
export function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}
