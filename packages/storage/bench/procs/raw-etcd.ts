// Child process: the write-path baseline. `writers` concurrent loops send straight to etcd, with
// the etcd3 package, the transactions our Etcd3Storage sends for a create (compare
// create_revision = 0, put) and an update (compare mod_revision, put) of a ~1 KB ConfigMap —
// what the apiserver's writes cost at the storage, with nothing of the apiserver.
import { Etcd3 } from 'etcd3';
import { cpuMicros, serveParent } from '../../../../bench/proc.js';
import { configMap } from './config-map.js';

let client: Etcd3 | undefined;
let seq = 0;

serveParent({
  start(args) {
    client = new Etcd3({ hosts: (args as { endpoints: string[] }).endpoints });
    return null;
  },
  /** Creates then updates objects from `writers` loops for `ms`; returns the operations done. */
  async run(args) {
    const { writers, ms, prefix } = args as { writers: number; ms: number; prefix: string };
    const kv = client!;
    let ops = 0;
    const deadline = performance.now() + ms;
    const start = performance.now();
    await Promise.all(
      Array.from({ length: writers }, async () => {
        while (performance.now() < deadline) {
          const name = `raw-${process.pid}-${seq++}`;
          const key = Buffer.from(`${prefix}/configmaps/bench/${name}`);
          const created = await kv.kv.txn({
            compare: [{ key, target: 'Create', result: 'Equal', create_revision: 0 }],
            success: [
              { request_put: { key, value: Buffer.from(JSON.stringify(configMap(name))) } },
            ],
            failure: [{ request_range: { key } }],
          });
          if (!created.succeeded) throw new Error(`${name} exists`);
          ops++;
          const updated = await kv.kv.txn({
            compare: [
              { key, target: 'Mod', result: 'Equal', mod_revision: created.header.revision },
            ],
            success: [
              { request_put: { key, value: Buffer.from(JSON.stringify(configMap(name, 1))) } },
            ],
            failure: [{ request_range: { key } }],
          });
          if (!updated.succeeded) throw new Error(`${name} changed under its writer`);
          ops++;
        }
      }),
    );
    return { ops, seconds: (performance.now() - start) / 1000 };
  },
  cpu: () => cpuMicros(),
  stop() {
    client?.close();
    return null;
  },
});
