/** A reproducible pseudo-random source (mulberry32): the same seed, the same run. */
export interface SeededRandom {
  readonly seed: number;
  /** In [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  return {
    seed,
    next,
    int,
    pick: (items) => items[int(items.length)]!,
    chance: (p) => next() < p,
  };
}

/** LISTWATCH_SEED when set (to replay a run), else a fresh seed. */
export function testSeed(): number {
  const fromEnv = process.env['LISTWATCH_SEED'];
  if (fromEnv !== undefined && /^\d+$/.test(fromEnv)) return Number(fromEnv);
  return Math.floor(Math.random() * 2 ** 31);
}
