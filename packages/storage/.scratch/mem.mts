import { samplePod } from '@listwatch/testing';
const N = 3000;
const gc = (globalThis as any).gc as () => void;
const heap = () => { gc(); gc(); return process.memoryUsage().heapUsed; };
const jsons = Array.from({ length: N }, (_, i) => { const p = samplePod(i); p.metadata.name += `-${i}`; return JSON.stringify(p); });
const jsonBytes = jsons.reduce((a, s) => a + Buffer.byteLength(s), 0) / N;
console.log('json bytes/pod', jsonBytes.toFixed(0));
let h0 = heap();
const objs = jsons.map((s) => JSON.parse(s));
let h1 = heap();
console.log('decoded bytes/pod', ((h1 - h0) / N).toFixed(0), 'ratio', ((h1 - h0) / N / jsonBytes).toFixed(2));
// a second version (status changed) decoded separately
const v2 = objs.map((o) => { const c = JSON.parse(JSON.stringify(o)); c.status = { phase: 'Running', podIP: '10.0.0.1' }; return JSON.parse(JSON.stringify(c)); });
let h2 = heap();
console.log('2nd version, no sharing', ((h2 - h1) / N).toFixed(0));
// interning strings
const intern = new Map<string, string>();
function internAll(v: any): any {
  if (typeof v === 'string') { if (v.length > 64) return v; let s = intern.get(v); if (s === undefined) intern.set(v, (s = v)); return s; }
  if (Array.isArray(v)) { for (let i = 0; i < v.length; i++) v[i] = internAll(v[i]); return v; }
  if (v && typeof v === 'object') { for (const k of Object.keys(v)) v[k] = internAll(v[k]); return v; }
  return v;
}
v2.length = 0; objs.length = 0;
h0 = heap();
const objs2 = jsons.map((s) => internAll(JSON.parse(s)));
h1 = heap();
console.log('interned decoded bytes/pod', ((h1 - h0) / N).toFixed(0), 'ratio', ((h1 - h0) / N / jsonBytes).toFixed(2), 'intern size', intern.size);
console.log(JSON.stringify(objs2[5]).slice(0, 3000));
