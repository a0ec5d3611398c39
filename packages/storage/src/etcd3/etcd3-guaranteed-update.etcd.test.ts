import type { KubeObject } from '@listwatch/api';
import { EtcdCluster } from '@listwatch/testing';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Etcd3Storage } from './etcd3-storage.js';

// guaranteedUpdate's round trips on etcd, as k8s.io/apiserver/pkg/storage/etcd3/store.go makes
// them: a write whose compare fails answers with the key's current state (OptimisticPut with
// GetOnFailure), so a conflict costs no extra read; and this storage starts from its own last
// write when the caller's cached copy is older or missing. Counted at etcd (its /metrics).

let etcd: EtcdCluster;
beforeAll(async () => {
  etcd = await EtcdCluster.start();
});
afterAll(() => etcd?.destroy());

const opened: Etcd3Storage[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

let prefixes = 0;
/** `n` storages sharing one prefix: as many apiservers on one etcd. */
function apiservers(n: number): Etcd3Storage[] {
  const prefix = `/gu-${prefixes++}/registry`;
  const stores = Array.from(
    { length: n },
    () => new Etcd3Storage({ endpoints: etcd.endpoints, prefix, compactionInterval: 0 }),
  );
  opened.push(...stores);
  return stores;
}

/** etcd's answered unary requests by method so far. */
async function requests(): Promise<Record<string, number>> {
  const text = await (await fetch(`${etcd.endpoints[0]}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = /^grpc_server_handled_total\{.*grpc_method="(\w+)".*grpc_type="unary"\} (\S+)$/.exec(
      line,
    );
    if (m) out[m[1]!] = (out[m[1]!] ?? 0) + Number(m[2]);
  }
  return out;
}

/** The Range and Txn requests etcd answered while `fn` ran. */
async function counted<T>(
  fn: () => Promise<T>,
): Promise<{ result: T; range: number; txn: number }> {
  const before = await requests();
  const result = await fn();
  const after = await requests();
  return {
    result,
    range: (after['Range'] ?? 0) - (before['Range'] ?? 0),
    txn: (after['Txn'] ?? 0) - (before['Txn'] ?? 0),
  };
}

const configMap = (v: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'a', namespace: 'ns' },
  data: { v },
});

const v = (o: KubeObject) => (o['data'] as Record<string, string>)['v']!;

describe('etcd3 guaranteedUpdate', () => {
  it('an update right after this storage wrote the key starts from that write: one transaction, no read', async () => {
    const [s] = apiservers(1);
    const key = `${s!.prefix}/configmaps/ns/a`;
    await s!.create(key, configMap('1'));
    const seen: string[] = [];
    const { result, range, txn } = await counted(() =>
      s!.guaranteedUpdate(key, (c) => {
        seen.push(v(c));
        return { ...c, data: { v: `${v(c)}+` } };
      }),
    );
    expect(seen).toEqual(['1']);
    expect(v(result)).toBe('1+');
    expect({ range, txn }).toEqual({ range: 0, txn: 1 });
    expect(v((await s!.get(key))!)).toBe('1+');
  });

  it("another apiserver's write since: the failed transaction's read is the fresh state, no extra read", async () => {
    const [a, b] = apiservers(2);
    const key = `${a!.prefix}/configmaps/ns/a`;
    const cached = await a!.create(key, configMap('1'));
    await b!.update(key, configMap('2'));
    // From the stale cached copy, and from a's own (now stale) last write.
    for (const from of [cached, undefined]) {
      const before = v((await b!.get(key))!);
      const seen: string[] = [];
      const { result, range, txn } = await counted(() =>
        a!.guaranteedUpdate(
          key,
          (c) => {
            seen.push(v(c));
            return { ...c, data: { v: `${v(c)}+` } };
          },
          from,
        ),
      );
      expect(seen[seen.length - 1]).toBe(before);
      expect(v(result)).toBe(`${before}+`);
      expect(range).toBe(0);
      expect(txn).toBe(seen.length);
      await b!.update(key, configMap('2'));
    }
  });

  it('a key another apiserver deleted is NotFound, whatever copy the update starts from', async () => {
    const [a, b] = apiservers(2);
    const key = `${a!.prefix}/configmaps/ns/a`;
    const cached = await a!.create(key, configMap('1'));
    await b!.delete(key);
    await expect(a!.guaranteedUpdate(key, (c) => c, cached)).rejects.toMatchObject({
      storageCode: 'KeyNotFound',
    });
    await expect(a!.guaranteedUpdate(key, (c) => c)).rejects.toMatchObject({
      storageCode: 'KeyNotFound',
    });
  });

  it('concurrent increments from several apiservers, from cached copies or none, are never lost', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            by: fc.integer({ min: 0, max: 2 }),
            // Which copy the caller offers: none, the first state, or the last one it saw.
            cache: fc.constantFrom('none', 'first', 'last'),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        async (ops) => {
          const stores = apiservers(3);
          const key = `${stores[0]!.prefix}/configmaps/ns/a`;
          const first = await stores[0]!.create(key, configMap('0'));
          let last = first;
          const results = await Promise.all(
            ops.map(async ({ by, cache }) => {
              const updated = await stores[by]!.guaranteedUpdate(
                key,
                (c) => ({ ...c, data: { v: String(Number(v(c)) + 1) } }),
                cache === 'none' ? undefined : cache === 'first' ? first : last,
              );
              last = updated;
              return Number(updated.metadata.resourceVersion);
            }),
          );
          const final = (await stores[0]!.get(key))!;
          expect(v(final)).toBe(String(ops.length));
          // Each increment landed at a revision of its own.
          expect(new Set(results).size).toBe(ops.length);
          await Promise.all(stores.map((s) => s.close()));
        },
      ),
      { numRuns: 15 },
    );
  });
});
