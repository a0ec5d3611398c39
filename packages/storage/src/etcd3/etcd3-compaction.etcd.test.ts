import { EtcdCluster } from '@listwatch/testing';
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPACT_REV_KEY, Etcd3Storage } from './etcd3-storage.js';

// Compaction coordinated between apiservers on one etcd, as k8s.io/apiserver
// pkg/storage/etcd3/compact.go: each interval exactly one of them compacts, to the revision the
// cluster had one interval earlier, agreeing through a compare-and-swap on compact_rev_key.

describe('compactors of several apiservers on one etcd', () => {
  let cluster: EtcdCluster;
  beforeAll(async () => {
    cluster = await EtcdCluster.start();
  });
  afterAll(async () => {
    await cluster.destroy();
  });

  it('compact once per round between them, never twice the same revision', async () => {
    const compactions: { replica: number; revision: number }[] = [];
    const interval = 150;
    const replicas = [0, 1, 2].map(
      (replica) =>
        new Etcd3Storage({
          endpoints: cluster.endpoints,
          prefix: `/replica-${replica}`,
          compactionInterval: interval,
          onCompacted: (revision) => compactions.push({ replica, revision }),
        }),
    );
    const writer = replicas[0]!;
    const started = Date.now();
    let n = 0;
    // Writes go on all along, so every round has a new revision to compact to.
    while (Date.now() - started < 20 * interval) {
      await writer.create(`/replica-0/configmaps/ns/c${n++}`, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `c${n}`, namespace: 'ns' },
      });
      await new Promise((r) => setTimeout(r, 10));
    }
    await Promise.all(replicas.map((r) => r.close()));
    const rounds = Math.ceil((Date.now() - started) / interval);
    const revisions = compactions.map((c) => c.revision);
    expect(compactions.length).toBeGreaterThan(3);
    // Once per round for the cluster, not once per replica per round.
    expect(compactions.length).toBeLessThanOrEqual(rounds);
    expect(new Set(revisions).size).toBe(revisions.length);
    expect(revisions).toEqual([...revisions].sort((a, b) => a - b));
    // The round count lives in etcd, as kube's compactors keep it.
    const client = new Etcd3({ hosts: cluster.endpoints });
    try {
      const version = await client.get(COMPACT_REV_KEY).exec();
      expect(Number(version.kvs[0]?.version)).toBeGreaterThanOrEqual(compactions.length);
    } finally {
      client.close();
    }
  });
});
