import { findBuiltinResource, jsonLineLogger, type KubeObject } from '@listwatch/api';
import { afterEach, describe, expect, it } from 'vitest';
import { Cacher } from './cacher/cacher.js';
import type { Logger } from './index.js';
import { MemoryStorage } from './memory/memory-storage.js';
import { FaultInjectingStorage } from './testing/fault-injecting-storage.js';

const secrets = findBuiltinResource('secrets')!;
const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

describe("storage's logging", () => {
  it('never writes a token or Secret data, even when a backend error quotes them', async () => {
    const lines: string[] = [];
    const logger: Logger = jsonLineLogger({ level: 'debug', write: (l) => lines.push(l) });
    const storage = new FaultInjectingStorage(new MemoryStorage({ compactionInterval: 0 }));
    const cacher = new Cacher({ storage, definition: secrets, logger });
    stops.push(() => cacher.stop());
    await cacher.start();
    const secret: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'db', namespace: 'ns' },
      data: { password: 'aHVudGVyMg==' },
    };
    await storage.create('/registry/secrets/ns/db', secret);
    // An etcd error quoting the request's credentials, as a misconfigured proxy may answer.
    storage.breakWatches(new Error('etcdserver: rejected Authorization: Bearer etcd-s3cret'));
    await expect.poll(() => lines.join('\n')).toContain('watch cache re-initializing');
    logger.warn('storage watch ended', { resource: 'secrets', object: secret, token: 't0ken' });

    const log = lines.join('\n');
    expect(log).toContain('Bearer [redacted]');
    expect(log).not.toMatch(/etcd-s3cret|aHVudGVyMg==|t0ken/);
  });
});
