import {
  CelScalar,
  celMethod,
  isCelList,
  isCelMap,
  isCelUint,
  listType,
  type CelFunc,
  type CelList,
  type CelValue,
} from '@bufbuild/cel';
import { RE2JS } from 're2js';

// Kubernetes' CEL libraries beyond the standard ones and `strings`, as CRD rules have them
// (k8s.io/apiserver pkg/cel/library: lists.go and regex.go). Regular expressions are RE2
// (re2js), as Go's regexp: linear time, whatever the pattern.

const { BOOL, DYN, INT, STRING } = CelScalar;
const LIST = listType(DYN);

/** Thrown as cel-go's error for a call no overload takes. */
function noOverload(name: string): Error {
  return new Error(`no such overload: ${name}`);
}

/** The order of comparable CEL values of one type (int, uint, double, bool, string). */
function compare(a: CelValue, b: CelValue, name: string): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'string' && typeof b === 'string') {
    // Go compares strings bytewise: code points order as UTF-8 bytes do.
    const x = [...a].map((c) => c.codePointAt(0) ?? 0);
    const y = [...b].map((c) => c.codePointAt(0) ?? 0);
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
    }
    return x.length - y.length;
  }
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (isCelUint(a) && isCelUint(b)) return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
  throw noOverload(name);
}

/** CEL equality of two values (numbers across int, uint and double; lists and maps deep). */
function equal(a: CelValue, b: CelValue): boolean {
  const num = (v: CelValue) =>
    typeof v === 'bigint' ? Number(v) : isCelUint(v) ? Number(v.value) : v;
  const x = num(a);
  const y = num(b);
  if (typeof x === 'number' && typeof y === 'number') return x === y;
  if (isCelList(a) && isCelList(b)) {
    if (a.size !== b.size) return false;
    for (let i = 0; i < a.size; i++) {
      const p = a.get(i);
      const q = b.get(i);
      if (p === undefined || q === undefined || !equal(p, q)) return false;
    }
    return true;
  }
  if (isCelMap(a) && isCelMap(b)) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a.entries()) {
      const other = b.get(k);
      if (other === undefined || !equal(v, other)) return false;
    }
    return true;
  }
  return a === b;
}

function extreme(list: CelList, name: 'min' | 'max'): CelValue {
  let best: CelValue | undefined;
  for (const v of list) {
    if (best === undefined) best = v;
    else {
      const c = compare(v, best, name);
      if (name === 'min' ? c < 0 : c > 0) best = v;
    }
  }
  if (best === undefined) throw new Error(`${name} called on empty list`);
  return best;
}

/** lists.go: isSorted, sum, min, max, indexOf, lastIndexOf. */
const lists: CelFunc[] = [
  celMethod('isSorted', LIST, [], BOOL, function () {
    let previous: CelValue | undefined;
    for (const v of this) {
      if (previous !== undefined && compare(previous, v, 'isSorted') > 0) return false;
      previous = v;
    }
    return true;
  }),
  celMethod('sum', LIST, [], DYN, function () {
    let total: CelValue = 0n;
    let first = true;
    for (const v of this) {
      if (first) total = v;
      else if (typeof total === 'bigint' && typeof v === 'bigint') {
        total += v;
        if (total > 2n ** 63n - 1n || total < -(2n ** 63n)) throw new Error('integer overflow');
      } else if (typeof total === 'number' && typeof v === 'number') total += v;
      else throw noOverload('sum');
      first = false;
    }
    if (!first && typeof total !== 'bigint' && typeof total !== 'number') throw noOverload('sum');
    return total;
  }),
  celMethod('min', LIST, [], DYN, function () {
    return extreme(this, 'min');
  }),
  celMethod('max', LIST, [], DYN, function () {
    return extreme(this, 'max');
  }),
  celMethod('indexOf', LIST, [DYN], INT, function (x) {
    let i = 0;
    for (const v of this) {
      if (equal(v, x)) return BigInt(i);
      i++;
    }
    return -1n;
  }),
  celMethod('lastIndexOf', LIST, [DYN], INT, function (x) {
    for (let i = this.size - 1; i >= 0; i--) {
      const v = this.get(i);
      if (v !== undefined && equal(v, x)) return BigInt(i);
    }
    return -1n;
  }),
];

function compile(pattern: string): RE2JS {
  try {
    return RE2JS.compile(pattern);
  } catch (err) {
    throw new Error(`error parsing regexp: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function findAll(text: string, pattern: string, limit: number): string[] {
  const matcher = compile(pattern).matcher(text);
  const out: string[] = [];
  while ((limit < 0 || out.length < limit) && matcher.find()) {
    out.push(matcher.group() ?? '');
    // An empty match moves on by one character, as Go's FindAllString.
    if (matcher.end() === matcher.start() && matcher.end() >= text.length) break;
  }
  return out;
}

/** regex.go: find and findAll. */
const regex: CelFunc[] = [
  celMethod('find', STRING, [STRING], STRING, function (pattern) {
    const matcher = compile(pattern).matcher(this);
    return matcher.find() ? (matcher.group() ?? '') : '';
  }),
  celMethod('findAll', STRING, [STRING], listType(STRING), function (pattern) {
    return findAll(this, pattern, -1);
  }),
  celMethod('findAll', STRING, [STRING, INT], listType(STRING), function (pattern, limit) {
    return findAll(this, pattern, Number(limit));
  }),
];

/** The Kubernetes libraries a CRD rule may call. */
export const kubernetesLibraries: CelFunc[] = [...lists, ...regex];
