// Child process: the write-path baseline. `writers` concurrent loops send straight to etcd, with
// the etcd3 package, the transactions our Etcd3Storage sends for a create (compare
// create_revision = 0, put) and an update (compare mod_revision, put) of a ~1 KB ConfigMap —
// what the apiserver's writes cost at the storage, with nothing of the apiserver. `runStorage`
// makes the same writes through our Etcd3Storage as the apiserver does (a create, then a
// guaranteedUpdate from a watch-fed cache's copy, undefined while the watch lags), to tell the
// storage layer's cost from the apiserver's.
import type { KubeObject } from '@listwatch/api';
import { Etcd3 } from 'etcd3';
import { cpuMicros, serveParent, timedLoops } from '../../../../bench/proc.js';
import { Etcd3Storage } from '../../src/etcd3/etcd3-storage.js';
import type { StorageWatch } from '../../src/storage.js';
import { configMap } from './config-map.js';

let client: Etcd3 | undefined;
let storage:
  { store: Etcd3Storage; watch: StorageWatch; cache: Map<string, KubeObject> } | undefined;
let seq = 0;

serveParent({
  start(args) {
    const { endpoints } = args as { endpoints: string[] };
    client = new Etcd3({ hosts: endpoints });
    const store = new Etcd3Storage({ endpoints, prefix: '/storage', compactionInterval: 0 });
    const watch = store.watch('/storage/configmaps/');
    const cache = new Map<string, KubeObject>();
    void (async () => {
      for await (const event of watch)
        if (event.type !== 'PROGRESS') cache.set(event.key, event.object);
    })();
    storage = { store, watch, cache };
    return null;
  },
  /** `run` through Etcd3Storage, as the apiserver writes: create, then guaranteedUpdate. */
  async runStorage(args) {
    const { writers, ms } = args as { writers: number; ms: number };
    const { store, cache } = storage!;
    return timedLoops(writers, ms, async () => {
      const name = `storage-${process.pid}-${seq++}`;
      const key = `/storage/configmaps/bench/${name}`;
      await store.create(key, configMap(name));
      await store.guaranteedUpdate(
        key,
        (current) => ({ ...configMap(name, 1), metadata: current.metadata }),
        cache.get(key),
      );
      return 2;
    });
  },
  /** Creates then updates objects from `writers` loops for `ms`; returns the operations done. */
  async run(args) {
    const { writers, ms, prefix } = args as { writers: number; ms: number; prefix: string };
    const kv = client!;
    return timedLoops(writers, ms, async () => {
      const name = `raw-${process.pid}-${seq++}`;
      const key = Buffer.from(`${prefix}/configmaps/bench/${name}`);
      const created = await kv.kv.txn({
        compare: [{ key, target: 'Create', result: 'Equal', create_revision: 0 }],
        success: [{ request_put: { key, value: Buffer.from(JSON.stringify(configMap(name))) } }],
        failure: [{ request_range: { key } }],
      });
      if (!created.succeeded) throw new Error(`${name} exists`);
      const updated = await kv.kv.txn({
        compare: [{ key, target: 'Mod', result: 'Equal', mod_revision: created.header.revision }],
        success: [{ request_put: { key, value: Buffer.from(JSON.stringify(configMap(name, 1))) } }],
        failure: [{ request_range: { key } }],
      });
      if (!updated.succeeded) throw new Error(`${name} changed under its writer`);
      return 2;
    });
  },
  cpu: () => cpuMicros(),
  async stop() {
    client?.close();
    storage?.watch.close();
    await storage?.store.close();
    return null;
  },
});
