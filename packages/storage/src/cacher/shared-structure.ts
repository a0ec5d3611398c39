/**
 * The next version of a cached object, sharing every part that did not change with the version
 * before it. The watch cache keeps each object's recent versions in its window (about 75 s of
 * events, watch_cache.go eventFreshDuration), and storage decodes every version afresh: a pod
 * created, bound and reported Running is three full copies of the same spec. Shared, a version
 * costs what changed in it (issue 35: the heap per stored object against its JSON).
 *
 * Neither argument is modified; the result is a new object wherever something under it changed,
 * else the previous value itself. Safe only because cached objects are never mutated (the watch
 * cache hands them out as they are, to LISTs and to every watcher).
 */
export function shareUnchanged<T>(next: T, previous: unknown): T {
  return share(next, previous) as T;
}

function share(next: unknown, previous: unknown): unknown {
  if (next === previous) return previous;
  if (typeof next !== 'object' || next === null) {
    // Equal strings: keep one of them (the same text decoded twice is two strings).
    return next === previous ? previous : next;
  }
  if (typeof previous !== 'object' || previous === null) return next;
  if (Array.isArray(next)) {
    if (!Array.isArray(previous)) return next;
    const [after, before] = [next as unknown[], previous as unknown[]];
    let same = after.length === before.length;
    const out = new Array<unknown>(after.length);
    for (let i = 0; i < after.length; i++) {
      const value = i < before.length ? share(after[i], before[i]) : after[i];
      out[i] = value;
      if (value !== before[i]) same = false;
    }
    return same ? previous : out;
  }
  if (Array.isArray(previous)) return next;
  const before = previous as Record<string, unknown>;
  const after = next as Record<string, unknown>;
  const keys = Object.keys(after);
  const beforeKeys = Object.keys(before);
  // The same keys in the same order: an encoding of either is the same bytes.
  let same = keys.length === beforeKeys.length;
  const out: Record<string, unknown> = {};
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const had = Object.hasOwn(before, key);
    const value = had ? share(after[key], before[key]) : after[key];
    // JSON.parse makes `__proto__` an own property; an assignment would set the prototype.
    if (key === '__proto__')
      Object.defineProperty(out, key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else out[key] = value;
    if (!had || value !== before[key] || beforeKeys[i] !== key) same = false;
  }
  return same ? previous : out;
}
