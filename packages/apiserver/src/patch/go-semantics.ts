import { goTypeName, type JsonValue } from './json-value.js';

// What upstream's strategic merge gets from Go and JavaScript does not give: `==` on decoded
// JSON, slices sharing a backing array, and sort.SliceStable's exact steps. Patches kubectl sends
// depend on each (k8s.io/apimachinery pkg/util/strategicpatch/patch.go).

/** Go's `==` on two decoded JSON values: primitives by type and value, containers never equal. */
export function goEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === undefined || a === null) return b === undefined || b === null;
  if (typeof a === 'object') return a === b;
  return a === b && goTypeName(a) === goTypeName(b);
}

/**
 * A Go slice over a shared backing array. Upstream deletes merge-list entries in place
 * (`append(s[:i], s[i+1:]...)`) and appends new entries into the capacity that frees; the
 * caller's view of the live list sees both, and `$setElementOrder` then orders by that view.
 * kubectl apply's "remove one container, add another" patches depend on it, so we keep it.
 */
export class GoSlice {
  private shared: boolean;

  constructor(
    private items: JsonValue[],
    public length: number,
    shared: boolean,
  ) {
    this.shared = shared;
  }

  static view(items: JsonValue[]): GoSlice {
    return new GoSlice(items, items.length, true);
  }

  static of(items: JsonValue[]): GoSlice {
    return new GoSlice(items, items.length, false);
  }

  at(index: number): JsonValue {
    return this.items[index] as JsonValue;
  }

  set(index: number, value: JsonValue): void {
    this.items[index] = value;
  }

  removeAt(index: number): void {
    for (let i = index; i < this.length - 1; i++) this.items[i] = this.items[i + 1] as JsonValue;
    this.length--;
  }

  append(value: JsonValue): void {
    if (this.shared && this.length >= this.items.length) {
      // Past the shared capacity Go reallocates: later writes no longer reach the caller.
      this.items = this.items.slice(0, this.length);
      this.shared = false;
    }
    this.items[this.length++] = value;
  }

  toArray(): JsonValue[] {
    return this.items.slice(0, this.length);
  }
}

/**
 * Go's sort.SliceStable (insertion sort over blocks of 20, then SymMerge), step for step, so an
 * inconsistent `less` orders items exactly as upstream does.
 */
export function goSliceStable<T>(data: T[], lessValues: (a: T, b: T) => boolean): T[] {
  const less = (i: number, j: number): boolean => lessValues(data[i] as T, data[j] as T);
  const swap = (i: number, j: number): void => {
    const t = data[i] as T;
    data[i] = data[j] as T;
    data[j] = t;
  };
  const insertionSort = (a: number, b: number): void => {
    for (let i = a + 1; i < b; i++) for (let j = i; j > a && less(j, j - 1); j--) swap(j, j - 1);
  };
  const swapRange = (a: number, b: number, n: number): void => {
    for (let i = 0; i < n; i++) swap(a + i, b + i);
  };
  const rotate = (a: number, m: number, b: number): void => {
    let i = m - a;
    let j = b - m;
    while (i !== j) {
      if (i > j) {
        swapRange(m - i, m, j);
        i -= j;
      } else {
        swapRange(m - i, m + j - i, i);
        j -= i;
      }
    }
    swapRange(m - i, m, i);
  };
  const symMerge = (a: number, m: number, b: number): void => {
    if (m - a === 1) {
      let i = m;
      let j = b;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (less(h, a)) i = h + 1;
        else j = h;
      }
      for (let k = a; k < i - 1; k++) swap(k, k + 1);
      return;
    }
    if (b - m === 1) {
      let i = a;
      let j = m;
      while (i < j) {
        const h = (i + j) >>> 1;
        if (!less(m, h)) i = h + 1;
        else j = h;
      }
      for (let k = m; k > i; k--) swap(k, k - 1);
      return;
    }
    const mid = (a + b) >>> 1;
    const n = mid + m;
    let start: number;
    let r: number;
    if (m > mid) {
      start = n - b;
      r = mid;
    } else {
      start = a;
      r = m;
    }
    const p = n - 1;
    while (start < r) {
      const c = (start + r) >>> 1;
      if (!less(p - c, c)) start = c + 1;
      else r = c;
    }
    const end = n - start;
    if (start < m && m < end) rotate(start, m, end);
    if (a < start && start < mid) symMerge(a, start, mid);
    if (mid < end && end < b) symMerge(mid, end, b);
  };

  const n = data.length;
  let blockSize = 20;
  let a = 0;
  let b = blockSize;
  while (b <= n) {
    insertionSort(a, b);
    a = b;
    b += blockSize;
  }
  insertionSort(a, n);
  while (blockSize < n) {
    a = 0;
    b = 2 * blockSize;
    while (b <= n) {
      symMerge(a, a + blockSize, b);
      a = b;
      b += 2 * blockSize;
    }
    const m = a + blockSize;
    if (m < n) symMerge(a, m, n);
    blockSize *= 2;
  }
  return data;
}
