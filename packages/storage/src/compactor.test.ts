import { describe, expect, it } from 'vitest';
import { Compactor } from './compactor.js';
import { MemoryStorage } from './memory/memory-storage.js';
import { isStorageError } from './storage-error.js';

const key = (name: string) => `/registry/configmaps/ns/${name}`;
const object = (name: string) => ({ metadata: { name, namespace: 'ns' } });

async function expired(storage: MemoryStorage, revision: number): Promise<boolean> {
  try {
    await storage.list('/registry/configmaps', { revision });
    return false;
  } catch (err) {
    if (isStorageError(err, 'Expired')) return true;
    throw err;
  }
}

describe('the compactor (kube-apiserver etcd3/compact.go)', () => {
  it('compacts nothing on its first round, then each round to the revision seen one round earlier', async () => {
    const storage = new MemoryStorage({ compactionInterval: 0 });
    const compactor = new Compactor(storage, { interval: 0 });
    await storage.create(key('a'), object('a'));
    const first = await storage.currentRevision();
    expect(await compactor.tick()).toBeUndefined();
    await storage.create(key('b'), object('b'));
    const second = await storage.currentRevision();
    expect(await compactor.tick()).toBe(first);
    expect(await expired(storage, first - 1)).toBe(true);
    expect(await expired(storage, first)).toBe(false);
    // Nothing written since: the next round would compact to `second`, the round after to itself.
    expect(await compactor.tick()).toBe(second);
    expect(await compactor.tick()).toBeUndefined();
    expect(compactor.compactedRevision).toBe(second);
    await storage.close();
  });

  it('running on a timer, it keeps compacting until stopped', async () => {
    const storage = new MemoryStorage({ compactionInterval: 0 });
    const compactor = new Compactor(storage, { interval: 5 }).start();
    let n = 0;
    while (compactor.compactedRevision < 3) {
      await storage.create(key(`o${n}`), object(`o${n++}`));
      await new Promise((r) => setTimeout(r, 5));
    }
    compactor.stop();
    expect(await expired(storage, compactor.compactedRevision - 1)).toBe(true);
    await storage.close();
  });

  it('storages compact themselves with the compactionInterval option', async () => {
    const storage = new MemoryStorage({ compactionInterval: 5 });
    await storage.create(key('first'), object('first'));
    let n = 0;
    while (!(await expired(storage, 2))) {
      await storage.create(key(`o${n}`), object(`o${n++}`));
      await new Promise((r) => setTimeout(r, 5));
    }
    await storage.close();
  });

  it('a failed round is reported and the next round goes on', async () => {
    const errors: unknown[] = [];
    let fail = true;
    const compactor = new Compactor(
      {
        currentRevision: () =>
          fail ? Promise.reject(new Error('etcd down')) : Promise.resolve(10),
        compact: () => Promise.resolve(),
      },
      { interval: 5, onError: (e) => errors.push(e) },
    ).start();
    while (errors.length === 0) await new Promise((r) => setTimeout(r, 5));
    fail = false;
    while (compactor.compactedRevision === 0) await new Promise((r) => setTimeout(r, 5));
    compactor.stop();
    expect(compactor.compactedRevision).toBe(10);
  });
});
