import { findBuiltinResource, type KubeObject } from '@listwatch/api';
import { storageBackends } from '@listwatch/testing';
import Database from 'better-sqlite3';
import { Etcd3 } from 'etcd3';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cacher } from '../cacher/cacher.js';
import { Etcd3Storage } from '../etcd3/etcd3-storage.js';
import { MemoryStorage } from '../memory/memory-storage.js';
import { SqliteStorage } from '../sqlite/sqlite-storage.js';
import type { Storage, StorageEvent } from '../storage.js';
import { cbcTransformer } from './aes.js';
import {
  identityTransformer,
  prefixTransformers,
  type Transformer,
  type TransformerForKey,
} from './transformer.js';

// Encryption at rest through every backend, as kube's etcd3 store with a transformer
// (k8s.io/apiserver pkg/storage/etcd3/store.go; test/integration/controlplane/transformation).

const key1 = cbcTransformer(randomBytes(32));
const key2 = cbcTransformer(randomBytes(32));
const withKey1 = prefixTransformers([
  { prefix: 'k8s:enc:aescbc:v1:key1:', transformer: key1 },
  { prefix: '', transformer: identityTransformer },
]);
const rotated = prefixTransformers([
  { prefix: 'k8s:enc:aescbc:v1:key2:', transformer: key2 },
  { prefix: 'k8s:enc:aescbc:v1:key1:', transformer: key1 },
  { prefix: '', transformer: identityTransformer },
]);
/** Secrets through `transformer`; everything else stored as it is. */
const secretsThrough =
  (transformer: Transformer): TransformerForKey =>
  (key) =>
    key.includes('/secrets/') ? transformer : undefined;

let config: TransformerForKey = secretsThrough(withKey1);
const raw = new Map<string, (key: string) => Promise<Buffer | undefined>>();
const backends = storageBackends<Storage>({
  memory: () => new MemoryStorage({ transformerFor: (key) => config(key) }),
  sqlite: (file) => {
    raw.set('sqlite', (key) => {
      const db = new Database(file, { readonly: true });
      try {
        const row = db
          .prepare<[string], { value: string | Buffer }>(
            'SELECT l.value AS value FROM kv_current c JOIN kv_log l ON l.rev = c.rev WHERE c.key = ?',
          )
          .get(key);
        return Promise.resolve(row && Buffer.from(row.value));
      } finally {
        db.close();
      }
    });
    return new SqliteStorage({ file, transformerFor: (key) => config(key) });
  },
  etcd3: (endpoints, prefix) => {
    raw.set('etcd3', async (key) => {
      const client = new Etcd3({ hosts: endpoints });
      try {
        return (await client.get(key).buffer()) ?? undefined;
      } finally {
        client.close();
      }
    });
    return new Etcd3Storage({ endpoints, prefix, transformerFor: (key) => config(key) });
  },
});

const secret = (name: string, value: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'ns' },
  data: { password: Buffer.from(value).toString('base64') },
});

describe.each(backends)('encryption at rest on $name storage', (backend) => {
  let storage: Storage;
  let prefix: string;
  beforeAll(async () => {
    await backend.setup();
    storage = backend.open('encryption');
    prefix = storage.prefix;
  });
  afterAll(async () => {
    await storage.close();
    await backend.teardown();
  });

  /** The bytes the backend holds for `key` (SQLite: with the storage closed, it locks the file). */
  async function readRaw(key: string): Promise<Buffer | undefined> {
    const read = raw.get(backend.name);
    if (!read) return undefined;
    if (backend.name !== 'sqlite') return read(key);
    await storage.close();
    try {
      return await read(key);
    } finally {
      storage = backend.open('encryption');
    }
  }

  it('stores a configured resource encrypted and reads, lists and watches it as plaintext', async () => {
    config = secretsThrough(withKey1);
    const key = `${prefix}/secrets/ns/db`;
    const watch = storage.watch(`${prefix}/secrets/`);
    const created = await storage.create(key, secret('db', 'hunter2'));
    const first = (await watch[Symbol.asyncIterator]().next()).value as StorageEvent;
    expect(first).toMatchObject({ type: 'ADDED', object: created });
    watch.close();
    const stored = await readRaw(key);
    if (backend.name !== 'memory') {
      expect(stored!.subarray(0, 23).toString()).toBe('k8s:enc:aescbc:v1:key1:');
      expect(stored!.includes('hunter2')).toBe(false);
      expect(stored!.includes(Buffer.from('hunter2').toString('base64'))).toBe(false);
    }
    expect(await storage.get(key)).toEqual(created);
    expect((await storage.list(`${prefix}/secrets/`)).items).toEqual([created]);
  });

  it('stores resources outside the configuration as plain JSON', async () => {
    const key = `${prefix}/configmaps/ns/plain`;
    await storage.create(key, { ...secret('plain', 'x'), kind: 'ConfigMap' });
    if (backend.name !== 'memory') expect((await readRaw(key))!.toString()).toMatch(/^\{/);
  });

  it('after a key rotation, a rewrite that changes nothing re-encrypts with the new key', async () => {
    config = secretsThrough(withKey1);
    const key = `${prefix}/secrets/ns/rotate`;
    const created = await storage.create(key, secret('rotate', 'old'));
    config = secretsThrough(rotated);
    const rewritten = await storage.guaranteedUpdate(key, (current) => current);
    expect(Number(rewritten.metadata.resourceVersion)).toBeGreaterThan(
      Number(created.metadata.resourceVersion),
    );
    if (backend.name !== 'memory')
      expect((await readRaw(key))!.subarray(0, 23).toString()).toBe('k8s:enc:aescbc:v1:key2:');
    // Now fresh: the same no-op rewrite is not written.
    const again = await storage.guaranteedUpdate(key, (current) => current);
    expect(again.metadata.resourceVersion).toBe(rewritten.metadata.resourceVersion);
  });

  it('encrypts plaintext written before encryption was configured, on its next rewrite', async () => {
    config = () => undefined;
    const key = `${prefix}/secrets/ns/legacy`;
    await storage.create(key, secret('legacy', 'plain'));
    config = secretsThrough(withKey1);
    expect((await storage.get(key))?.metadata.name).toBe('legacy');
    await storage.guaranteedUpdate(key, (current) => current);
    if (backend.name !== 'memory')
      expect((await readRaw(key))!.subarray(0, 8).toString()).toBe('k8s:enc:');
  });

  it('a value no configured key can read is a CorruptObject error (500) naming the key, not a crash (value/transformer.go)', async () => {
    config = secretsThrough(withKey1);
    const key = `${prefix}/secrets/ns/lost`;
    await storage.create(key, secret('lost', 'x'));
    config = secretsThrough(
      prefixTransformers([{ prefix: 'k8s:enc:aescbc:v1:key2:', transformer: key2 }]),
    );
    await expect(storage.get(key)).rejects.toMatchObject({
      storageCode: 'CorruptObject',
      code: 500,
      reason: 'InternalError',
      message: expect.stringContaining(key),
    });
    config = secretsThrough(withKey1);
  });

  it('after a rotation and the old key removed, a watch cache starts: the value only that key read, current or in history, is an error for that object alone', async () => {
    const secrets = findBuiltinResource('secrets')!;
    const keyOf = (ns: string, name: string) => `${prefix}/secrets/${ns}/${name}`;
    config = secretsThrough(withKey1);
    await storage.create(keyOf('rot', 'a'), {
      ...secret('a', 'x'),
      metadata: { name: 'a', namespace: 'rot' },
    });
    const forgotten = keyOf('rot-old', 'forgotten');
    await storage.create(forgotten, {
      ...secret('f', 'y'),
      metadata: { name: 'forgotten', namespace: 'rot-old' },
    });
    // Rotation: a is rewritten with key2; its first version stays in history, key1's.
    config = secretsThrough(rotated);
    await storage.guaranteedUpdate(keyOf('rot', 'a'), (current) => current);
    config = secretsThrough(
      prefixTransformers([
        { prefix: 'k8s:enc:aescbc:v1:key2:', transformer: key2 },
        { prefix: '', transformer: identityTransformer },
      ]),
    );
    const cacher = new Cacher({ storage, definition: secrets });
    try {
      await cacher.start();
      expect(
        (await cacher.get({ namespace: 'rot', name: 'a', resourceVersion: '0' }))?.metadata.name,
      ).toBe('a');
      const names = async (namespace: string, resourceVersion?: string) =>
        (
          await cacher.list({ namespace, ...(resourceVersion ? { resourceVersion } : {}) })
        ).items.map((o) => o.metadata.name);
      expect(await names('rot', '0')).toEqual(['a']);
      expect(await names('rot')).toEqual(['a']);
      const corrupt = { storageCode: 'CorruptObject', code: 500, reason: 'InternalError' };
      for (const resourceVersion of ['0', undefined]) {
        await expect(
          cacher.get({
            namespace: 'rot-old',
            name: 'forgotten',
            ...(resourceVersion ? { resourceVersion } : {}),
          }),
        ).rejects.toMatchObject({ ...corrupt, message: expect.stringContaining(forgotten) });
        // kube 1.32 GetList: a LIST over it fails naming it.
        await expect(names('rot-old', resourceVersion)).rejects.toMatchObject({
          ...corrupt,
          message: expect.stringContaining(`not transformable or decodable at: ${forgotten}`),
        });
      }
      // Its next write makes it readable again.
      await storage.update(forgotten, {
        ...secret('f', 'z'),
        metadata: { name: 'forgotten', namespace: 'rot-old' },
      });
      await expect.poll(() => names('rot-old', '0').catch(() => [])).toEqual(['forgotten']);
    } finally {
      await cacher.stop();
      config = secretsThrough(withKey1);
    }
  });
});
