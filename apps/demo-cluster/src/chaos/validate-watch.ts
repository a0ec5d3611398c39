// The chaos suite's watch checker (etcd-io/etcd tests/robustness/validate/watch.go): what a
// watcher saw, compared with etcd's own history.

export interface Seen {
  type: string;
  name: string;
  rv: number;
}

/**
 * Reliable, Resumable, Atomic: each run of a watcher between relists must be exactly etcd's
 * history from its LIST's revision to its last event — no gap, no duplicate, nothing reordered
 * or split. Returns one line per run that is not.
 */
export function checkSegments(
  id: string,
  segments: readonly { start: number; events: readonly Seen[] }[],
  history: readonly Seen[],
): string[] {
  const violations: string[] = [];
  for (const segment of segments) {
    const end = segment.events.at(-1)?.rv ?? segment.start;
    const expected = history.filter((e) => e.rv > segment.start && e.rv <= end);
    const got = segment.events;
    const differs = (e: Seen | undefined, x: Seen | undefined) =>
      e?.rv !== x?.rv || e?.name !== x?.name || e?.type !== x?.type;
    const at = Array.from({ length: Math.max(got.length, expected.length) }, (_, j) => j).find(
      (j) => differs(got[j], expected[j]),
    );
    if (at !== undefined)
      violations.push(
        `${id}: events from ${segment.start} differ from etcd's history at #${at} ` +
          `(got ${JSON.stringify(got[at])}, etcd ${JSON.stringify(expected[at])})`,
      );
  }
  return violations;
}
