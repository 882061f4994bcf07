export interface Entry {
  name: string;
  score: number;
}

export function topN(entries: readonly Entry[], n: number): Entry[] {
  return [...entries].sort((a, b) => b.score - a.score).slice(0, n);
}
