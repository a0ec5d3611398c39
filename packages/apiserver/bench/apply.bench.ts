// Server-side apply vs update, per write, for a ~5 KB pod: what the field manager adds to a write
// (the managedFields of an update; the merge, ownership and pruning of an apply), in process.
// `pnpm --filter @listwatch/apiserver bench`.
import type { KubeObject } from '@listwatch/api';
import { samplePod } from '@listwatch/codec';
import { FieldManager } from '../src/fieldmanager/index.js';
import type { JsonObject } from '../src/patch/json-value.js';

const WRITES = Number(process.env['WRITES'] ?? 500);

const pods = new FieldManager({
  gvk: { group: '', version: 'v1', kind: 'Pod' },
  hasStatusSubresource: true,
});
const clone = <T>(v: T): T => structuredClone(v);

const pod = samplePod(1);
delete pod.metadata.managedFields;
const { status: _status, ...rest } = pod as KubeObject & { status?: unknown };
// What an applier sends: the pod without its status.
const config = rest as unknown as JsonObject & { metadata: KubeObject['metadata'] };
const live = pods.update(undefined, clone(pod), 'creator');
live.metadata = { ...live.metadata, uid: 'u', resourceVersion: '1' };

function measure(name: string, write: (i: number) => unknown): void {
  for (let i = 0; i < 100; i++) write(i);
  const start = process.hrtime.bigint();
  for (let i = 0; i < WRITES; i++) write(i);
  const micros = Number(process.hrtime.bigint() - start) / 1000 / WRITES;
  console.log(`${name.padEnd(44)} ${micros.toFixed(1).padStart(8)} µs/write`);
}

console.log(`pod of ${Buffer.byteLength(JSON.stringify(pod))} bytes, ${WRITES} writes each`);
measure('update (managedFields of a label change)', (i) => {
  const next = clone(live);
  next.metadata.labels = { ...next.metadata.labels, rev: String(i) };
  return pods.update(live, next, 'editor');
});
const applied = pods.apply(live, clone(config), 'applier', true);
measure('apply (no-op re-apply of the whole pod)', () =>
  pods.apply(applied, config, 'applier', false),
);
measure('apply (a label changed)', (i) =>
  pods.apply(
    applied,
    {
      ...config,
      metadata: {
        ...config.metadata,
        labels: { ...config.metadata.labels, rev: String(i) },
      } as unknown as JsonObject,
    },
    'applier',
    false,
  ),
);
