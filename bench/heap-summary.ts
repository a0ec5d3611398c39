// Where a process's heap goes: a .heapsnapshot (BENCH_HEAP_SNAPSHOT=1 pnpm bench --scenario
// density …, or v8.writeHeapSnapshot()) summarised by constructor, by retained size (the
// dominator tree, as DevTools computes it), by what the watch caches hold, and by duplicated
// strings.
//   node --import tsx bench/heap-summary.ts <file.heapsnapshot> [--per N] [--top 20]
// --per N: also each figure divided by N (bytes per stored object: the pods of a density run).
//
// The watch cache breakdown walks each WatchCache's retained set from its parts in order: the
// store's elements (their objects by field: metadata.managedFields, labels, …), then the event
// window's events (what the window adds: earlier versions, the event records), the window's
// store snapshots, the indexes; a node is counted for the first part that reaches it.
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[], ...unknown[]];
      edge_fields: string[];
      edge_types: [string[], ...unknown[]];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

const args = process.argv.slice(2);
const option = (name: string): number | undefined => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : Number(args.splice(i, 2)[1]);
};
const per = option('--per');
const top = option('--top') ?? 20;
const [file] = args;
if (!file) {
  console.error('usage: heap-summary.ts <file.heapsnapshot> [--per N] [--top 20]');
  process.exit(2);
}

const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
const { meta } = snap.snapshot;
const NF = meta.node_fields.length;
const EF = meta.edge_fields.length;
const nodeTypes = meta.node_types[0];
const edgeTypes = meta.edge_types[0];
const [N_TYPE, N_NAME, N_SELF, N_EDGES] = ['type', 'name', 'self_size', 'edge_count'].map((f) =>
  meta.node_fields.indexOf(f),
) as [number, number, number, number];
const [E_TYPE, E_NAME, E_TO] = ['type', 'name_or_index', 'to_node'].map((f) =>
  meta.edge_fields.indexOf(f),
) as [number, number, number];
const nodes = snap.nodes;
const edges = snap.edges;
const strings = snap.strings;
const count = nodes.length / NF;

const typeOf = (n: number) => nodeTypes[nodes[n * NF + N_TYPE]!]!;
const nameOf = (n: number) => strings[nodes[n * NF + N_NAME]!]!;
const selfOf = (n: number) => nodes[n * NF + N_SELF]!;
const WEAK = edgeTypes.indexOf('weak');
const ELEMENT = edgeTypes.indexOf('element');
const HIDDEN = edgeTypes.indexOf('hidden');
const STRING_TYPES = new Set(['string', 'concatenated string', 'sliced string']);

// First edge of each node (edges are stored node after node).
const firstEdge = new Uint32Array(count + 1);
for (let n = 0, e = 0; n < count; n++) {
  firstEdge[n] = e;
  e += nodes[n * NF + N_EDGES]! * EF;
}
firstEdge[count] = edges.length;
const edgeName = (e: number): string => {
  const t = edges[e + E_TYPE]!;
  const v = edges[e + E_NAME]!;
  return t === ELEMENT || t === HIDDEN ? String(v) : (strings[v] ?? String(v));
};
const target = (e: number) => edges[e + E_TO]! / NF;

// Dominators (Cooper, Harvey & Kennedy's iterative algorithm over a reverse postorder), weak
// edges left out as DevTools leaves them out.
const post = new Int32Array(count).fill(-1);
const order = new Uint32Array(count); // postorder → node
let visited = 0;
{
  const stack = new Uint32Array(count);
  const cursor = new Uint32Array(count);
  const seen = new Uint8Array(count);
  let sp = 0;
  stack[sp++] = 0;
  seen[0] = 1;
  cursor[0] = firstEdge[0]!;
  while (sp > 0) {
    const n = stack[sp - 1]!;
    let pushed = false;
    for (let e = cursor[n]!; e < firstEdge[n + 1]!; e += EF) {
      if (edges[e + E_TYPE] === WEAK) continue;
      const t = target(e);
      if (seen[t]) continue;
      cursor[n] = e + EF;
      seen[t] = 1;
      cursor[t] = firstEdge[t]!;
      stack[sp++] = t;
      pushed = true;
      break;
    }
    if (!pushed) {
      sp--;
      post[n] = visited;
      order[visited++] = n;
    }
  }
}
// Predecessors, reachable nodes only.
const predStart = new Uint32Array(count + 1);
for (let n = 0; n < count; n++) {
  if (post[n]! < 0) continue;
  for (let e = firstEdge[n]!; e < firstEdge[n + 1]!; e += EF)
    if (edges[e + E_TYPE] !== WEAK) predStart[target(e) + 1]!++;
}
for (let n = 0; n < count; n++) predStart[n + 1]! += predStart[n]!;
const preds = new Uint32Array(predStart[count]!);
{
  const fill = predStart.slice(0, count);
  for (let n = 0; n < count; n++) {
    if (post[n]! < 0) continue;
    for (let e = firstEdge[n]!; e < firstEdge[n + 1]!; e += EF)
      if (edges[e + E_TYPE] !== WEAK) preds[fill[target(e)]!++] = n;
  }
}
const idom = new Int32Array(count).fill(-1);
idom[0] = 0;
for (let changed = true; changed;) {
  changed = false;
  for (let i = visited - 2; i >= 0; i--) {
    const b = order[i]!;
    let next = -1;
    for (let p = predStart[b]!; p < predStart[b + 1]!; p++) {
      let q = preds[p]!;
      if (idom[q] === -1) continue;
      if (next === -1) {
        next = q;
        continue;
      }
      let r = next;
      while (q !== r) {
        while (post[q]! < post[r]!) q = idom[q]!;
        while (post[r]! < post[q]!) r = idom[r]!;
      }
      next = q;
    }
    if (next !== -1 && idom[b] !== next) {
      idom[b] = next;
      changed = true;
    }
  }
}
const retained = new Float64Array(count);
for (let i = 0; i < visited; i++) {
  const n = order[i]!;
  retained[n]! += selfOf(n);
  if (n !== 0) retained[idom[n]!]! += retained[n]!;
}
const mb = (b: number) => (b / 2 ** 20).toFixed(1).padStart(7);
const perN = (b: number) =>
  per
    ? `${Math.round(b / per)
        .toLocaleString('en')
        .padStart(8)}`
    : '';
const table = (title: string, rows: [string, number][], total?: number) => {
  console.log(`\n${title}${per ? ` — MB, bytes per object (÷ ${per})` : ' — MB'}`);
  for (const [k, v] of rows)
    console.log(
      `${mb(v)} ${perN(v)}${total ? ` ${((100 * v) / total).toFixed(1).padStart(5)}%` : ''}  ${k}`,
    );
};

// 1. Self size by constructor (objects) or by type.
let heapTotal = 0;
const byKind = new Map<string, number>();
for (let n = 0; n < count; n++) {
  const t = typeOf(n);
  heapTotal += selfOf(n);
  const kind = t === 'object' || t === 'native' ? nameOf(n) : `(${t})`;
  byKind.set(kind, (byKind.get(kind) ?? 0) + selfOf(n));
}
table(
  `self size by constructor, of ${mb(heapTotal).trim()} MB`,
  [...byKind].sort((a, b) => b[1] - a[1]).slice(0, top),
  heapTotal,
);

// 2. Retained size by constructor: instances not dominated by another of the same name.
const byClass = new Map<string, number>();
for (let n = 0; n < count; n++) {
  if (typeOf(n) !== 'object' || post[n]! < 0) continue;
  const name = nameOf(n);
  let outer = false;
  for (let at = idom[n]!; at > 0; at = idom[at]!)
    if (typeOf(at) === 'object' && nameOf(at) === name) {
      outer = true;
      break;
    }
  if (!outer) byClass.set(name, (byClass.get(name) ?? 0) + retained[n]!);
}
table(
  'retained size by constructor (outermost instances)',
  [...byClass].sort((a, b) => b[1] - a[1]).slice(0, top),
  heapTotal,
);

// 3. The watch caches, part by part.
const property = (n: number, name: string): number | undefined => {
  for (let e = firstEdge[n]!; e < firstEdge[n + 1]!; e += EF)
    if (edges[e + E_TYPE] !== WEAK && edgeName(e) === name) return target(e);
  return undefined;
};
const children = function* (n: number): Generator<[string, number]> {
  for (let e = firstEdge[n]!; e < firstEdge[n + 1]!; e += EF)
    if (edges[e + E_TYPE] !== WEAK) yield [edgeName(e), target(e)];
};
const claimed = new Uint8Array(count);
/** Not a part of any one object: V8's maps, code, functions and prototypes. */
const SHARED_TYPES = new Set(['hidden', 'code', 'object shape', 'closure', 'synthetic']);
const SHARED_EDGES = new Set(['map', '__proto__', 'constructor', 'prototype']);
const parts = new Map<string, number>();
/** Counts every node under `n` not claimed yet as `part` (data only: no maps, code, prototypes). */
const claim = (n: number, part: string) => {
  const stack: [number, string][] = [[n, part]];
  while (stack.length) {
    const [at, name] = stack.pop()!;
    if (claimed[at] || SHARED_TYPES.has(typeOf(at))) continue;
    claimed[at] = 1;
    parts.set(name, (parts.get(name) ?? 0) + selfOf(at));
    for (const [edge, child] of children(at)) {
      if (SHARED_EDGES.has(edge)) continue;
      // A WeakMap's value is held by its key too (V8 names that edge after the pair).
      stack.push([
        child,
        edge.includes('pair in WeakMap') ? 'encodings kept (WeakMap values)' : name,
      ]);
    }
  }
};
/** A cached object, field by field: what each costs (metadata's own parts apart). */
const claimObject = (object: number, prefix: string) => {
  if (claimed[object]) return;
  claimed[object] = 1;
  parts.set(`${prefix} (records)`, (parts.get(`${prefix} (records)`) ?? 0) + selfOf(object));
  for (const [edge, child] of children(object)) {
    if (edge === 'metadata' && typeOf(child) === 'object') {
      if (!claimed[child]) {
        claimed[child] = 1;
        parts.set(`${prefix} (records)`, (parts.get(`${prefix} (records)`) ?? 0) + selfOf(child));
      }
      for (const [m, grand] of children(child)) {
        const known = ['managedFields', 'labels', 'annotations', 'ownerReferences'];
        claim(grand, `${prefix} metadata.${known.includes(m) ? m : '(other)'}`);
      }
    } else if (edge.includes('pair in WeakMap')) claim(child, 'encodings kept (WeakMap values)');
    else if (['spec', 'status'].includes(edge)) claim(child, `${prefix} ${edge}`);
    else claim(child, `${prefix} (records)`);
  }
};
/** The values of a sorted-btree (its leaves' `values` arrays), depth first. */
const btreeValues = function* (tree: number): Generator<number> {
  const stack = [tree];
  while (stack.length) {
    const at = stack.pop()!;
    const values = property(at, 'values');
    const kids = property(at, 'children');
    if (kids !== undefined) for (const [, c] of children(kids)) stack.push(c);
    else if (values !== undefined)
      for (const [e, v] of children(values)) if (/^\d+$/.test(e)) yield v;
    const root = property(at, '_root');
    if (root !== undefined) stack.push(root);
  }
};
const caches: { node: number; retained: number; size: number }[] = [];
for (let n = 0; n < count; n++)
  if (typeOf(n) === 'object' && nameOf(n) === 'WatchCache' && post[n]! >= 0)
    caches.push({ node: n, retained: retained[n]!, size: 0 });
for (const cache of caches.sort((a, b) => b.retained - a.retained)) {
  const { node } = cache;
  claimed[node] = 1;
  parts.set('watch cache (records)', (parts.get('watch cache (records)') ?? 0) + selfOf(node));
  const store = property(node, 'store');
  const window = property(node, 'window');
  const tree = store !== undefined ? property(store, 'elements') : undefined;
  if (tree !== undefined)
    for (const element of btreeValues(tree)) {
      cache.size++;
      if (claimed[element]) continue;
      claimed[element] = 1;
      parts.set('store elements', (parts.get('store elements') ?? 0) + selfOf(element));
      const object = property(element, 'object');
      if (object !== undefined) claimObject(object, 'store object');
      const fields = property(element, 'fields');
      if (fields !== undefined) claim(fields, 'store elements');
    }
  if (tree !== undefined) claim(tree, 'store tree');
  const buffer = window !== undefined ? property(window, 'buffer') : undefined;
  if (buffer !== undefined)
    for (const [, event] of children(buffer)) {
      if (typeOf(event) !== 'object' || claimed[event]) continue;
      claimed[event] = 1;
      parts.set('window events', (parts.get('window events') ?? 0) + selfOf(event));
      for (const [edge, child] of children(event)) {
        if (edge === 'object' || edge === 'prevObject') claimObject(child, `window ${edge}`);
        else claim(child, 'window events');
      }
    }
  if (window !== undefined) claim(window, 'window snapshots and buffers');
  if (store !== undefined) claim(store, 'store indexes');
  claim(node, 'watch cache (other)');
}
const cachesTotal = [...parts.values()].reduce((a, b) => a + b, 0);
if (caches.length > 0) {
  console.log(
    `\nwatch caches: ${caches.length}, ${mb(cachesTotal).trim()} MB; the largest holds ${caches[0]!.size} objects`,
  );
  table(
    'watch caches by part',
    [...parts].sort((a, b) => b[1] - a[1]),
    cachesTotal,
  );
}

// Beside the caches: the largest Maps (module-level caches) by retained size, and the bytes of
// ArrayBuffers (encodings kept: outside heapUsed, inside the RSS).
const maps: [string, number][] = [];
for (let n = 0; n < count; n++) {
  if (typeOf(n) !== 'object' || !['Map', 'WeakMap', 'Set'].includes(nameOf(n))) continue;
  if (retained[n]! < 2 ** 20) continue;
  const table = property(n, 'table');
  const entries = table !== undefined ? (firstEdge[table + 1]! - firstEdge[table]!) / EF : 0;
  maps.push([`${nameOf(n)} @${n} (${entries} slots)`, retained[n]!]);
}
table('largest Maps, Sets and WeakMaps (retained)', maps.sort((a, b) => b[1] - a[1]).slice(0, 8));
let bufferBytes = 0;
for (let n = 0; n < count; n++)
  if (nameOf(n) === 'system / JSArrayBufferData') bufferBytes += selfOf(n);
console.log(
  `\nArrayBuffer contents: ${mb(bufferBytes).trim()} MB${per ? `, ${perN(bufferBytes).trim()} bytes per object` : ''}`,
);

// 4. Strings: bytes, and bytes spent on copies of a string held elsewhere already.
const byValue = new Map<string, { n: number; bytes: number }>();
let stringBytes = 0;
for (let n = 0; n < count; n++) {
  if (!STRING_TYPES.has(typeOf(n))) continue;
  stringBytes += selfOf(n);
  // A rope or a slice is named by its type, not its text: counted, never compared.
  if (typeOf(n) !== 'string') continue;
  const v = nameOf(n);
  const entry = byValue.get(v);
  if (entry) {
    entry.n++;
    entry.bytes += selfOf(n);
  } else byValue.set(v, { n: 1, bytes: selfOf(n) });
}
let copies = 0;
const wasted: [string, number][] = [];
for (const [v, { n, bytes }] of byValue) {
  if (n < 2) continue;
  const extra = bytes - bytes / n;
  copies += extra;
  wasted.push([`×${n} ${JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v)}`, extra]);
}
console.log(
  `\nstrings: ${mb(stringBytes).trim()} MB, of which ${mb(copies).trim()} MB are copies of an equal string${per ? ` (${perN(stringBytes).trim()} and ${perN(copies).trim()} bytes per object)` : ''}`,
);
table(
  'duplicated strings (bytes beyond one copy)',
  wasted.sort((a, b) => b[1] - a[1]).slice(0, top),
);
