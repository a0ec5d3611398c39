// What the density benchmark's children share: how pods are named, and latencies gathered per
// (verb, resource) pair as clusterloader2 reports them.

/** Pods spread over this many namespaces (`density-<i % 10>`), named `pod-<i>`. */
export const NAMESPACES = 10;

export const podNamespace = (i: number) => `density-${i % NAMESPACES}`;
export const podName = (i: number) => `pod-${i}`;

/** The pod's number from its name, or -1 for a pod the benchmark did not create. */
export function podIndex(name: string | undefined): number {
  if (!name?.startsWith('pod-')) return -1;
  const n = Number(name.slice(4));
  return Number.isInteger(n) ? n : -1;
}

/** Latencies in ms by `VERB resource`, and the calls that failed, while armed. */
export class CallLog {
  armed = false;
  readonly latencies: Record<string, number[]> = {};
  errors = 0;
  /** Failed calls by `VERB resource code` (the HTTP code, or the error's name). */
  failures: Record<string, number> = {};
  record(verb: string, resource: string, ms: number, error?: unknown): void {
    if (!this.armed) return;
    if (error !== undefined) {
      this.errors++;
      const code = (error as { code?: unknown }).code;
      const key = `${verb} ${resource} ${typeof code === 'number' ? code : (error as Error).name}`;
      this.failures[key] = (this.failures[key] ?? 0) + 1;
    }
    (this.latencies[`${verb} ${resource}`] ??= []).push(ms);
  }
  /** The log so far, emptied. */
  take(): {
    latencies: Record<string, number[]>;
    errors: number;
    failures: Record<string, number>;
  } {
    const out = { latencies: { ...this.latencies }, errors: this.errors, failures: this.failures };
    for (const k of Object.keys(this.latencies)) delete this.latencies[k];
    this.errors = 0;
    this.failures = {};
    return out;
  }
}

/** A per-pod time table (wall ms; NaN: not yet), sent to the parent as a plain array. */
export class PodTimes {
  private values: number[] = [];
  set(i: number, at: number, first = true): void {
    if (i < 0) return;
    while (this.values.length <= i) this.values.push(NaN);
    if (first && !Number.isNaN(this.values[i]!)) return;
    this.values[i] = at;
  }
  get(i: number): number {
    return this.values[i] ?? NaN;
  }
  count(): number {
    let n = 0;
    for (const v of this.values) if (!Number.isNaN(v)) n++;
    return n;
  }
  toArray(): (number | null)[] {
    // JSON has no NaN: null stands for "not seen".
    return this.values.map((v) => (Number.isNaN(v) ? null : v));
  }
}
