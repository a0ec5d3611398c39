import { createServer, type Server, type Socket } from 'node:net';
import type { KubeObject } from '@listwatch/api';
import { EtcdCluster, TcpProxy, freePort } from '@listwatch/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StorageChange, StorageEvent, StorageWatch } from '../storage.js';
import { isStorageError, type StorageError } from '../storage-error.js';
import { Etcd3Storage, type Etcd3StorageOptions } from './etcd3-storage.js';

function configMap(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' } };
}

class Reader {
  private readonly iterator: AsyncIterator<StorageEvent>;
  constructor(readonly watch: StorageWatch) {
    this.iterator = watch[Symbol.asyncIterator]();
  }
  async changes(n: number): Promise<StorageChange[]> {
    const out: StorageChange[] = [];
    while (out.length < n) {
      const { done, value } = await this.iterator.next();
      if (done) throw new Error('watch ended');
      if (value.type !== 'PROGRESS') out.push(value);
    }
    return out;
  }
  async failure(): Promise<StorageError> {
    for (;;) {
      try {
        const { done } = await this.iterator.next();
        if (done) throw new Error('watch ended without an error');
      } catch (err) {
        if (isStorageError(err)) return err;
        throw err;
      }
    }
  }
}

async function rejection(promise: Promise<unknown>): Promise<StorageError> {
  try {
    await promise;
  } catch (err) {
    if (isStorageError(err)) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

const names = (events: StorageChange[]) => events.map((e) => e.object.metadata.name);

function expectStrictlyIncreasing(events: StorageChange[]): void {
  for (let i = 1; i < events.length; i++)
    expect(events[i]!.revision).toBeGreaterThan(events[i - 1]!.revision);
}

describe('etcd3: a single member that fails', () => {
  let cluster: EtcdCluster;
  let proxy: TcpProxy;
  const stores: Etcd3Storage[] = [];
  let n = 0;
  const open = (options: Etcd3StorageOptions = {}) => {
    const storage = new Etcd3Storage({
      endpoints: cluster.endpoints,
      prefix: `/faults-${n++}/registry`,
      compactionInterval: 0,
      ...options,
    });
    stores.push(storage);
    return storage;
  };
  const key = (name: string, s: Etcd3Storage) => `${s.prefix}/configmaps/ns/${name}`;

  beforeAll(async () => {
    cluster = await EtcdCluster.start();
    proxy = await TcpProxy.start(cluster.member.options.clientPort);
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await proxy.close();
    await cluster.destroy();
  });

  it('a watch open while etcd is SIGKILLed and restarted resumes with no gap and no duplicate', async () => {
    const s = open({ requestTimeout: 2_000 });
    const w = new Reader(
      s.watch(`${s.prefix}/configmaps`, { fromRevision: await s.currentRevision() }),
    );
    const acked: string[] = [];
    for (let i = 0; i < 5; i++)
      acked.push((await s.create(key(`before-${i}`, s), configMap(`before-${i}`))).metadata.name!);
    await cluster.member.kill();
    const down = await rejection(s.create(key('while-down', s), configMap('while-down')));
    expect(down.storageCode).toBe('Unreachable');
    expect(down.code).toBe(503);
    await cluster.member.start();
    for (let i = 0; i < 5; i++)
      acked.push((await s.create(key(`after-${i}`, s), configMap(`after-${i}`))).metadata.name!);
    const events = await w.changes(10);
    expect(names(events)).toEqual(acked);
    expectStrictlyIncreasing(events);
    expect(await s.get(key('while-down', s))).toBeUndefined();
  });

  it('a watch cut off from etcd while writes go on resumes from the last event it delivered, with no gap', async () => {
    const writer = open();
    const s = open({ endpoints: [proxy.endpoint], prefix: writer.prefix });
    const w = new Reader(
      s.watch(`${s.prefix}/configmaps`, { fromRevision: await writer.currentRevision() }),
    );
    const written: string[] = [];
    const write = async (name: string) => {
      await writer.create(key(name, writer), configMap(name));
      written.push(name);
    };
    for (const name of ['a', 'b', 'c']) await write(name);
    expect(names(await w.changes(3))).toEqual(['a', 'b', 'c']);
    proxy.cut();
    for (const name of ['d', 'e', 'f']) await write(name);
    proxy.restore();
    for (const name of ['g', 'h']) await write(name);
    const rest = await w.changes(5);
    expect(names(rest)).toEqual(['d', 'e', 'f', 'g', 'h']);
    expectStrictlyIncreasing(rest);
  });

  it('a watch whose resume point was compacted while it was cut off ends with 410 Expired', async () => {
    const writer = open();
    const s = open({ endpoints: [proxy.endpoint], prefix: writer.prefix });
    const w = new Reader(
      s.watch(`${s.prefix}/configmaps`, { fromRevision: await writer.currentRevision() }),
    );
    await writer.create(key('a', writer), configMap('a'));
    expect(names(await w.changes(1))).toEqual(['a']);
    proxy.cut();
    await writer.create(key('b', writer), configMap('b'));
    await writer.create(key('c', writer), configMap('c'));
    await writer.compact(await writer.currentRevision());
    proxy.restore();
    const err = await w.failure();
    expect(err.storageCode).toBe('Expired');
    expect(err.code).toBe(410);
  });
});

describe('etcd3: an etcd that cannot be reached', () => {
  let silent: Server;
  let silentPort: number;
  const held = new Set<Socket>();
  beforeAll(async () => {
    // Accepts connections and never answers: calls can only end by our own timeouts.
    silentPort = await freePort();
    silent = createServer((socket) => {
      held.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(silentPort, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('every operation against a server that never answers fails with Unreachable (503) within the request timeout', async () => {
    const s = new Etcd3Storage({
      endpoints: [`http://127.0.0.1:${silentPort}`],
      requestTimeout: 300,
      watchReconnectTimeout: 600,
      compactionInterval: 0,
    });
    try {
      const key = '/registry/configmaps/ns/a';
      for (const op of [
        () => s.get(key),
        () => s.create(key, configMap('a')),
        () => s.update(key, configMap('a')),
        () => s.delete(key),
        () => s.list('/registry/configmaps'),
        () => s.currentRevision(),
        () => s.compact(5),
      ]) {
        const err = await rejection(op());
        expect(err.storageCode).toBe('Unreachable');
        expect(err.code).toBe(503);
      }
      const err = await new Reader(s.watch('/registry/configmaps', { fromRevision: 1 })).failure();
      expect(err.storageCode).toBe('Unreachable');
    } finally {
      await s.close();
    }
  });

  it('operations against a port nobody listens on fail with Unreachable, and so does a watch after its reconnect timeout', async () => {
    const s = new Etcd3Storage({
      endpoints: [`http://127.0.0.1:${await freePort()}`],
      requestTimeout: 1_000,
      watchReconnectTimeout: 500,
      compactionInterval: 0,
    });
    try {
      expect((await rejection(s.get('/registry/configmaps/ns/a'))).storageCode).toBe('Unreachable');
      expect(
        (await rejection(s.create('/registry/configmaps/ns/a', configMap('a')))).storageCode,
      ).toBe('Unreachable');
      const err = await new Reader(s.watch('/registry/configmaps', { fromRevision: 1 })).failure();
      expect(err.storageCode).toBe('Unreachable');
    } finally {
      await s.close();
    }
  });
});

describe('etcd3: a three-member cluster', () => {
  let cluster: EtcdCluster;
  beforeAll(async () => {
    cluster = await EtcdCluster.start(3);
  });
  afterAll(async () => {
    await cluster.destroy();
  });

  /** A member that is not the raft leader: killing it needs no election. */
  async function follower(): Promise<number> {
    for (let i = 0; i < cluster.members.length; i++) {
      const res = await fetch(`${cluster.endpoints[i]}/v3/maintenance/status`, {
        method: 'POST',
        body: '{}',
      });
      const status = (await res.json()) as { header: { member_id: string }; leader: string };
      if (status.header.member_id !== status.leader) return i;
    }
    throw new Error('no follower found');
  }

  /**
   * A write already on its way to the member that died fails with 503, as in kube-apiserver
   * (etcd's clientv3 re-sends a mutation only when nothing was sent): clients retry 503s, and a
   * retried create that meets its own first attempt sees AlreadyExists with its own object.
   */
  async function createAsAClientWould(
    s: Etcd3Storage,
    key: string,
    name: string,
  ): Promise<KubeObject> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await s.create(key, configMap(name));
      } catch (err) {
        if (attempt > 1 && isStorageError(err, 'KeyExists')) return (await s.get(key))!;
        if (!isStorageError(err, 'Unreachable') || attempt >= 3) throw err;
      }
    }
  }

  it('with one member killed, writes, reads and an open watch go on through the others', async () => {
    const s = new Etcd3Storage({
      endpoints: cluster.endpoints,
      compactionInterval: 0,
      requestTimeout: 3_000,
    });
    try {
      const key = (name: string) => `/registry/configmaps/ns/${name}`;
      const w = new Reader(
        s.watch('/registry/configmaps', { fromRevision: await s.currentRevision() }),
      );
      const acked: string[] = [];
      for (let i = 0; i < 5; i++)
        acked.push((await s.create(key(`before-${i}`), configMap(`before-${i}`))).metadata.name!);
      await cluster.members[await follower()]!.kill();
      for (let i = 0; i < 10; i++)
        acked.push((await createAsAClientWould(s, key(`after-${i}`), `after-${i}`)).metadata.name!);
      expect((await s.list('/registry/configmaps')).items).toHaveLength(15);
      expect(await s.get(key('after-9'))).toBeDefined();
      const events = await w.changes(15);
      expect(names(events)).toEqual(acked);
      expectStrictlyIncreasing(events);
    } finally {
      await s.close();
    }
  });
});
