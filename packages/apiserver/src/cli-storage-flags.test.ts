import { describe, expect, it } from 'vitest';
import { parseArgs } from './cli.js';

describe('storage flags', () => {
  it('--etcd-servers alone implies --storage-backend etcd3 (kube-apiserver stores in etcd); an explicit backend is kept', () => {
    expect(parseArgs(['--etcd-servers', 'http://127.0.0.1:2379']).options).toMatchObject({
      storageBackend: 'etcd3',
      etcdServers: ['http://127.0.0.1:2379'],
    });
    expect(
      parseArgs(['--etcd-servers=http://a:2379,http://b:2379', '--storage-backend=etcd3']).options
        .storageBackend,
    ).toBe('etcd3');
    expect(
      parseArgs(['--storage-backend', 'memory', '--etcd-servers', 'http://127.0.0.1:2379']).options
        .storageBackend,
    ).toBe('memory');
    expect(parseArgs([]).options.storageBackend).toBeUndefined();
  });
});
