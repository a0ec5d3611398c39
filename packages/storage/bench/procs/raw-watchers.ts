// Child process: `count` watchers of a key prefix straight on etcd with the etcd3 package (which
// multiplexes them over one gRPC stream per client), counting put events and, for a sample,
// reading the send time the writer stamped in each Pod (the `bench.listwatch.io/sent`
// annotation, found in the stored bytes whatever their encoding).
import { Etcd3, type Watcher } from 'etcd3';
import { serveParent, wallMs } from '../../../../bench/proc.js';

const SENT = Buffer.from('bench.listwatch.io/sent');

interface Counter {
  events: number;
  target: number;
  sample: boolean;
}

let client: Etcd3 | undefined;
const watchers: Watcher[] = [];
const counters: Counter[] = [];
let latencies: number[] = [];
let outstanding = 0;
let lastAt = 0;
let waiting: (() => void) | undefined;

/** The decimal number after the annotation's name in `value`. */
function sentTime(value: Buffer): number {
  const at = value.indexOf(SENT);
  if (at === -1) return NaN;
  let i = at + SENT.length;
  while (i < value.length && !(value[i]! >= 0x30 && value[i]! <= 0x39)) i++;
  let j = i;
  while (j < value.length && ((value[j]! >= 0x30 && value[j]! <= 0x39) || value[j] === 0x2e)) j++;
  return Number(value.toString('latin1', i, j));
}

serveParent({
  async open(args) {
    const { endpoints, prefix, count, sample } = args as {
      endpoints: string[];
      prefix: string;
      count: number;
      sample: number;
    };
    client = new Etcd3({ hosts: endpoints });
    const every = Math.max(1, Math.floor(count / Math.max(1, sample)));
    for (let i = 0; i < count; i++) {
      const c: Counter = { events: 0, target: 0, sample: i % every === 0 };
      counters.push(c);
      const w = await client.watch().prefix(prefix).create();
      w.on('put', (kv) => {
        const now = wallMs();
        if (c.sample) latencies.push(now - sentTime(kv.value));
        if (++c.events === c.target) {
          lastAt = now;
          if (--outstanding === 0) waiting?.();
        }
      });
      w.on('error', () => {});
      watchers.push(w);
    }
    return { open: count };
  },
  arm(args) {
    const { events } = args as { events: number };
    latencies = [];
    outstanding = counters.length;
    for (const c of counters) c.target = c.events + events;
    return null;
  },
  async wait() {
    if (outstanding > 0) await new Promise<void>((r) => (waiting = r));
    return { lastAt, latencies };
  },
  async close() {
    await Promise.all(watchers.map((w) => w.cancel().catch(() => undefined)));
    client?.close();
    return null;
  },
});
