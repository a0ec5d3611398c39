import { EtcdCluster } from '@listwatch/testing';
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll } from 'vitest';
import { storageContract } from '../testing/contract.js';
import { Etcd3Storage } from './etcd3-storage.js';

let cluster: EtcdCluster;
beforeAll(async () => {
  cluster = await EtcdCluster.start();
});
afterAll(async () => {
  await cluster.destroy();
});

// One etcd for the whole suite: each store gets a prefix of its own.
let stores = 0;

storageContract('etcd3', {
  open: (options) =>
    Promise.resolve(
      new Etcd3Storage({
        endpoints: cluster.endpoints,
        prefix: `/contract-${stores++}/registry`,
        compactionInterval: 0,
        ...options,
      }),
    ),
  restart: async (storage) => {
    await cluster.member.kill();
    await cluster.member.start();
    return storage;
  },
  writeRaw: async (storage, key, bytes) => {
    const client = new Etcd3({ hosts: cluster.endpoints });
    try {
      await client.put(key).value(Buffer.from(bytes));
    } finally {
      client.close();
    }
    return storage;
  },
});
