// Server-side apply vs update, per write, for a ~5 KB pod: what the field manager adds to a write
// (the managedFields of an update; the merge, ownership and pruning of an apply), in process.
// `pnpm bench --scenario apply`.
import type { KubeObject } from '@listwatch/api';
import type { Scenario } from '../../../bench/lib.js';
import { samplePod } from '@listwatch/testing';
import { FieldManager } from '../src/fieldmanager/index.js';
import type { JsonObject } from '../src/patch/json-value.js';

let WRITES = 500;

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

function measure(write: (i: number) => unknown): number {
  for (let i = 0; i < 100; i++) write(i);
  const start = process.hrtime.bigint();
  for (let i = 0; i < WRITES; i++) write(i);
  return Number(process.hrtime.bigint() - start) / 1000 / WRITES;
}

export const scenario: Scenario = {
  name: 'apply',
  title: 'server-side apply vs update per write of a ~5 KB pod (the field manager, in process)',
  processes: () => 'the runner alone (in-process)',
  rounds: (ctx) => (ctx.quick ? 1 : 3),
  open(ctx) {
    WRITES = ctx.quick ? 100 : 500;
    return Promise.resolve({
      round() {
        const update = measure((i) => {
          const next = clone(live);
          next.metadata.labels = { ...next.metadata.labels, rev: String(i) };
          return pods.update(live, next, 'editor');
        });
        const applied = pods.apply(live, clone(config), 'applier', true);
        const noop = measure(() => pods.apply(applied, config, 'applier', false));
        const changed = measure((i) =>
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
        return Promise.resolve({
          metrics: {
            pod_bytes: Buffer.byteLength(JSON.stringify(pod)),
            update_us_per_write: update,
            apply_noop_us_per_write: noop,
            apply_changed_us_per_write: changed,
          },
          ratios: { apply_vs_update: changed / update },
        });
      },
      close: () => Promise.resolve(),
    });
  },
};
